/**
 * The skin use cases behind `GET /v1/skins` and `POST /v1/skins/upload`, as Fastify
 * handlers both the v1 routes and the deprecated legacy routes register.
 * Upload order: rate limit (one budget for v1 and legacy, before the body is read), an
 * upload slot (503/429), extension (400), size while streaming to a temp file (413),
 * `PK` header (415), the archive checks (422), the skin name (422), an existing name
 * (409). The temp folder is removed whatever happens.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { errorResponses, type RateLimiter } from '@platform/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { withBodyIdleTimeout } from '../admission/body-timeout.js';
import { forEachPart } from '../admission/read-parts.js';
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import { checkRateLimit } from '../limits/rate-limits.js';
import { DEFAULT_SKIN_LIMITS, SkinArchiveError, inspectSkinArchive } from './skin-archive.js';
import { listSkins, saveSkin } from './skin-library.js';
import { isValidSkinName } from './skin-name.js';

/** The form of `POST /v1/skins/upload` (and legacy `POST /skins/upload`): one file field, `skin`, for the OpenAPI document (`multipartBody`). */
export const SKIN_UPLOAD_FORM_SCHEMA = {
  type: 'object',
  required: ['skin'],
  properties: {
    skin: {
      type: 'string',
      format: 'binary',
      description: 'The .osk skin (a ZIP archive), at most MAX_SKIN_SIZE_MB',
    },
  },
};

/** The skin list's answer, shared by `GET /v1/skins` and the legacy `GET /skins`. */
export const skinListResponses = {
  200: {
    description: 'The skin names',
    type: 'object',
    required: ['skins'],
    properties: { skins: { type: 'array', items: { type: 'string' } } },
  },
} as const;

export function listSkinsHandler(ctx: RenderContext) {
  return async () => ({ skins: await listSkins(ctx.store) });
}

export function skinNameFromFilename(filename: string): string {
  return filename
    .replace(/^.*[\\/]/, '')
    .replace(/\.osk$/i, '')
    .trim();
}

export function uploadSkinHandler(ctx: RenderContext, limiter: () => RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const address = ctx.clientAddress(request.raw);
    const headers = await checkRateLimit(limiter(), address);
    reply.headers(headers);
    const release = ctx.uploads.enter(address);
    const temp = await mkdtemp(join(tmpdir(), 'render-skin-upload-'));
    try {
      const upload = await withBodyIdleTimeout(request, ctx.settings.bodyIdleTimeoutMs, () =>
        receiveSkin(ctx, request, join(temp, 'upload.osk')),
      );
      const limits = {
        ...DEFAULT_SKIN_LIMITS,
        maxUncompressedBytes: ctx.settings.maxSkinUncompressedMb * 1024 * 1024,
      };
      try {
        await inspectSkinArchive(upload.path, upload.bytes, limits);
      } catch (error) {
        if (error instanceof SkinArchiveError)
          throw renderErrors.SKIN_INVALID({
            detail: `Skin archive was refused: ${error.message}.`,
          });
        throw error;
      }
      const name = skinNameFromFilename(upload.filename);
      if (!isValidSkinName(name)) {
        throw renderErrors.SKIN_INVALID({
          detail:
            'Skin name must contain only letters, digits, spaces, hyphens and underscores (at most 64 characters).',
        });
      }
      if (!(await saveSkin(ctx.db, ctx.store, name, upload.path))) {
        throw renderErrors.SKIN_EXISTS({
          detail: `A skin named "${name}" already exists. Rename the file and upload it again.`,
        });
      }
      ctx.skins.remember(name, true);
      return { success: true, skin_name: name, message: `Skin "${name}" uploaded successfully.` };
    } finally {
      release();
      await rm(temp, { recursive: true, force: true });
    }
  };
}

async function receiveSkin(ctx: RenderContext, request: FastifyRequest, path: string) {
  const maxBytes = ctx.settings.maxSkinSizeMb * 1024 * 1024;
  let filename: string | undefined;
  let tooLarge = false;
  let received = false;
  if (request.isMultipart()) {
    await forEachPart(
      request,
      { limits: { fileSize: maxBytes, files: 2, fields: 10, parts: 12 } },
      async (part) => {
        if (part.type !== 'file') return;
        if (part.fieldname !== 'skin' || filename !== undefined) {
          part.file.resume();
          return;
        }
        filename = part.filename ?? '';
        if (!/\.osk$/i.test(filename)) {
          part.file.resume();
          return;
        }
        await pipeline(part.file, createWriteStream(path));
        tooLarge = part.file.truncated;
        received = true;
      },
    );
  }
  if (!filename || !/\.osk$/i.test(filename)) throw renderErrors.SKIN_EXTENSION();
  if (tooLarge)
    throw renderErrors.SKIN_TOO_LARGE({
      detail: `Skin file exceeds maximum size of ${ctx.settings.maxSkinSizeMb}MB.`,
    });
  const bytes = received ? (await stat(path)).size : 0;
  const head = Buffer.alloc(2);
  if (bytes >= 2) {
    const handle = await open(path, 'r');
    await handle.read(head, 0, 2, 0).finally(() => handle.close());
  }
  if (head.toString('latin1') !== 'PK') throw renderErrors.SKIN_NOT_ZIP();
  return { path, bytes, filename };
}

/** What a skin upload answers (also the deprecated /skins/upload). */
export const skinUploadResponses = {
  200: {
    description: 'Stored',
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      skin_name: { type: 'string' },
      message: { type: 'string' },
    },
  },
  ...errorResponses(renderErrors.definitions, [
    'SKIN_EXTENSION',
    'MALFORMED_FORM',
    'SKIN_TOO_LARGE',
    'SKIN_NOT_ZIP',
    'SKIN_INVALID',
    'SKIN_EXISTS',
    'RATE_LIMITED',
    'UPLOADS_PER_ADDRESS',
    'UPLOADS_BUSY',
  ]),
} as const;
