/**
 * In headless Chromium (Debian's, driven by playwright-core): upload a replay from the
 * home page, watch progress on the player page, and play the rendered video.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  chromiumSkipReason,
  launchChromium,
  madeOsuFixture,
  madeOsuFixturesDir,
} from '@platform/testing';
import { buildTestApp } from '../helpers/app.js';
import { engineSets, openTestEngines, type TestEngines } from '../helpers/harness.js';
import { startTestPipeline, type TestPipeline } from '../helpers/pipeline.js';

const skip = chromiumSkipReason();

for (const { kind, skip: engineSkip } of await engineSets()) {
  describe(`pages in a browser (${kind})`, { skip: skip ?? engineSkip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let pipeline: TestPipeline;
    let base: string;
    before(async () => {
      engines = await openTestEngines(kind);
      app = await buildTestApp(engines);
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      pipeline = await startTestPipeline(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        worker: { width: 640, height: 360, fps: 30 },
      });
    });
    after(async () => {
      await pipeline?.stop();
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
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
          statuses.add((await page.textContent('#status')) ?? '');
          if (await page.$('video')) break;
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
      } finally {
        await browser.close();
      }
    });
  });
}
