// The versions of Node.js the repository runs on: `^20.19.0 || ^22.12.0`, the root
// package.json's `engines.node` (packages/testing's supported-node test keeps the two
// equal). `node scripts/run-tests.mjs` checks it first.
//
// Why not any Node 20 or 22: two of Fastify's dependencies are ES modules only, and are
// loaded with `require()`: content-disposition 3 (by @fastify/static, under the API
// documents' pages) and cookie 2 (by light-my-request, Fastify's `inject`). Node loads an
// ES module through `require()` without a flag from 20.19 on the 20 line and 22.12 on the
// 22 line (never on 21). The suite runs its files and its service processes with plain
// node (esbuild bundles), which then stop at the first import of Fastify with
// ERR_REQUIRE_ESM. Under tsx (`npm start`, the benches) they load on older releases too,
// since tsx compiles them, but nothing tests those releases. Both packages declare
// `node >= 22` themselves, so npm's EBADENGINE warnings about them are expected on Node 20.
//
// Why not Node 24 yet (the whole suite on 24.22.3, 29 Nov 2026: two failures):
// its test runner leaves a file's process running after a test timed out while a child
// it started lives, so a hanging test hangs the run. `--test-force-exit` ends it, but its
// `process.exit` is what scripts/test-exit-guard.mjs turns into a failure, so the guard
// would first need to tell the two apart. And read-back frames are not always freed
// young: beside the suite, 6 of 12 loops of the release-frames test held frames until
// V8's own 64 MB external step (7.7 frames, where 20 and 22 held 4 to 6; quiet, all three
// hold 4).

export const SUPPORTED_NODE_RANGE = '^20.19.0 || ^22.12.0';

/** Each supported line, and its first release that loads ES modules through `require()` unflagged. */
const SUPPORTED_LINES = [
  [20, 19],
  [22, 12],
];

/**
 * Why this Node cannot run the suite, or undefined when it can. `version` is spelt as
 * `process.versions.node` spells it (`20.20.2`, no `v`).
 * @param {string} [version]
 * @returns {string | undefined}
 */
export function unsupportedNodeReason(version = process.versions.node) {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  const supported = SUPPORTED_LINES.some(
    ([line, firstMinor]) => major === line && minor >= firstMinor,
  );
  return supported
    ? undefined
    : `Node.js ${version} cannot run the test suite: it needs Node.js ${SUPPORTED_NODE_RANGE} ` +
        '(scripts/supported-node.mjs says why)';
}
