/**
 * The webhook adapter against a real local HTTP server: envelope POSTed with bearer or
 * HMAC authentication, 2xx written once (redelivery included), 5xx and timeouts retried
 * then RETRY_EXHAUSTED, 4xx dead-lettered at once. The flat form and the other
 * rules every adapter follows: adapter-conformance.test.ts.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { buildWebhookAdapter } from '../../src/adapters/webhook/build-webhook-adapter.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import { startHarness, type Harness } from '../helpers/adapter-harness.js';
import { internCreated, INTERNS } from '../helpers/records.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'a-secret-of-sixteen-chars';

for (const name of ['sql-log-pglite', 'jetstream']) {
  const driver = BROKER_DRIVERS.find((d) => d.name === name)!;
  const missing = await driver.missing();
  describe(
    `webhook adapter: ${name}`,
    { skip: skipReason(`${missing} (webhook adapter tests)`, !missing) },
    () => {
      let harness: Harness;
      let adapter: Adapter;
      let receiver: WebhookReceiver;
      let stateDir: string;
      const to = (path: string) => receiver.deliveries.filter((d) => d.path === path);
      const byRecord = (path: string, recordId: string) =>
        to(path).filter((d) => JSON.parse(d.body).recordId === recordId);

      before(async () => {
        stateDir = await mkdtemp(join(tmpdir(), 'webhook-adapter-'));
        receiver = await startWebhookReceiver();
        receiver.respond = (path, count) => {
          if (path.startsWith('/flaky')) return count <= 2 ? 503 : 200;
          if (path.startsWith('/down')) return 503;
          if (path.startsWith('/bad-request')) return 422;
          if (path.startsWith('/forbidden')) return 403;
          if (path.startsWith('/slow')) return 'hang';
          return 200;
        };
        harness = await startHarness(driver);
        harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/bearer`,
          authType: 'bearer',
          token: 'tok-123',
        });
        harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/hmac`,
          authType: 'hmac',
          secret: SECRET,
          signatureHeader: 'X-Hub-Signature',
        });
        harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/flaky`,
          authType: 'bearer',
          token: 't',
        });
        // The receiver is a loopback server: allowed explicitly, as ALLOWED_OUTBOUND would.
        adapter = await buildWebhookAdapter({
          ...harness.adapterDeps(),
          stateDir,
          allowedOutbound: ['127.0.0.1'],
        });
        await adapter.start();
      });
      after(async () => {
        await adapter?.stop();
        await harness?.cleanup();
        await receiver?.close();
        await rm(stateDir, { recursive: true, force: true });
      });

      it('POSTs the envelope with a bearer token, and with a verifiable HMAC signature', async () => {
        const created = internCreated(uniqueName('w'));
        await harness.publish(created);
        await waitFor(
          'both deliveries',
          () =>
            byRecord('/bearer', created.recordId).length === 1 &&
            byRecord('/hmac', created.recordId).length === 1,
        );
        const bearer = byRecord('/bearer', created.recordId)[0]!;
        assert.equal(bearer.headers.authorization, 'Bearer tok-123');
        assert.equal(bearer.headers['content-type'], 'application/json');
        assert.equal(bearer.headers['idempotency-key'], created.recordId);
        assert.deepEqual(JSON.parse(bearer.body), created);
        const signed = byRecord('/hmac', created.recordId)[0]!;
        // As a receiver checks it: HMAC over "<timestamp>.<raw body>", the timestamp recent.
        const timestamp = String(signed.headers['x-webhook-timestamp']);
        assert.ok(
          Math.abs(Date.now() / 1000 - Number(timestamp)) < 300,
          `recent timestamp ${timestamp}`,
        );
        const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${signed.body}`).digest('hex')}`;
        assert.equal(signed.headers['x-hub-signature'], expected);
        const bodyOnly = `sha256=${createHmac('sha256', SECRET).update(signed.body).digest('hex')}`;
        assert.notEqual(
          signed.headers['x-hub-signature'],
          bodyOnly,
          'the signature covers the timestamp',
        );
        assert.equal(signed.headers.authorization, undefined);
      });

      it('retries 503 answers and delivers once they pass; a redelivery is not posted again', async () => {
        const created = internCreated(uniqueName('flaky'));
        await harness.publish(created);
        await waitFor('third attempt', () => byRecord('/flaky', created.recordId).length === 3);
        const redelivery = await harness.publish(created);
        const next = internCreated(uniqueName('next'));
        await harness.publish(next);
        await waitFor('next delivered', () => byRecord('/bearer', next.recordId).length === 1);
        // Once the adapter committed past the redelivery it has handled it for every attachment.
        await waitFor('the adapter past the redelivery', async () => {
          const status = (
            await adapter.app.inject({ method: 'GET', url: '/admin/status' })
          ).json() as {
            assignments: Array<{ topic: string; partition: number; committedOffset: number }>;
          };
          return status.assignments.some(
            (a) =>
              a.topic === redelivery.topic &&
              a.partition === redelivery.partition &&
              a.committedOffset > redelivery.offset,
          );
        });
        assert.equal(byRecord('/bearer', created.recordId).length, 1, 'redelivery posted once');
        assert.equal(harness.deadLetters.filter((d) => d.traceId === created.traceId).length, 0);
        const metrics = (await adapter.app.inject({ method: 'GET', url: '/metrics' })).body;
        assert.match(
          metrics,
          /integration_adapter_retries_total\{[^}]*contract_id="interns"[^}]*\} [1-9]/,
        );
      });

      it('dead-letters 4xx at once and exhausts retries on 503 and read timeouts', async () => {
        const down = harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/down`,
          authType: 'bearer',
          token: 't',
        });
        const bad = harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/bad-request`,
          authType: 'bearer',
          token: 't',
        });
        const forbidden = harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/forbidden`,
          authType: 'bearer',
          token: 't',
        });
        const slow = harness.controlPlane.attach(INTERNS, 'webhook', {
          url: `${receiver.url}/slow`,
          authType: 'bearer',
          token: 't',
          readTimeoutMs: 150,
        });
        await adapter.runtime.refresh();
        await new Promise((resolve) => setTimeout(resolve, 20));
        const created = internCreated(uniqueName('fail'));
        await harness.publish(created);
        await waitFor(
          'four dead letters',
          () => harness.deadLetters.filter((d) => d.traceId === created.traceId).length === 4,
          15_000,
        );
        const letters = harness.deadLetters.filter((d) => d.traceId === created.traceId);
        const byMessage = (text: string) => letters.find((d) => d.errorMessage.includes(text))!;
        assert.equal(byMessage('answered 503').errorType, 'RETRY_EXHAUSTED');
        assert.equal(byMessage('answered 503').attemptCount, 3);
        assert.equal(byRecord('/down', created.recordId).length, 3);
        assert.equal(byMessage('answered 422').errorType, 'UNMAPPABLE_DATA');
        assert.equal(byMessage('answered 422').attemptCount, 1);
        assert.equal(byMessage('answered 403').errorType, 'UNCLASSIFIED_FAILURE');
        assert.equal(byMessage('read timeout').errorType, 'RETRY_EXHAUSTED');
        assert.ok(
          letters.every((d) => d.failedAdapter === 'adapter.webhook' && d.contractId === 'interns'),
        );
        assert.equal(
          byRecord('/bearer', created.recordId).length,
          1,
          'healthy attachments still delivered',
        );
        for (const attachment of [down, bad, forbidden, slow])
          harness.controlPlane.attachments.splice(
            harness.controlPlane.attachments.indexOf(attachment),
            1,
          );
        await adapter.runtime.refresh();
      });

      it('a target in a forbidden range (cloud metadata) is dead-lettered at once, never requested', async () => {
        const metadata = harness.controlPlane.attach(INTERNS, 'webhook', {
          url: 'http://169.254.169.254/latest/meta-data/',
          authType: 'bearer',
          token: 't',
        });
        await adapter.runtime.refresh();
        const created = internCreated(uniqueName('ssrf'));
        await harness.publish(created);
        await waitFor(
          'dead letter',
          () => harness.deadLetters.some((d) => d.traceId === created.traceId),
          15_000,
        );
        const letter = harness.deadLetters.find((d) => d.traceId === created.traceId)!;
        assert.match(letter.errorMessage, /refused: 169\.254\.169\.254 is in a link-local/);
        assert.equal(letter.attemptCount, 1);
        harness.controlPlane.attachments.splice(
          harness.controlPlane.attachments.indexOf(metadata),
          1,
        );
        await adapter.runtime.refresh();
      });
    },
  );
}
