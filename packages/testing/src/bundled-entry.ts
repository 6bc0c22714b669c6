/**
 * A TypeScript entry point compiled once into one ES module that plain `node` runs
 * (issue 21's fault harnesses start a service or a CLI hundreds of times). Under
 * `node --import tsx` every start pays for tsx's loader thread and for resolving and
 * transforming each workspace file (about 2 s of CPU for `analytics build`, most of the
 * process's CPU, on this 2-core machine); the bundle runs the same code, transformed by
 * the same esbuild, without that.
 *
 * The workspace's own packages (`@platform/*`, TypeScript only) are bundled; every other
 * package stays an import, resolved from the bundle's folder, which is inside the
 * entry's package (`node_modules/.cache/bundled-entries/`), so the same node_modules
 * answer. `import.meta.url` keeps naming each source file, so a module that reads a file
 * beside itself (a dashboard page, a SQL file) or resolves a package from there finds it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';

/** The package holding `file`: the nearest folder with a package.json, if any. */
export function packageDirOf(file: string): string | undefined {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'package.json'))) return dir;
  return undefined;
}

/** True for a CommonJS file (by extension, else by its package's `type`). */
function isCommonJs(file: string): boolean {
  if (file.endsWith('.cjs')) return true;
  if (file.endsWith('.mjs')) return false;
  const dir = packageDirOf(file);
  if (!dir) return true;
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type?: string };
  return manifest.type !== 'module';
}

const REQUIRE = '__externalRequire';
/**
 * Each output file's `require` for the CommonJS packages it imports (`externalPackages`),
 * from the output file's own URL (spelt in two parts: `sourceUrls` would give it this
 * file's when the test bundles compile this file).
 */
const REQUIRE_BANNER = {
  js: `import { createRequire as __createRequire } from 'node:module'; const ${REQUIRE} = __createRequire(${'import.meta'}.url);`,
};

/**
 * Bare imports outside the workspace stay imports, of the file they resolve to from the
 * importing file (a package may have its own version of a dependency: core's ajv 8 is
 * not the root's ajv 6); `@platform/*` is bundled. A static import of a CommonJS file
 * goes through `require` (esbuild's interop, as under tsx): Node's own named-export
 * detection misses some (`import { Ajv } from 'ajv'`).
 */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(bundler) {
    bundler.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === REQUIRE) return undefined;
      if (args.path.startsWith('@platform/') || args.kind === 'entry-point') return undefined;
      if (args.path.startsWith('node:')) return { external: true };
      const resolved = await bundler.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: REQUIRE,
      });
      if (resolved.errors.length > 0 || !resolved.path) return { external: true };
      if (resolved.external) return { path: args.path, external: true };
      return args.kind === 'import-statement' && isCommonJs(resolved.path)
        ? { path: resolved.path, namespace: 'external-require' }
        : { path: resolved.path, external: true };
    });
    bundler.onLoad({ filter: /.*/, namespace: 'external-require' }, (args) => ({
      contents: `module.exports = ${REQUIRE}(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * `import.meta.url` but not right after a quote (a string that is just those words, as
 * this file's own are: the test bundles compile this file too). Text, not a parse: inside
 * a longer string or a template it is replaced too, so a file that writes code holding
 * it as text spells it in two parts (`${'import.meta'}.url`).
 */
const IMPORT_META_URL = /(?<!['"`])\bimport\.meta\.url\b(?!['"`])/g;

/** Each source file's own `import.meta.url`, not the bundle's. */
const sourceUrls: Plugin = {
  name: 'source-import-meta-url',
  setup(bundler) {
    bundler.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      const sourceUrl = JSON.stringify(pathToFileURL(args.path).href);
      const contents = text.replace(IMPORT_META_URL, sourceUrl);
      if (contents === text) return undefined;
      return {
        contents,
        loader: /\.[cm]?tsx?$/.test(args.path) ? (args.path.endsWith('x') ? 'tsx' : 'ts') : 'js',
      };
    });
  },
};

/** What every bundle here is: one ES module for this node, workspace code in it, packages imported. */
const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${process.versions.node.split('.')[0]}`,
  logLevel: 'error',
  banner: REQUIRE_BANNER,
  plugins: [externalPackages, sourceUrls],
} satisfies BuildOptions;

/** This process's bundles, by entry: a test that starts a service five times bundles it once. */
const bundles = new Map<string, Promise<string>>();

/**
 * Compiles `entry` (a `.ts` file inside a workspace package: `packageDir`) and returns the
 * path of the bundle. Each process compiles it afresh on its first call (a fraction of a
 * second), so the bundle is never older than the sources it started with; the file is
 * named by its content, so harnesses running at once share one when their sources agree,
 * and the folder holds one file per version.
 */
export function bundleEntry(packageDir: string, entry: string): Promise<string> {
  const key = `${packageDir}\0${entry}`;
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = writeBundle(packageDir, entry);
    bundles.set(key, bundle);
    bundle.catch(() => bundles.delete(key));
  }
  return bundle;
}

async function writeBundle(packageDir: string, entry: string): Promise<string> {
  const outDir = join(packageDir, 'node_modules', '.cache', 'bundled-entries');
  const result = await build({
    entryPoints: [entry],
    outfile: join(outDir, 'entry.mjs'),
    write: false,
    ...NODE_BUNDLE,
    absWorkingDir: dirname(entry),
  });
  const code = result.outputFiles[0]!.contents;
  const name = relative(packageDir, entry).replace(/[^\w.-]+/g, '_');
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 12);
  const outfile = join(outDir, `${name}.${hash}.mjs`);
  if (!existsSync(outfile)) {
    // Written aside and renamed: a harness starting at the same moment never runs half a file.
    mkdirSync(outDir, { recursive: true });
    const partial = `${outfile}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, outfile);
  }
  return outfile;
}

/**
 * Compiles test files (`*.test.ts` under `test/`) for `scripts/run-tests.mjs` in one
 * esbuild run into `outDir`, their shared modules split into chunks, and returns each
 * file's bundle in the order given. Under `--import tsx` every test file's process paid
 * about a second of CPU for the loader thread and for resolving and transforming each
 * workspace module (most of a short file's CPU); on 2 cores the suite is CPU-bound, and
 * the bundles took a fifth off its CPU and its time (root README). A bundle is named
 * after its file (`<path from root>.mjs`, or `outside/<absolute path>.mjs` for a file
 * elsewhere), so the runner's reports name the source (`scripts/test-source-path.mjs`);
 * line numbers in a stack are the bundle's (`TEST_BUNDLE=0` runs the sources).
 */
export async function bundleTestFiles(
  files: readonly string[],
  root: string,
  outDir: string,
): Promise<string[]> {
  const outs = files.map((file) => {
    const fromRoot = relative(root, file);
    const name = fromRoot.startsWith('..') ? join('outside', file) : fromRoot;
    return name.replace(/\.ts$/, '');
  });
  await build({
    entryPoints: files.map((file, index) => ({ in: file, out: outs[index]! })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    ...NODE_BUNDLE,
    absWorkingDir: root,
  });
  return outs.map((out) => join(outDir, `${out}.mjs`));
}
