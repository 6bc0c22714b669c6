/**
 * `src/main.ts` as a process on the embedded defaults: it starts, renders a submitted
 * replay end to end (dispatcher, worker and reaper in-process), serves the artifacts,
 * and exits 0 on SIGTERM. A client's path: submit and poll through @platform/client.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { renderClient, toFormData } from '@platform/client';
import { freePort, madeOsuFixturesDir } from '@platform/testing';
import { readFixture } from '../helpers/fixtures.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

test('main.ts renders a replay end to end and shuts down cleanly', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'render-main-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      BEATMAPS_DIR: madeOsuFixturesDir(),
      RENDER_WIDTH: '320',
      RENDER_HEIGHT: '180',
      DATABASE_URL: '',
      REDIS_URL: '',
      S3_ENDPOINT: '',
      S3_BUCKET: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The service logs (pino) on stdout at warn and above; a failed shutdown says why there.
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  // 'close', not 'exit': the last words of a failing process arrive after its exit.
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const ok = await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      assert.ok(
        Date.now() < deadline && child.exitCode === null,
        `service did not start: ${stderr}`,
      );
      await new Promise((r) => setTimeout(r, 200));
    }
    const render = renderClient({ baseUrl: base });
    const submitted = await render.POST('/v1/render', {
      body: { replay: new File([readFixture('perfect.osr')], 'tool.osr'), skin: 'Default' },
      bodySerializer: toFormData,
    });
    assert.equal(submitted.response.status, 202, JSON.stringify(submitted.error));
    assert.equal(submitted.data!.status, 'queued');
    const id = submitted.data!.job_id;
    let job;
    for (;;) {
      const read = await render.GET('/v1/jobs/{job_id}', { params: { path: { job_id: id } } });
      assert.equal(read.response.status, 200, JSON.stringify(read.error));
      job = read.data!;
      if (job.status === 'completed' || job.status === 'failed') break;
      assert.ok(Date.now() < deadline, `job stuck in ${job.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(job.status, 'completed', job.error ?? '');
    const videoLink = job.links?.video;
    assert.ok(videoLink, 'a completed job links its video');
    // The link is followed as a browser would: a redirect to the signed storage URL.
    const video = await fetch(`${base}${videoLink}`);
    assert.equal(video.status, 200, 'redirect followed to the signed URL');
    assert.equal(video.headers.get('content-type'), 'video/mp4');
    const bytes = Buffer.from(await video.arrayBuffer());
    assert.equal(bytes.subarray(4, 8).toString('latin1'), 'ftyp');
    // The duration is observed just after the job's final state is written.
    const counted = /render_job_duration_seconds_count\{[^}]*outcome="completed"[^}]*\} 1\n/;
    let metrics = '';
    for (let i = 0; i < 50 && !counted.test(metrics); i += 1) {
      metrics = await (await fetch(`${base}/metrics`)).text();
      if (!counted.test(metrics)) await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(metrics, counted);
  } finally {
    child.kill('SIGTERM');
    const code = await exited;
    await rm(dataDir, { recursive: true, force: true });
    assert.equal(code, 0, `exit code ${code}; stderr: ${stderr}; log: ${stdout.slice(-4000)}`);
  }
});
