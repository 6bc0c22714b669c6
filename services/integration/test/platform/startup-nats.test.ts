/**
 * `src/main.ts` on JetStream started before its broker is ready (issue 21 item 4): with
 * nothing listening on NATS_URL yet, and with a nats-server whose JetStream answers "503
 * no responders" (as one just restarted does while it recovers its streams), the start
 * waits, saying at warn what for, and the platform serves once the broker is there. A
 * server with no JetStream at all is a configuration error: the process exits at once
 * naming it. Each test runs its own nats-server (a free port, a store folder in a temp
 * folder), never the shared one.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { freePort, portFree, skipReason, spawnServiceMain, waitFor } from '@platform/testing';
import { platformPorts } from '../support/platform-env.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const skip = skipReason('nats-server', spawnSync('nats-server', ['--version']).status === 0);

/** A nats-server of this test on `port`, started from `config` (its text); stopped at the end. */
async function startNatsServer(t: TestContext, port: number, config: string) {
  const dir = mkdtempSync(join(tmpdir(), 'startup-nats-'));
  const file = join(dir, 'nats.conf');
  writeFileSync(
    file,
    `listen: 127.0.0.1:${port}\n${config.replaceAll('STORE', join(dir, 'store'))}`,
  );
  const child: ChildProcess = spawn('nats-server', ['-c', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr!.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-2000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  t.after(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await waitFor('the nats-server of this test to listen', async () => {
    if (child.exitCode !== null) throw new Error(`nats-server exited (${child.exitCode}): ${said}`);
    return !(await portFree(port));
  });
  return { stop };
}

/**
 * Runs `body` with a port from `freePort`, again with another one (three times at most)
 * when a nats-server of it could not listen: the port is free when handed out, but a
 * process beside this file's can take it before the server binds it (a fresh-clone CI,
 * 28 Nov 2026 20:10 UTC, twice that day). Any other failure fails the test at once.
 */
async function onFreeNatsPort(body: (natsPort: number) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await body(await freePort());
    } catch (error) {
      if (attempt >= 3 || !/address already in use/.test(String((error as Error)?.message)))
        throw error;
    }
  }
}

/** JetStream on, for every connection: what the platform expects. */
const WITH_JETSTREAM = 'jetstream { store_dir: "STORE" }\n';
/**
 * JetStream on in the server (its INFO says so) but not in the account the client lands
 * in: every JetStream request gets "503 no responders", as from a server whose JetStream
 * is not up yet.
 */
const JETSTREAM_NOT_ANSWERING = `${WITH_JETSTREAM}accounts { APP: { users: [{ user: app, password: app-secret }] } }\nno_auth_user: app\n`;

async function startIntegration(t: TestContext, natsPort: number) {
  const ports = await platformPorts();
  const platform = await spawnServiceMain(t, MAIN, {
    ...ports,
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    INTEGRATION_ROLES: 'control-plane,submission',
  });
  const url = (name: string) => `http://127.0.0.1:${ports[name]}`;
  return { ...platform, controlPlane: url('CONTROL_PLANE_PORT'), submission: url('PORT') };
}

async function assertServes(platform: Awaited<ReturnType<typeof startIntegration>>) {
  await platform.waitForHealth([platform.controlPlane, platform.submission]);
  const interns = await fetch(`${platform.submission}/interns`);
  assert.equal(interns.status, 200);
  assert.match(platform.output(), /starting the platform \([^)]*\) succeeded after \d+ attempts/);
}

test(
  'the platform waits for a nats-server that starts after it, and serves on JetStream',
  { skip },
  async (t) =>
    onFreeNatsPort(async (natsPort) => {
      const platform = await startIntegration(t, natsPort);
      await platform.waitForOutput(
        'a warn line saying that the start waits for the broker',
        /"level":40,[^\n]*"msg":"start-up waits for the broker \(NATS\)/,
      );
      await startNatsServer(t, natsPort, WITH_JETSTREAM);
      await assertServes(platform);
    }),
);

test(
  'the platform waits while JetStream answers "503 no responders", and serves once it answers',
  { skip },
  async (t) => {
    let natsPort = 0;
    let notReady!: Awaited<ReturnType<typeof startNatsServer>>;
    await onFreeNatsPort(async (port) => {
      notReady = await startNatsServer(t, port, JETSTREAM_NOT_ANSWERING);
      natsPort = port;
    });
    const platform = await startIntegration(t, natsPort);
    await platform.waitForOutput(
      'a warn line saying that the start waits for JetStream',
      /"level":40,[^\n]*"msg":"start-up waits for the broker \(NATS JetStream, not ready yet\)/,
    );
    platform.assertRunning();
    // The server restarted with its JetStream answering, on the same port.
    await notReady.stop();
    await startNatsServer(t, natsPort, WITH_JETSTREAM);
    await assertServes(platform);
  },
);

test(
  'the platform exits at once, naming it, on a nats-server without JetStream',
  { skip },
  async (t) => {
    let natsPort = 0;
    await onFreeNatsPort(async (port) => {
      await startNatsServer(t, port, '');
      natsPort = port;
    });
    const platform = await startIntegration(t, natsPort);
    assert.equal(await platform.closed, 1, platform.output().slice(-3000));
    assert.match(platform.output(), /integration platform failed to start/);
    assert.match(platform.output(), /has no JetStream: start nats-server with -js/);
    assert.doesNotMatch(platform.output(), /start-up waits for/);
  },
);
