#!/usr/bin/env node
// Fails when modules import each other in a cycle (run by `npm run lint`). Every
// `.ts`/`.mjs`/`.js` file under packages/*/ and services/*/ (src, test, bench; not
// node_modules) is read; static imports and re-exports are followed, relative ones and
// `@platform/<name>` (the workspace's entry point). Type-only imports (`import type`,
// `export type`, or every name marked `type`) are left out: they vanish at run time, and
// a runtime cycle is the one that bites (a value read before its module has run).
// Dynamic `import()` is lazy and left out too.
//
//   node scripts/check-import-cycles.mjs    prints each cycle, exits 1 when there is one
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SOURCE = /\.(ts|mts|mjs|js)$/;

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return walk(path);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const workspaces = new Map(); // @platform/name -> entry file
for (const group of ['packages', 'services']) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    const manifest = join(dir, name, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    const entry = typeof pkg.exports === 'string' ? pkg.exports : pkg.exports?.['.'];
    if (pkg.name && typeof entry === 'string') workspaces.set(pkg.name, join(dir, name, entry));
  }
}

const files = ['packages', 'services'].flatMap((group) => walk(join(root, group)));

// import … from '…' / export … from '…' (the clause may span lines); bare import '…'
const STATEMENT =
  /(?:^|[;\n])\s*(import|export)\s+([^;'"]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]/g;

function isTypeOnly(kind, clause) {
  if (/^type\s/.test(clause)) return true;
  const braces = /^\{([^}]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1]
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

function resolveSpecifier(from, specifier) {
  if (workspaces.has(specifier)) return workspaces.get(specifier);
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

const graph = new Map();
for (const file of files) {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const edges = new Set();
  for (const m of text.matchAll(STATEMENT)) {
    const [, kind, clause, specifier, bare] = m;
    if (!bare && isTypeOnly(kind, clause)) continue;
    const target = resolveSpecifier(file, bare ?? specifier);
    if (target) edges.add(target);
  }
  graph.set(file, [...edges]);
}

// Tarjan's strongly connected components: every component of more than one module
// (or a module importing itself) is a cycle.
let index = 0;
const stack = [];
const onStack = new Set();
const indexOf = new Map();
const low = new Map();
const cycles = [];
function connect(v) {
  indexOf.set(v, index);
  low.set(v, index);
  index += 1;
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    if (!indexOf.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indexOf.get(w)));
  }
  if (low.get(v) === indexOf.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component);
  }
}
for (const file of graph.keys()) if (!indexOf.has(file)) connect(file);

/** The shortest loop through a component's first module, for the message: a → b → … → a. */
function loopIn(component) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const parent = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const back = [];
        for (let u = v; u !== undefined; u = parent.get(u)) back.push(u);
        return [...back.reverse(), start];
      }
      if (members.has(w) && !parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

if (cycles.length === 0) {
  console.log(`check-import-cycles: ${files.length} files, no import cycle`);
} else {
  console.error(`check-import-cycles: ${cycles.length} import cycle(s):`);
  for (const component of cycles)
    console.error(
      `  ${loopIn(component)
        .map((f) => relative(root, f))
        .join('\n    → ')}`,
    );
  console.error('Break each by moving what both sides need into a module of its own.');
  process.exitCode = 1;
}
