/** A real local HTTP server receiving webhook deliveries; each test scripts its answers. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request ended. */
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Status for a delivery to `path`, `count` being its attempt number for that idempotency key; `'hang'` never answers. */
  respond: (path: string, count: number, body: string) => number | 'hang';
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const counts = new Map<string, number>();
  const receiver: WebhookReceiver = {
    url: '',
    deliveries,
    respond: () => 200,
    close: async () => undefined,
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const counter = `${path} ${String(request.headers['idempotency-key'])}`;
      const count = (counts.get(counter) ?? 0) + 1;
      counts.set(counter, count);
      deliveries.push({ path, headers: request.headers, body, receivedAt: Date.now() });
      const status = receiver.respond(path, count, body);
      if (status === 'hang') return;
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
