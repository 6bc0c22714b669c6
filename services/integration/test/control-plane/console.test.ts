/**
 * The operator console in headless Chromium (Debian's chromium driven by playwright-core):
 * register a contract, attach a CSV adapter through the form generated from the type's
 * schema, submit a record and see it in the file and in the records view; a poison
 * message shows up in the dead letters with its original text; a record the CSV target
 * could not take (its folder blocked) is dead-lettered, and after the fix a replay from
 * the console writes it.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import { chromiumSkipReason, keepScreenshot, launchChromium } from '@platform/testing';
import type { Browser, Page } from 'playwright-core';
import { startPlatform, type RunningPlatform } from '../../src/platform.js';
import { silentLogger, waitFor } from '../helpers/broker-drivers.js';
import { uniqueContractId } from '../support/contracts.js';
import { platformEnv } from '../support/platform-env.js';

describe('operator console (headless Chromium)', { skip: chromiumSkipReason() }, () => {
  let platform: RunningPlatform;
  let db: SqlDatabase;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  const contractId = uniqueContractId('badges');
  const contract = {
    contractId,
    title: 'Badges',
    naturalKey: { strategy: 'field', fields: ['badgeId'] },
    recordTypes: ['badge.issued'],
    lifecycle: { 'badge.issued': 'create' },
    fields: [
      { name: 'badgeId', type: 'string', required: true },
      { name: 'holder', type: 'string', required: true },
      {
        name: 'level',
        type: 'enum',
        required: true,
        values: ['BRONZE', 'SILVER', 'GOLD'],
        default: 'BRONZE',
      },
    ],
  };
  const csvDir = () => join(dataDir, 'integration', 'csv');
  const csvHolds = async (file: string, text: string) =>
    (await readFile(join(csvDir(), file), 'utf8').catch(() => '')).includes(text);
  const csvAttached = async (path: string) => {
    const status = (await (await fetch(`${platform.urls.csv}/admin/status`)).json()) as {
      attachments: Array<{ contractId: string; attachmentId: string }>;
    };
    const attachments = (await (
      await fetch(`${platform.urls['control-plane']}/contracts/${contractId}/adapters`)
    ).json()) as { attachments: Array<{ attachmentId: string; config: { path: string } }> };
    const wanted = attachments.attachments.find((a) => a.config.path === path);
    return Boolean(
      wanted && status.attachments.some((a) => a.attachmentId === wanted.attachmentId),
    );
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'integration-console-'));
    db = await createSqlDatabase({ dataDir: 'memory://' });
    platform = await startPlatform({
      env: platformEnv({ DATA_DIR: dataDir, CSV_RETRY_BACKOFF_MS: '20' }),
      logger: silentLogger(),
      db,
    });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${platform.urls['control-plane']}/console`);
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const byTestId = (id: string) => page.locator(`[data-testid="${id}"]`);
  /** Waits until the element's text matches (the function runs in the page; DOM types are not loaded here). */
  const waitText = (id: string, pattern: RegExp) =>
    page.waitForFunction(
      ({ selector, source }) => {
        const doc = (
          globalThis as unknown as {
            document: { querySelector(s: string): { textContent: string | null } | null };
          }
        ).document;
        return new RegExp(source).test(doc.querySelector(selector)?.textContent ?? '');
      },
      { selector: `[data-testid="${id}"]`, source: pattern.source },
      { timeout: 20_000 },
    );

  it('registers a contract and attaches a CSV adapter through the generated config form', async () => {
    await byTestId('register-input').fill(JSON.stringify(contract));
    await byTestId('register-submit').click();
    await page.waitForSelector(`[data-contract="${contractId}"]`);
    assert.equal(await byTestId('register-result').textContent(), `registered ${contractId}`);
    await page.click(`[data-contract="${contractId}"]`);
    // The attach form is rebuilt once the contract's details are loaded: fill it after.
    await page.waitForSelector('#contract-detail:not([aria-busy])');
    await page.waitForSelector('[data-testid="attach-type"] option[value="csv"]', {
      state: 'attached',
    });
    await byTestId('attach-type').selectOption('csv');
    // The form is generated from the csv type's schema, with its field descriptions.
    assert.match((await byTestId('attach-form').textContent()) ?? '', /File path ending in \.csv/);
    await page.fill('[data-testid="attach-form"] input[name="path"]', '../escape.csv');
    await byTestId('attach-submit').click();
    await waitText('attach-result', /^400/);
    // The refusal inline: listed, and the input it is about marked.
    assert.match((await byTestId('attach-errors').textContent()) ?? '', /config\.path/);
    assert.equal(
      await page.getAttribute('[data-testid="attach-form"] input[name="path"]', 'aria-invalid'),
      'true',
    );
    await page.getByLabel(/^path/).fill('badges.csv');
    assert.deepEqual(JSON.parse((await byTestId('attach-json').textContent()) ?? ''), {
      adapterType: 'csv',
      config: { path: 'badges.csv' },
    });
    await byTestId('attach-submit').click();
    await waitText('attach-result', /^attached$/);
    await page.waitForSelector('[data-testid="attachment-list"] tr');
    assert.equal(await page.locator('[data-testid="attachment-list"] tr').count(), 1);
    await keepScreenshot(page, 'integration-console');
    await waitFor(
      'the csv adapter to pick up the attachment',
      () => csvAttached('badges.csv'),
      20_000,
    );
  });

  it('registers a contract through the form: JSON shown as typed, errors inline, then registered', async () => {
    const id = `levels_${Date.now().toString(36)}`;
    await byTestId('cf-submit').click(); // empty: nothing sent, what is missing is said
    const missing = await page.locator('[data-testid="cf-errors"] li').allTextContents();
    assert.ok(
      missing.some((m) => /Contract id/.test(m)),
      missing.join(' | '),
    );
    assert.ok(
      missing.some((m) => /create record type is required/.test(m)),
      missing.join(' | '),
    );
    assert.equal(await byTestId('cf-id').getAttribute('aria-invalid'), 'true');

    await byTestId('cf-id').fill(id);
    await byTestId('cf-title').fill('Levels');
    const rows = page.locator('[data-testid="cf-field"]');
    await rows.nth(0).locator('[name="name"]').fill('levelId');
    await rows.nth(0).locator('[name="key"]').check();
    await byTestId('cf-add-field').click();
    await rows.nth(1).locator('[name="name"]').fill('tier');
    await rows.nth(1).locator('[name="type"]').selectOption('enum');
    // an enum without values, and a key field that is optional: both said inline
    await rows.nth(1).locator('[name="key"]').check();
    const errors = async () =>
      (await page.locator('[data-testid="cf-errors"] li').allTextContents()).join(' | ');
    assert.match(await errors(), /an enum needs its values/);
    assert.match(await errors(), /"tier" is in the natural key, so it must be required/);
    await rows.nth(1).locator('[name="key"]').uncheck();
    await rows.nth(1).locator('[name="values"]').fill('LOW, HIGH');
    await byTestId('cf-create').fill('level.set');
    await byTestId('cf-tombstone').fill('level.removed');
    assert.equal(await errors(), '');
    const shown = JSON.parse((await byTestId('cf-json').textContent()) ?? '');
    assert.deepEqual(shown, {
      contractId: id,
      title: 'Levels',
      naturalKey: { strategy: 'field', fields: ['levelId'] },
      recordTypes: ['level.set', 'level.removed'],
      lifecycle: { 'level.set': 'create', 'level.removed': 'tombstone' },
      fields: [
        { name: 'levelId', type: 'string', required: true },
        { name: 'tier', type: 'enum', required: false, values: ['LOW', 'HIGH'] },
      ],
    });
    await byTestId('cf-submit').click();
    await waitText('cf-result', new RegExp(`^registered ${id}$`));
    const stored = (await (
      await fetch(`${platform.urls['control-plane']}/contracts/${id}`)
    ).json()) as {
      contract: Record<string, unknown>;
    };
    assert.deepEqual(stored.contract.fields, shown.fields);
    assert.deepEqual(stored.contract.naturalKey, shown.naturalKey);
    await page.waitForSelector(`[data-contract="${id}"]`);

    // the control plane's own checks come back the same way: the id is taken now
    await byTestId('cf-submit').click();
    await waitText('cf-errors', /\S/);
    assert.doesNotMatch((await byTestId('cf-result').textContent()) ?? '', /^registered/);
  });

  it('submits a record from the console and sees it in the file and in the records view', async () => {
    await page.click('nav button[data-tab="records"]');
    await byTestId('records-contract').selectOption(contractId);
    await byTestId('submit-input').fill(
      JSON.stringify({ badgeId: 'B-1', holder: 'Ada Lovelace, Countess' }),
    );
    await byTestId('submit-record').click();
    await waitText('submit-result', /^accepted/);
    await page.waitForSelector('[data-record="B-1"]');
    assert.match((await page.locator('[data-record="B-1"]').textContent()) ?? '', /BRONZE/);
    await waitFor(
      'the record in badges.csv',
      () => csvHolds('badges.csv', '"Ada Lovelace, Countess"'),
      20_000,
    );
  });

  it('shows a poison message in the dead letters with its original text', async () => {
    await platform.broker.publish(`${contractId}.created`, 'B-poison', 'not json at all');
    await page.click('nav button[data-tab="dead-letters"]');
    await waitFor('the poison dead letter', async () => {
      await byTestId('dl-refresh').click();
      return (
        (await page
          .locator(`[data-testid="dl-contract"] option[value="${contractId}"]`)
          .count()) === 1
      );
    });
    await byTestId('dl-contract').selectOption(contractId);
    await waitFor(
      'the poison dead letter in the filtered list',
      async () => {
        await byTestId('dl-refresh').click();
        return (
          (await page
            .locator('[data-testid="dl-list"] tr', { hasText: 'SCHEMA_VIOLATION' })
            .count()) === 1
        );
      },
      20_000,
    );
    await page.locator('[data-testid="dl-list"] tr', { hasText: 'SCHEMA_VIOLATION' }).click();
    assert.equal(await byTestId('dl-original').textContent(), 'not json at all');
    await byTestId('dl-group').selectOption('errorType');
    await byTestId('dl-refresh').click();
    await page.waitForSelector('[data-testid="dl-list"] tr >> text=SCHEMA_VIOLATION');
    await byTestId('dl-group').selectOption('');
  });

  it('replays a dead-lettered record once its target is fixed', async () => {
    // A second file whose folder is blocked by a plain file: the write fails until it is removed.
    await mkdir(csvDir(), { recursive: true });
    await writeFile(join(csvDir(), 'blocked'), 'in the way');
    await page.click('nav button[data-tab="contracts"]');
    await page.click(`[data-contract="${contractId}"]`);
    // The attach form is rebuilt once the contract's details are loaded: fill it after.
    await page.waitForSelector('#contract-detail:not([aria-busy])');
    await byTestId('attach-type').selectOption('csv');
    await page.fill('[data-testid="attach-form"] input[name="path"]', 'blocked/badges.csv');
    await byTestId('attach-submit').click();
    await waitText('attach-result', /^attached$/);
    await waitFor(
      'the csv adapter to pick up the second attachment',
      () => csvAttached('blocked/badges.csv'),
      20_000,
    );

    await page.click('nav button[data-tab="records"]');
    await byTestId('submit-input').fill(
      JSON.stringify({ badgeId: 'B-2', holder: 'Grace Hopper', level: 'GOLD' }),
    );
    await byTestId('submit-record').click();
    await waitFor('B-2 in the working file', () => csvHolds('badges.csv', 'B-2'), 20_000);

    await page.click('nav button[data-tab="dead-letters"]');
    const row = page
      .locator('[data-testid="dl-list"] tr', { hasText: 'adapter.csv' })
      .filter({ hasNotText: 'SCHEMA_VIOLATION' });
    await waitFor(
      'the failed write in the dead letters',
      async () => {
        await byTestId('dl-refresh').click();
        return (await row.count()) === 1;
      },
      30_000,
    );
    await row.click();
    assert.match((await byTestId('dl-original').textContent()) ?? '', /"badgeId": "B-2"/);

    await rm(join(csvDir(), 'blocked'));
    await byTestId('dl-replay').click();
    await waitText('dl-replay-result', /^replayed to/);
    await waitFor('B-2 in the fixed file', () => csvHolds('blocked/badges.csv', 'B-2'), 20_000);
    const lines = (await readFile(join(csvDir(), 'badges.csv'), 'utf8'))
      .split('\r\n')
      .filter((l) => l.includes('B-2'));
    assert.equal(
      lines.length,
      1,
      'the working file holds B-2 once (the replay is a duplicate there)',
    );
    await byTestId('dl-replayed').selectOption(''); // replayed or not
    await waitFor('the entry marked replayed', async () => {
      await byTestId('dl-refresh').click();
      return (await page.locator('[data-testid="dl-list"] tr', { hasText: 'yes (' }).count()) === 1;
    });
  });

  it('shows each attachment live (state, lag, written, rate, last error) and replays a filtered set of dead letters in bulk', async () => {
    const cp = platform.urls['control-plane']!;
    await writeFile(join(csvDir(), 'jammed'), 'in the way');
    const attach = await fetch(`${cp}/contracts/${contractId}/adapters`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ adapterType: 'csv', config: { path: 'jammed/badges.csv' } }),
    });
    const attached = await attach.text();
    assert.equal(attach.status, 201, attached);
    const jammed = (JSON.parse(attached) as { attachment: { attachmentId: string } }).attachment
      .attachmentId;
    const working = (
      (await (await fetch(`${cp}/contracts/${contractId}/adapters`)).json()) as {
        attachments: Array<{ attachmentId: string; config: { path: string } }>;
      }
    ).attachments.find((a) => a.config.path === 'badges.csv')!.attachmentId;
    await waitFor(
      'the csv adapter to pick up the jammed attachment',
      () => csvAttached('jammed/badges.csv'),
      20_000,
    );

    // The page is opened once; what follows arrives by its own refresh (no clicks).
    await page.click('nav button[data-tab="adapters"]');
    await waitText(`live-state-${jammed}`, /^running$/);
    const writtenBefore = Number(await byTestId(`live-written-${working}`).textContent());
    for (const badgeId of ['B-3', 'B-4']) {
      const submitted = await fetch(`${cp}/console/api/contracts/${contractId}/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ badgeId, holder: `Holder of ${badgeId}` }),
      });
      assert.equal(submitted.status, 202, await submitted.text());
    }
    await waitText(`live-written-${working}`, new RegExp(`^${writtenBefore + 2}$`));
    await waitText(`live-error-${jammed}`, /\S/);
    assert.match(
      (await byTestId(`live-error-${jammed}`).getAttribute('title')) ?? '',
      /jammed|ENOTDIR|EEXIST|not a directory|file already exists/i,
    );
    assert.equal(await byTestId(`live-error-${working}`).textContent(), '');
    assert.match((await byTestId(`live-rate-${working}`).textContent()) ?? '', /^\d+(\.\d)?$/);
    assert.ok(Number(await byTestId(`live-rate-${working}`).textContent()) > 0);
    await waitText(`live-lag-${working}`, /^0$/);
    await keepScreenshot(page, 'integration-console-live');

    // The two records the jammed file could not take, and nothing else of this kind.
    type Group = { errorType: string; count: number };
    const failureGroup = async () =>
      (
        (await (
          await fetch(
            `${cp}/dead-letters?contractId=${contractId}&failedAdapter=adapter.csv&replayed=false&groupBy=errorType`,
          )
        ).json()) as { groups: Group[] }
      ).groups.find((g) => g.errorType !== 'SCHEMA_VIOLATION');
    await waitFor(
      'both jammed writes dead-lettered',
      async () => (await failureGroup())?.count === 2,
      30_000,
    );
    const errorType = (await failureGroup())!.errorType;

    await page.click('nav button[data-tab="dead-letters"]');
    await byTestId('dl-replayed').selectOption('false');
    await byTestId('dl-contract').selectOption(contractId);
    await page.waitForSelector('[data-testid="dl-adapter"] option[value="adapter.csv"]', {
      state: 'attached',
    });
    await byTestId('dl-adapter').selectOption('adapter.csv');
    await byTestId('dl-error').selectOption(errorType);
    await waitText('dl-count', /^2 dead letters match$/);
    assert.equal(await page.locator('[data-testid="dl-list"] tr').count(), 2);
    assert.equal(await byTestId('dl-replay-all').textContent(), 'Replay 2 matching');

    await rm(join(csvDir(), 'jammed'));
    page.once('dialog', (dialog) => void dialog.accept());
    await byTestId('dl-replay-all').click();
    await waitText('dl-bulk-result', /^replayed 2$/);
    await waitFor(
      'B-3 and B-4 in the unjammed file',
      async () =>
        (await csvHolds('jammed/badges.csv', 'B-3')) &&
        (await csvHolds('jammed/badges.csv', 'B-4')),
      20_000,
    );
    await waitText('dl-count', /^0 dead letters match$/);
    assert.equal(await page.locator('[data-testid="dl-list"] tr').count(), 0);
    // The poison message of the same contract and adapter was outside the filter: still there.
    await byTestId('dl-error').selectOption('SCHEMA_VIOLATION');
    await waitText('dl-count', /^1 dead letter match$/);
    await keepScreenshot(page, 'integration-console-dead-letters');

    await page.click('nav button[data-tab="adapters"]');
    await waitText(`live-written-${jammed}`, /^2$/);
  });

  it('shows adapter types with liveness and state, and pauses and resumes one through the control plane', async () => {
    await page.click('nav button[data-tab="adapters"]');
    await waitText('state-csv', /^running$/);
    assert.match(
      (await page.locator('[data-adapter="csv"]').textContent()) ?? '',
      /live.*adapter\.csv/,
    );
    await byTestId('pause-csv').click();
    await waitText('state-csv', /^paused$/);
    await page.waitForSelector('[data-testid="attachment-status"] td.state-paused');
    const status = (await (await fetch(`${platform.urls.csv}/admin/status`)).json()) as {
      paused: boolean;
    };
    assert.equal(status.paused, true);
    await byTestId('resume-csv').click();
    await waitText('state-csv', /^running$/);
    const unknown = await fetch(
      `${platform.urls['control-plane']}/console/api/adapter-types/ftp/status`,
    );
    assert.equal(unknown.status, 404);
    const notAnAction = await fetch(
      `${platform.urls['control-plane']}/console/api/adapter-types/csv/restart`,
      { method: 'POST' },
    );
    assert.equal(notAnAction.status, 400);
  });
});
