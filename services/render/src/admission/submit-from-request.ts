/** A render submission from its HTTP request, for v1 (`POST /v1/render`) and legacy (`POST /render`). */
import type { FastifyRequest } from 'fastify';
import type { RenderContext } from '../context.js';
import { withBodyIdleTimeout } from './body-timeout.js';
import { readRenderForm } from './render-form.js';
import { admitRender, type Admitted } from './submit-render.js';
import { validateRenderForm, type ValidatedRender } from './validate-render-form.js';

/**
 * Shared by v1 and legacy: take an upload slot, read the form (idle timeout), validate
 * (decode off the event loop when large), give the slot back, admit. `legacy` enables
 * the `quality` field.
 */
export async function submitFromRequest(
  ctx: RenderContext,
  request: FastifyRequest,
  legacy: boolean,
): Promise<Admitted> {
  const address = ctx.clientAddress(request.raw);
  const release = ctx.uploads.enter(address);
  let valid: ValidatedRender;
  try {
    const form = await withBodyIdleTimeout(request, ctx.settings.bodyIdleTimeoutMs, () =>
      readRenderForm(request, ctx.settings.maxReplaySizeMb * 1024 * 1024),
    );
    valid = await validateRenderForm(form, ctx.settings, ctx, legacy);
  } finally {
    release();
  }
  return admitRender(
    {
      store: ctx.store,
      settings: ctx.settings,
      limiter: ctx.limiters.render,
      looks: ctx.admissionLooks,
      admissions: ctx.admissions,
      logger: ctx.logger,
      inDoubtWaitMs: ctx.settings.inDoubtWaitMs,
    },
    address,
    valid,
  );
}
