/**
 * Reads the multipart form of `POST /v1/render` (and legacy `POST /render`): the replay
 * file with its name and bytes (the size limit enforced while streaming), and the text
 * fields. Nothing is judged here beyond what streaming needs; `validate-render-form.ts`
 * applies the spec's checks in order.
 */
import type { FastifyRequest } from 'fastify';
import { forEachPart } from './read-parts.js';

export interface RenderForm {
  /** Name of the uploaded `replay` file; undefined when none was sent. */
  filename: string | undefined;
  /** The bytes, when the file was read completely within the limit. */
  data: Buffer | undefined;
  /** The file went past the size limit (its bytes were discarded). */
  tooLarge: boolean;
  fields: Record<string, string>;
}

const REPLAY_FIELD = 'replay';

export async function readRenderForm(
  request: FastifyRequest,
  maxBytes: number,
): Promise<RenderForm> {
  const form: RenderForm = { filename: undefined, data: undefined, tooLarge: false, fields: {} };
  if (!request.isMultipart()) return form;
  await forEachPart(
    request,
    { limits: { fileSize: maxBytes, files: 4, fields: 40, fieldSize: 4096, parts: 50 } },
    async (part) => {
      if (part.type === 'field') {
        if (
          typeof part.value === 'string' ||
          typeof part.value === 'number' ||
          typeof part.value === 'boolean'
        ) {
          form.fields[part.fieldname] ??= String(part.value);
        }
        return;
      }
      if (part.fieldname !== REPLAY_FIELD || form.filename !== undefined) {
        part.file.resume();
        return;
      }
      form.filename = part.filename ?? '';
      if (!hasReplayExtension(form.filename)) {
        part.file.resume();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) chunks.push(chunk as Buffer);
      if (part.file.truncated) form.tooLarge = true;
      else form.data = Buffer.concat(chunks);
    },
  );
  return form;
}

export function hasReplayExtension(filename: string | undefined): boolean {
  return typeof filename === 'string' && /\.osr$/i.test(filename);
}
