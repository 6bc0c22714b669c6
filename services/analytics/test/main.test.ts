import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { analyticsClient } from '@platform/client';
import { freePort } from '@platform/testing';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** Services started by a test; killed afterwards even when an assertion failed first. */
const children: ChildProcess[] = [];

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('npm start (src/main.ts)', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('first start generates a data set and builds the warehouse, logging each step; SIGTERM stops it cleanly', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'analytics-main-'));
    dirs.push(dataDir);
    const port = await freePort();
    const service = start({ DATA_DIR: dataDir, PORT: String(port), ANALYTICS_SEED_ORDERS: '400' });
    const base = `http://127.0.0.1:${port}`;
    let status = 0;
    // Start-up (tsx compiling the service) and the first build take seconds on an idle
    // machine but can take a minute on a loaded one: wait on a deadline, not a count.
    const deadline = Date.now() + 150_000;
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = await fetch(`${base}/health`).then(
        (r) => r.status,
        () => 0,
      );
    }
    assert.equal(status, 200, service.output());
    const logs = service.output();
    for (const step of ['generate', 'bronze', 'silver', 'gold', 'quality', 'views']) {
      assert.match(logs, new RegExp(`"step":"${step}","ms":\\d+`), step);
    }
    assert.match(logs, /"olist_orders_dataset.csv":400/);
    // A client's read of the built warehouse, through @platform/client (issue 22 item 4).
    const kpis = await analyticsClient({ baseUrl: base }).GET('/api/v1/sales/kpis');
    assert.equal(kpis.response.status, 200, JSON.stringify(kpis.error));
    // The operation also answers text/csv (`?format=csv`); JSON is the default.
    const body = kpis.data!;
    assert.ok(typeof body === 'object', 'a JSON body');
    const orders = body.data[0]!.total_lifetime_orders;
    assert.ok(typeof orders === 'number' && orders > 0 && orders <= 400, String(orders));
    service.child.kill('SIGTERM');
    assert.equal(await service.exited, 0);
    assert.match(service.output(), /shut down cleanly/);
  });

  it('a bad setting stops start-up with one line naming the variable', async () => {
    const service = start({ DATA_DIR: tmpdir(), PORT: '8000', ANALYTICS_SEED_ORDERS: 'lots' });
    assert.equal(await service.exited, 78);
    assert.match(service.output(), /ANALYTICS_SEED_ORDERS: expected a positive integer/);
  });
});
