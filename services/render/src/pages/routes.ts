/** Placeholder until the HTML pages land. */
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';

export function registerPageRoutes(_app: FastifyInstance, _ctx: RenderContext): void {}
