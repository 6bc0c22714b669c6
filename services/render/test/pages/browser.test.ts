/**
 * In headless Chromium (Debian's, driven by playwright-core): upload a replay from the
 * home page, watch progress on the player page, play the rendered video, follow what a
 * finished job offers and the home page's link back to it; with no worker running, the
 * player shows the job's place in the queue.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  chromiumSkipReason,
  keepScreenshot,
  launchChromium,
  madeOsuFixture,
  madeOsuFixturesDir,
} from '@platform/testing';
import { buildTestApp, submit } from '../helpers/app.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';
import {
  startTestJobProcessing,
  TEST_RENDER_TIMEOUT_MS,
  type TestJobProcessing,
} from '../helpers/job-processing.js';

const skip = chromiumSkipReason();

for (const { kind, skip: engineSkip } of await engineSets()) {
  describe(`pages in a browser (${kind})`, { skip: skip ?? engineSkip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let processing: TestJobProcessing;
    let base: string;
    before(async () => {
      engines = await openTestEngines(kind);
      app = await buildTestApp(engines);
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      processing = await startTestJobProcessing(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        // Small frames: the page is under test, not the renderer (640x360 renders outlasted
        // the wait on a loaded machine).
        worker: { width: 320, height: 180, fps: 24 },
      });
    });
    after(async () => {
      await processing?.stop();
      await app?.close();
      await engines?.close();
    });

    test('upload from the home page, watch progress, play the video', async () => {
      const browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
      try {
        const page = await browser.newPage();
        await page.goto(`${base}/`);
        assert.equal(await page.title(), 'osu! replay renderer');
        await page.setInputFiles('input[name="replay"]', madeOsuFixture('perfect.osr'));
        await page.selectOption('select[name="resolution"]', '1080p');
        await page.uncheck('input[name="motion_blur"]');
        await page.click('#render-submit');
        await page.waitForURL(/\/view\/[0-9a-f-]{36}$/, { timeout: 15_000 });
        const jobId = page.url().split('/').pop()!;

        // Progress is shown while the job runs, then the video appears.
        const statuses = new Set<string>();
        // A taken job is completed or failed within the worker's render timeout.
        const deadline = Date.now() + TEST_RENDER_TIMEOUT_MS + 15_000;
        while (Date.now() < deadline) {
          const status = (await page.textContent('#status')) ?? '';
          statuses.add(status);
          if ((await page.$('video')) || status === 'failed') break;
          await page.waitForTimeout(100);
        }
        assert.equal(
          await page.textContent('#status'),
          'completed',
          `statuses seen: ${[...statuses]}`,
        );
        assert.ok(
          ['queued', 'downloading', 'rendering'].some((s) => statuses.has(s)),
          `live progress seen: ${[...statuses]}`,
        );
        assert.equal(await page.getAttribute('#progress', 'value'), '100');
        const job = (await app.inject(`/v1/jobs/${jobId}`)).json();
        assert.equal(job.options.motion_blur, false, 'the unchecked box was sent as false');

        const played = await page.evaluate(async () => {
          // Runs in the page; the test's TypeScript has no DOM types, so the slice used is declared here.
          interface VideoLike {
            muted: boolean;
            readyState: number;
            currentTime: number;
            duration: number;
            error: { code: number; message: string } | null;
            play(): Promise<void>;
            addEventListener(type: string, listener: () => void, options?: { once: boolean }): void;
          }
          const doc = (
            globalThis as unknown as { document: { querySelector(selector: string): VideoLike } }
          ).document;
          const video = doc.querySelector('video');
          video.muted = true;
          await new Promise<void>((resolve, reject) => {
            if (video.readyState >= 2) return resolve();
            video.addEventListener('loadeddata', () => resolve(), { once: true });
            video.addEventListener(
              'error',
              () => reject(new Error(`video error ${video.error?.code} ${video.error?.message}`)),
              { once: true },
            );
          });
          const readyState = video.readyState;
          await video.play();
          const start = video.currentTime;
          await new Promise((r) => setTimeout(r, 800));
          return { readyState, start, after: video.currentTime, duration: video.duration };
        });
        assert.ok(played.readyState >= 2, `readyState ${played.readyState}`);
        assert.ok(
          played.after > played.start,
          `currentTime advanced ${played.start} → ${played.after}`,
        );
        assert.ok(played.duration > 1, `duration ${played.duration}`);

        // A finished job offers its video, thumbnail and log, each of which answers.
        const offers = await page.locator('#links a').evaluateAll((links) =>
          links.map((a) => ({
            text: (a as unknown as { textContent: string }).textContent,
            href: (a as unknown as { href: string }).href,
          })),
        );
        assert.deepEqual(
          offers.map((o) => o.text),
          ['Download video', 'Thumbnail', 'Render log'],
        );
        for (const { text, href } of offers) {
          const response = await fetch(href);
          assert.equal(response.status, 200, `${text}: ${href}`);
          await response.arrayBuffer();
        }
        assert.ok(await page.locator('#thumbnail').isVisible(), 'the thumbnail is shown');
        await keepScreenshot(page, 'render-player');

        // The home page's recent jobs lead back to the player.
        await page.goto(`${base}/`);
        await keepScreenshot(page, 'render-home');
        await page.click(`#recent-jobs a[href="/view/${jobId}"]`);
        await page.waitForURL(`${base}/view/${jobId}`);
        assert.equal(await page.textContent('#status'), 'completed');
      } finally {
        await browser.close();
      }
    });
  });

  describe(`the player while a job waits (${kind})`, { skip: skip ?? engineSkip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let base: string;
    before(async () => {
      engines = await openTestEngines(kind);
      app = await buildTestApp(engines);
      base = await app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('shows the place in the queue (no worker runs, so the jobs wait)', async () => {
      const replay = await readFile(madeOsuFixture('perfect.osr'));
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const response = await submit(app, { address: freshAddress(), replay });
        assert.equal(response.statusCode, 202, response.body);
        ids.push(response.json().job_id);
      }
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${base}/view/${ids[1]}`);
        await page.locator('#eta', { hasText: '#2 in the queue' }).waitFor({ timeout: 15_000 });
        assert.equal(await page.textContent('#status'), 'queued');
        await page.goto(`${base}/view/${ids[0]}`);
        await page.locator('#eta', { hasText: '#1 in the queue' }).waitFor({ timeout: 15_000 });
      } finally {
        await browser.close();
      }
    });

    test('without EventSource the player polls the job through the typed client, to its 410', async () => {
      const replay = await readFile(madeOsuFixture('perfect.osr'));
      const submitted = await submit(app, { address: freshAddress(), replay });
      assert.equal(submitted.statusCode, 202, submitted.body);
      const id: string = submitted.json().job_id;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        // A browser without EventSource: the page falls back to polling `GET /v1/jobs/{job_id}`.
        await page.addInitScript(() => {
          delete (globalThis as { EventSource?: unknown }).EventSource;
        });
        const clientModule = page.waitForResponse(
          (r) => r.url() === `${base}/assets/openapi-fetch.js`,
        );
        const polled = page.waitForResponse((r) => r.url() === `${base}/v1/jobs/${id}`);
        await page.goto(`${base}/view/${id}`);
        const module = await clientModule;
        assert.equal(module.status(), 200);
        assert.match(module.headers()['content-type'] ?? '', /^text\/javascript/);
        assert.equal((await polled).status(), 200);

        // Deleted meanwhile: the next poll answers 410, and the page shows its detail.
        const deleted = await app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` });
        assert.equal(deleted.statusCode, 204, deleted.body);
        const gone = page.waitForResponse(
          (r) => r.url() === `${base}/v1/jobs/${id}` && r.status() === 410,
        );
        const detail = (await app.inject(`/v1/jobs/${id}`)).json().detail as string;
        await gone;
        await page.locator('#error', { hasText: detail }).waitFor({ timeout: 15_000 });
      } finally {
        await browser.close();
      }
    });
  });
}
