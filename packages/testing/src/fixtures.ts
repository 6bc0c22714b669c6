/**
 * Real osu! files, for the tests of fidelity to real game files only (every other test
 * uses the made set, osu/made-fixtures.ts). They live outside the repository, in
 * `../shared/fixtures/` beside the checkout (never copied in); `FIXTURES_DIR` points
 * elsewhere.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

export function fixturesDir(): string {
  return process.env.FIXTURES_DIR ?? join(repoRoot, '..', 'shared', 'fixtures');
}

/** The osu! replays and beatmaps folder, or undefined when it is not beside this checkout. */
export function osuFixturesDir(): string | undefined {
  const dir = join(fixturesDir(), 'osu');
  return existsSync(dir) ? dir : undefined;
}

/** Path of one osu! fixture file, or undefined when absent. */
export function osuFixture(name: string): string | undefined {
  const dir = osuFixturesDir();
  const path = dir && join(dir, name);
  return path && existsSync(path) ? path : undefined;
}
