/**
 * Prometheus metrics: one registry per service process (never prom-client's global one,
 * so two apps in one process or one test file do not collide), with process metrics and
 * a request-duration histogram by route and status.
 */
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function createRequestDurationHistogram(
  registry: Registry,
): Histogram<'method' | 'route' | 'status_code'> {
  return new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
}
