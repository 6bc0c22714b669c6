/** Builds the app on test engines and submits replays through `inject`. */
import type { AccessPolicy } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { buildRenderApp } from '../../src/app.js';
import { multipart, quietLogger, type TestEngines } from './harness.js';

export async function buildTestApp(
  engines: TestEngines,
  access?: AccessPolicy,
): Promise<FastifyInstance> {
  const app = await buildRenderApp(engines.ctx, {
    logger: quietLogger,
    ...(access ? { access } : {}),
  });
  await app.ready();
  return app;
}

export interface SubmitOptions {
  address: string;
  replay?: Buffer | undefined;
  filename?: string;
  fields?: Record<string, string>;
  path?: string;
  /** The socket peer; a non-loopback peer's Edge-Connecting-IP is not believed. @defaultValue 127.0.0.1 */
  remoteAddress?: string;
}

export function submit(app: FastifyInstance, options: SubmitOptions) {
  const files =
    options.replay === undefined
      ? []
      : [{ field: 'replay', filename: options.filename ?? 'play.osr', data: options.replay }];
  const { body, contentType } = multipart(options.fields ?? {}, files);
  return app.inject({
    method: 'POST',
    url: options.path ?? '/v1/render',
    payload: body,
    headers: { 'content-type': contentType, 'edge-connecting-ip': options.address },
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}
