/**
 * Iterates a multipart request's parts, turning a malformed body (no boundary, cut off,
 * bad headers) into a 400 instead of an unhandled error. Limit errors of the multipart
 * plugin keep their own 4xx status.
 */
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { isAppError } from '@platform/core';
import { renderErrors } from '../errors.js';

type PartsOptions = Parameters<FastifyRequest['parts']>[0];

export async function forEachPart(
  request: FastifyRequest,
  options: PartsOptions,
  onPart: (part: Multipart) => Promise<void>,
): Promise<void> {
  try {
    for await (const part of request.parts(options)) await onPart(part);
  } catch (error) {
    if (isAppError(error)) throw error;
    const status = (error as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500 && status !== 406) throw error;
    throw renderErrors.MALFORMED_FORM({ cause: error });
  }
}
