/** Placeholder until the remote-worker callback lands. */
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';

export function registerCallbackRoutes(_app: FastifyInstance, _ctx: RenderContext): void {}
