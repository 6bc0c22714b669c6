/**
 * Bad-input run over every route of the control plane and the submission service
 * (issue 15): `npm test` sends a short run, `npm run fuzz` a long one (FUZZ_REQUESTS,
 * FUZZ_TIME_MS). No 500s; heap growth bounded.
 */
import { after, before, test } from 'node:test';
import { assertFuzzClean, fuzzApp, fuzzSettings } from '@platform/testing';
import { internPayload, internsLike } from '../support/contracts.js';
import { openHarness, type Harness } from '../support/harness.js';

const settings = fuzzSettings();

let h: Harness;
before(async () => {
  h = await openHarness();
  await h.register(internsLike());
});
after(async () => h?.close());

for (const part of ['controlPlane', 'submission'] as const) {
  test(`fuzz ${part}: ${settings.requests} bad requests over every route, no 500, bounded heap`, async (t) => {
    const contract = internsLike();
    const report = await fuzzApp(h[part], {
      ...settings,
      samples: {
        'POST /contracts': contract,
        'POST /contracts/:contractId/records': internPayload(),
        'POST /interns': internPayload(),
        'POST /contracts/:contractId/adapters': {
          adapterType: 'webhook',
          config: { url: 'http://169.254.169.254/', authType: 'bearer', token: 't' },
        },
      },
    });
    t.diagnostic(JSON.stringify(report));
    assertFuzzClean(report);
  });
}
