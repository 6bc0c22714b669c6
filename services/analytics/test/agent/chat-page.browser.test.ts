import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen } from '@platform/core';
import { chromiumSkipReason, keepScreenshot, launchChromium } from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { EXAMPLE_QUESTIONS } from '../../src/agent/chat-page.js';
import { buildAnalyticsApp } from '../../src/app.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

const skip = chromiumSkipReason();

describe('chat page in headless Chromium', { skip }, () => {
  let fixture: WarehouseFixture;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;

  before(async () => {
    fixture = await createWarehouseFixture();
    app = await buildAnalyticsApp({ warehouse: fixture.warehouse, logger: silentLogger() });
    base = await listen(app, { port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await fixture?.cleanup();
  });

  it('asks a question and shows the answer with the tools used, keeping the conversation', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${base}/chat`);
    await page.fill('#question', 'What is the total revenue?');
    await page.click('#send');
    const answer = page.locator('.msg.assistant').first();
    await answer.waitFor({ timeout: 15_000 });
    const text = await answer.innerText();
    const [kpis] = (
      (await (await fetch(`${base}/api/v1/sales/kpis`)).json()) as {
        data: Array<{ total_lifetime_orders: number }>;
      }
    ).data;
    assert.match(text, /Offline planner/);
    assert.ok(text.includes(`${kpis!.total_lifetime_orders} orders`), text);
    assert.match(await answer.locator('summary').innerText(), /Tools used: sales_summary/);
    assert.equal(await page.locator('.msg.user').first().innerText(), 'What is the total revenue?');

    await page.fill('#question', 'top 2 customers');
    await page.press('#question', 'Enter');
    await page.locator('.msg.assistant').nth(1).waitFor({ timeout: 15_000 });
    assert.match(await page.locator('.msg.assistant').nth(1).innerText(), /Top 2 customers/);
    assert.equal(await page.locator('.msg').count(), 4);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('opens with example questions; one click asks it and the answer honours its count', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${base}/chat`);
    const examples = page.locator('[data-testid="examples"] button');
    assert.deepEqual(await examples.allInnerTexts(), EXAMPLE_QUESTIONS);
    // by keyboard: focus the example and press Enter
    await examples.filter({ hasText: 'Top 3 customers' }).focus();
    await page.keyboard.press('Enter');
    const answer = page.locator('.msg.assistant').first();
    await answer.waitFor({ timeout: 15_000 });
    assert.equal(
      await page.locator('.msg.user').first().innerText(),
      'Top 3 customers by lifetime value',
    );
    assert.match(await answer.innerText(), /Top 3 customers by lifetime value/);
    assert.equal(await page.locator('[data-testid="examples"]').isVisible(), false);
    await keepScreenshot(page, 'analytics-chat');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('draws the rows of an answer with the charts of the dashboard, and customers as a table', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${base}/chat`);
    await page.fill('#question', 'Show the monthly trend for 2019');
    await page.click('#send');
    const chart = page.locator('.msg.assistant .result[data-tool="monthly_trends"]');
    await chart.waitFor({ timeout: 15_000 });
    const months = (await (await fetch(`${base}/api/v1/sales/monthly-trend?year=2019`)).json()) as {
      data: unknown[];
    };
    assert.ok(months.data.length > 1);
    assert.equal(await chart.getAttribute('data-points'), String(months.data.length));
    assert.equal(await chart.locator('canvas').count(), 1);
    assert.equal(await chart.locator('details tbody tr').count(), months.data.length);

    await page.fill('#question', 'top 2 customers');
    await page.click('#send');
    const table = page.locator('.msg.assistant .result[data-tool="top_customers"] table');
    await table.waitFor({ timeout: 15_000 });
    assert.equal(await table.locator('tbody tr').count(), 2);
    assert.match(await table.locator('thead').innerText(), /lifetime value/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
