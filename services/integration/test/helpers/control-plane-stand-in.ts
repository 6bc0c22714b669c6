/**
 * A real local HTTP server playing the control plane's part for adapter tests (the two
 * routes adapters call: `PUT /adapter-types/{type}` and `GET /attachments`), so adapter
 * tests run without the control-plane app. Attachments are set by the test.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AttachmentView, ContractView } from '../../src/adapters/runtime/attachment.js';

export interface ControlPlaneStandIn {
  url: string;
  registrations: Array<Record<string, unknown>>;
  attachments: AttachmentView[];
  /** While true every request is answered 503 (the control plane is down). */
  unavailable: boolean;
  attach(contract: ContractView, adapterType: string, config: Record<string, unknown>, enabled?: boolean): AttachmentView;
  close(): Promise<void>;
}

export async function startControlPlaneStandIn(): Promise<ControlPlaneStandIn> {
  const registrations: Array<Record<string, unknown>> = [];
  const attachments: AttachmentView[] = [];
  const standIn = { unavailable: false } as ControlPlaneStandIn;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (standIn.unavailable) {
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"unavailable"}');
        return;
      }
      if (request.method === 'PUT' && url.pathname.startsWith('/adapter-types/')) {
        registrations.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(200, { 'content-type': 'application/json' }).end(body);
        return;
      }
      if (request.method === 'GET' && url.pathname === '/attachments') {
        const type = url.searchParams.get('adapterType');
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ attachments: attachments.filter((a) => a.adapterType === type) }));
        return;
      }
      response.writeHead(404).end('{"detail":"not found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const members: Omit<ControlPlaneStandIn, 'unavailable'> = {
    url: `http://127.0.0.1:${port}`,
    registrations,
    attachments,
    attach(contract, adapterType, config, enabled = true) {
      const attachment = { attachmentId: randomUUID(), contractId: contract.contractId, adapterType, config, enabled, contract };
      attachments.push(attachment);
      return attachment;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return Object.assign(standIn, members);
}
