/** `GET /v1/skins` and `POST /v1/skins/upload`; the handlers are the skin use cases (skin-handlers.ts). */
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';
import {
  listSkinsHandler,
  skinListResponses,
  SKIN_UPLOAD_FORM_SCHEMA,
  skinUploadResponses,
  uploadSkinHandler,
} from './skin-handlers.js';

export function registerSkinRoutes(app: FastifyInstance, ctx: RenderContext): void {
  app.get(
    '/v1/skins',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'listSkins',
        summary: 'Names of the available skins',
        tags: ['skins'],
        response: skinListResponses,
      },
    },
    listSkinsHandler(ctx),
  );
  app.post(
    '/v1/skins/upload',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'uploadSkin',
        summary: 'Upload an .osk skin (multipart field `skin`); 2 per minute per address',
        tags: ['skins'],
        consumes: ['multipart/form-data'],
        multipartBody: SKIN_UPLOAD_FORM_SCHEMA,
        response: skinUploadResponses,
      },
    },
    uploadSkinHandler(ctx, () => ctx.limiters.skinUpload),
  );
}
