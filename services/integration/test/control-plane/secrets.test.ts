/**
 * Secrets are write-only (issue 15): the webhook token and HMAC secret of an attachment
 * come back masked from every answer of the attachment API; only the adapters' feed
 * (`GET /attachments`, operate) carries them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WEBHOOK_CONFIG_SCHEMA } from '../../src/adapters/webhook/webhook-config.js';
import { MASK, maskConfig } from '../../src/control-plane/attachments/mask-secrets.js';
import { internsLike } from '../support/contracts.js';
import { openHarness, type Harness } from '../support/harness.js';

const TOKEN = 'tok-very-secret-0123456789';
const SECRET = 'hmac-secret-0123456789abcdef';

describe('attachment secrets', () => {
  let h: Harness;
  const contract = internsLike();
  before(async () => {
    h = await openHarness();
    await h.register(contract);
    const registered = await h.controlPlane.inject({
      method: 'PUT',
      url: '/adapter-types/webhook',
      payload: {
        type: 'webhook',
        description: 'webhooks',
        configSchema: WEBHOOK_CONFIG_SCHEMA,
        consumerGroup: 'adapter.webhook',
      },
    });
    assert.ok(registered.statusCode < 300, registered.body);
  });
  after(async () => h?.close());

  it('POST, GET and PATCH answers show the token and secret masked; the adapter feed has them', async () => {
    const attach = (config: Record<string, unknown>) =>
      h.controlPlane.inject({
        method: 'POST',
        url: `/contracts/${contract.contractId}/adapters`,
        payload: { adapterType: 'webhook', config },
      });
    const bearer = await attach({
      url: 'https://example.com/hook',
      authType: 'bearer',
      token: TOKEN,
    });
    assert.equal(bearer.statusCode, 201, bearer.body);
    assert.equal(bearer.json().attachment.config.token, MASK);
    assert.equal(bearer.json().attachment.config.url, 'https://example.com/hook');
    const hmac = await attach({
      url: 'https://example.com/signed',
      authType: 'hmac',
      secret: SECRET,
    });
    assert.equal(hmac.json().attachment.config.secret, MASK);

    const listed = await h.controlPlane.inject({
      url: `/contracts/${contract.contractId}/adapters`,
    });
    assert.doesNotMatch(listed.body, new RegExp(`${TOKEN}|${SECRET}`));
    assert.equal(listed.json().attachments.length, 2);

    const id = bearer.json().attachment.attachmentId as string;
    const patched = await h.controlPlane.inject({
      method: 'PATCH',
      url: `/contracts/${contract.contractId}/adapters/${id}`,
      payload: { enabled: false },
    });
    assert.equal(patched.json().attachment.config.token, MASK);

    const feed = await h.controlPlane.inject({ url: '/attachments?adapterType=webhook' });
    const configs = feed
      .json()
      .attachments.map((a: { config: Record<string, unknown> }) => a.config);
    assert.deepEqual(
      configs.map((c: Record<string, unknown>) => c.token ?? c.secret).sort(),
      [SECRET, TOKEN].sort(),
    );
  });

  it('masks nested and differently named credentials, keeps the rest', () => {
    assert.deepEqual(
      maskConfig({
        apiKey: 'k',
        nested: { password: 'p', host: 'h' },
        list: [{ privateKey: 'x' }],
        token: '',
        count: 3,
      }),
      {
        apiKey: MASK,
        nested: { password: MASK, host: 'h' },
        list: [{ privateKey: MASK }],
        token: '',
        count: 3,
      },
    );
  });
});
