/**
 * End to end through `npm start`'s wiring: `src/main.ts` runs as its own process on the
 * embedded defaults (PGlite, SQL-log broker, files under DATA_DIR) with nothing set up.
 * A submitted intern lands in the relational adapter's table and in the csv file.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { controlPlaneClient, relationalAdapterClient, submissionClient } from '@platform/client';
import { waitFor } from '../helpers/broker-drivers.js';
import { internPayload } from '../support/contracts.js';
import { platformPorts } from '../support/platform-env.js';

const repoRoot = resolve(fileURLToPath(new URL('../../../..', import.meta.url)));
const CSV_HEADER =
  'record_id,intern_id,first_name,last_name,email,college,department,mentor,start_date,status,created_at';

describe('npm start wiring: one process, embedded defaults', () => {
  let child: ChildProcess;
  let dataDir: string;
  let ports: Record<string, string>;
  let output = '';
  const url = (name: string, path: string) => `http://127.0.0.1:${ports[name]}${path}`;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'integration-e2e-'));
    ports = await platformPorts();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...ports,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      ATTACHMENT_REFRESH_MS: '300',
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    delete env.NATS_URL;
    delete env.CONTROL_PLANE_URL;
    delete env.INTEGRATION_ROLES;
    child = spawn(process.execPath, ['--import', 'tsx', 'services/integration/src/main.ts'], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += String(chunk)));
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    await waitFor(
      'every part to answer /health',
      async () => {
        if (child.exitCode !== null)
          throw new Error(`main.ts exited ${child.exitCode}: ${output.slice(-2000)}`);
        for (const name of Object.keys(ports)) {
          const ok = await fetch(url(name, '/health')).then(
            (r) => r.ok,
            () => false,
          );
          if (!ok) return false;
        }
        return true;
      },
      120_000,
    );
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('carries a submitted intern to the relational table and the csv file with no set-up', async () => {
    // A client's calls, through @platform/client (issue 22 item 4).
    const controlPlane = controlPlaneClient({ baseUrl: url('CONTROL_PLANE_PORT', '') });
    const submission = submissionClient({ baseUrl: url('PORT', '') });
    const relational = relationalAdapterClient({ baseUrl: url('RELATIONAL_ADAPTER_PORT', '') });
    await waitFor(
      'the seeded attachments',
      async () => {
        const { data } = await controlPlane.GET('/contracts/{contractId}/adapters', {
          params: { path: { contractId: 'interns' } },
        });
        return data?.attachments.length === 2;
      },
      30_000,
    );
    const payload = internPayload({ college: 'Trinity College, Cambridge' });
    const response = await submission.POST('/interns', { body: payload });
    assert.equal(response.response.status, 202, JSON.stringify(response.error));
    const { recordId } = response.data!;

    let rows: Array<Record<string, unknown>> = [];
    await waitFor(
      'the relational row',
      async () => {
        const { data, response: read } = await relational.GET('/interns');
        assert.equal(read.status, 200);
        rows = data!.interns as Array<Record<string, unknown>>;
        return rows.some((row) => row.record_id === recordId);
      },
      30_000,
    );
    const row = rows.find((r) => r.record_id === recordId)!;
    assert.equal(row.intern_id, payload.internId);
    assert.equal(row.status, 'ACTIVE');

    const file = join(dataDir, 'integration', 'csv', 'interns.csv');
    await waitFor(
      'the csv line',
      async () => (await readFile(file, 'utf8').catch(() => '')).includes(recordId),
      30_000,
    );
    const lines = (await readFile(file, 'utf8')).trim().split(/\r?\n/);
    assert.equal(lines[0], CSV_HEADER);
    const line = lines.find((l) => l.startsWith(recordId))!;
    assert.ok(line.includes(`,${payload.internId},`));
    assert.ok(line.includes(',"Trinity College, Cambridge",'), line);
    assert.ok(line.includes(',ACTIVE,'));

    const listed = await submission.GET('/interns');
    assert.equal(listed.response.status, 200, JSON.stringify(listed.error));
    const interns = listed.data!.interns as Array<{ recordId: string }>;
    assert.ok(interns.some((i) => i.recordId === recordId));
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output.slice(-2000));
  });
});
