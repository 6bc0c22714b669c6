// The test file a path names: `scripts/run-tests.mjs` runs each file from a bundle named
// after it (`node_modules/.cache/test-bundles/<pid>/<path from the root>.mjs`, or
// `outside/<absolute path>.mjs` there for a file outside the root), and the reports say
// which source file that was (packages/testing `bundleTestFiles`).
const BUNDLE = /\/node_modules\/\.cache\/test-bundles\/\d+\/(.*)\.mjs$/;

/** `file` itself unless it is a test bundle; then the source file it was compiled from. */
export function testSourcePath(file) {
  const match = BUNDLE.exec(file);
  if (!match) return file;
  const [, named] = match;
  return named.startsWith('outside/')
    ? `${named.slice('outside'.length)}.ts`
    : `${file.slice(0, match.index)}/${named}.ts`;
}
