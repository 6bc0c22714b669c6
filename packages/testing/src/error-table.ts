/**
 * Keeps an error registry (`defineErrors`) and the "Errors" table of its README in step:
 * one row per code, in registry order, with the same status and default detail.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ErrorDefinition } from '@platform/core';

export interface ErrorRow {
  code: string;
  status: number;
  detail: string;
}

/** Rows of the first table under `## Errors` (`| code | status | detail |`, `\|` escaped). */
export function errorTableOf(markdown: string): ErrorRow[] {
  const section = markdown.split(/^## Errors\s*$/m)[1];
  if (section === undefined) return [];
  const rows: ErrorRow[] = [];
  for (const line of section.split('\n')) {
    if (line.startsWith('## ')) break;
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    const cells = line
      .slice(1, line.trimEnd().length - 1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, '|'));
    const [code, status, detail] = cells;
    const name = /^`([A-Z0-9_]+)`$/.exec(code ?? '')?.[1];
    if (name && status && detail !== undefined)
      rows.push({ code: name, status: Number(status), detail });
  }
  return rows;
}

export function assertErrorTableInStep(
  definitions: Readonly<Record<string, ErrorDefinition>>,
  readme: URL | string,
): void {
  const table = errorTableOf(readFileSync(readme, 'utf8'));
  const registry = Object.entries(definitions).map(([code, { status, detail }]) => ({
    code,
    status,
    detail,
  }));
  assert.ok(table.length > 0, `no "## Errors" table in ${String(readme)}`);
  assert.deepEqual(
    table,
    registry,
    `the Errors table of ${String(readme)} and the registry differ`,
  );
}
