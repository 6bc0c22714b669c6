// The dashboard in headless Chromium over a generated data set (1,500 orders, enough
// customers to page): tiles, charts and table show the API's numbers, the table pages,
// sorts and filters by keyboard and mouse, and a screenshot is kept as the test's artifact.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listen } from '@platform/core';
import { chromiumSkipReason, keepScreenshot, launchChromium } from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { buildAnalyticsApp } from '../../src/app.js';
import { generateDataset } from '../../src/generate/generate-dataset.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { warehouseDir, warehousePath } from '../../src/warehouse/paths.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { silentLogger } from '../helpers/warehouse-fixture.js';

const skip = chromiumSkipReason();

interface Api<Row> {
  data: Row[];
  meta: { total: number; data_as_of: string; build_id: string };
}

describe('dashboard page in headless Chromium', { skip }, () => {
  let dir: string;
  let warehouse: Warehouse;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  const api = async <Row>(path: string) =>
    (await (await fetch(`${base}${path}`)).json()) as Api<Row>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analytics-dashboard-'));
    await generateDataset({ outDir: join(dir, 'source'), orders: 1500, seed: 7 });
    await mkdir(warehouseDir(dir), { recursive: true });
    await runPipeline({ sourceDir: join(dir, 'source'), warehouseFile: warehousePath(dir) });
    warehouse = createWarehouse({ file: warehousePath(dir) });
    app = await buildAnalyticsApp({ warehouse, logger: silentLogger() });
    base = await listen(app, { port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await warehouse?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function open(width: number): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${base}/`);
    await page.locator('body[data-ready="true"]').waitFor({ timeout: 20_000 });
    return { page, errors };
  }

  it('shows the KPI tiles, the charts with data and the build time', async () => {
    const { page, errors } = await open(1280);
    const kpis = await api<{ total_lifetime_orders: number }>('/api/v1/sales/kpis');
    const tiles = await page.locator('[data-testid="kpi"]').allInnerTexts();
    assert.equal(tiles.length, 4);
    assert.ok(
      tiles.some((t) => t.includes(kpis.data[0]!.total_lifetime_orders.toLocaleString('en'))),
      tiles.join(' | '),
    );
    assert.match(
      await page.locator('[data-testid="as-of"]').innerText(),
      new RegExp(`Data as of .+\\(build ${kpis.meta.build_id}\\)`),
    );

    const monthly = await api('/api/v1/sales/monthly-trend?limit=1000');
    const yoy = await api('/api/v1/sales/yoy');
    const freight = await api('/api/v1/analytics/categories/freight?limit=15');
    for (const [id, rows] of [
      ['trend-chart', monthly.data.length],
      ['yoy-chart', yoy.data.length],
      ['freight-chart', freight.data.length],
    ] as const) {
      const chart = page.locator(`[data-testid="${id}"]`);
      assert.ok(rows > 0, `${id}: the data set has rows`);
      assert.equal(await chart.getAttribute('data-points'), String(rows), id);
      // drawn: the canvas has a size and pixels that are not blank
      // (runs in the page; typed by hand, the tests compile without the DOM library)
      type Canvas = {
        width: number;
        height: number;
        getContext(kind: '2d'): { getImageData(...box: number[]): { data: Uint8ClampedArray } };
      };
      const inked = await chart.locator('canvas').evaluate((element) => {
        const canvas = element as unknown as Canvas;
        const { width, height } = canvas;
        const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
        let ink = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) ink++;
        return width > 100 && height > 100 && ink > 500;
      });
      assert.ok(inked, `${id} is drawn`);
      // its numbers as a table, for keyboard and screen-reader users
      assert.equal(await chart.locator('details tbody tr').count(), rows, id);
    }
    await keepScreenshot(page, 'analytics-dashboard');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('pages, sorts and filters the LTV table, by keyboard too', async () => {
    const { page, errors } = await open(390); // a phone's width
    const rows = page.locator('[data-testid="ltv-table"] tbody tr');
    const firstCustomer = () => rows.first().locator('td').nth(1).innerText();
    const all = await api<{ customer_sk: string }>('/api/v1/analytics/customer-ltv?limit=26');
    assert.ok(
      all.meta.total > 25,
      `the data set has more than one page of customers (${all.meta.total})`,
    );
    assert.equal(await rows.count(), 25);
    assert.equal(await firstCustomer(), all.data[0]!.customer_sk);
    assert.equal(await page.locator('#prev').isDisabled(), true);

    await page.locator('#next').focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="ltv-range"]', { hasText: /^Customers 26–/ }).waitFor();
    assert.equal(await firstCustomer(), all.data[25]!.customer_sk);

    await page.click('[data-testid="sort-ltv"]');
    await page.locator('#sort-ltv-th[aria-sort="ascending"]').waitFor();
    const lowest = await api<{ customer_sk: string }>(
      '/api/v1/analytics/customer-ltv?sort=ltv_asc&limit=1',
    );
    assert.equal(await firstCustomer(), lowest.data[0]!.customer_sk);
    assert.match(await page.locator('[data-testid="ltv-range"]').innerText(), /^Customers 1–25 of/);

    await page.selectOption('[data-testid="decile"]', '1');
    const top = await api<{ customer_sk: string }>(
      '/api/v1/analytics/customer-ltv?decile=1&sort=ltv_asc&limit=1000',
    );
    await page
      .locator('[data-testid="ltv-range"]', {
        hasText: new RegExp(`of ${top.meta.total.toLocaleString('en')}$`),
      })
      .waitFor();
    assert.equal(await firstCustomer(), top.data[0]!.customer_sk);
    const deciles = await rows.locator('td:nth-child(5)').allInnerTexts();
    assert.ok(deciles.length > 0 && deciles.every((d) => d === '1'), deciles.join(','));

    // nothing wider than the phone's screen but the table's own scroller
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - window.innerWidth',
    )) as number;
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
