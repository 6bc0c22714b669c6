/**
 * How every page of the service is sent: HTML under a CSP that allows its own scripts
 * only (no inline script, no other origin), and its scripts as files.
 */
import type { FastifyReply } from 'fastify';

export const PAGE_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'";

export function sendPage(reply: FastifyReply, html: string) {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .send(html);
}

export function sendScript(reply: FastifyReply, body: string) {
  return reply.header('content-type', 'text/javascript; charset=utf-8').send(body);
}
