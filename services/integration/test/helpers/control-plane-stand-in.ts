/**
 * A real local HTTP server playing the control plane's part for adapter tests (the two
 * routes adapters call: `PUT /adapter-types/{type}` and `GET /attachments`, with its
 * `version` and long poll), so adapter tests run without the control-plane app.
 * Attachments are set by the test; `dropNextChange` cuts the connection of the next feed
 * answer that carries a change, as a lost notification would.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AttachmentView, ContractView } from '../../src/adapters/runtime/attachment.js';

export interface ControlPlaneStandIn {
  url: string;
  registrations: Array<Record<string, unknown>>;
  attachments: AttachmentView[];
  /** While true every request is answered 503 (the control plane is down). */
  unavailable: boolean;
  /** When true, the next feed answer carrying a change is lost (its connection cut); then false again. */
  dropNextChange: boolean;
  /** Feed answers lost on purpose so far. */
  dropped: number;
  attach(
    contract: ContractView,
    adapterType: string,
    config: Record<string, unknown>,
    enabled?: boolean,
  ): AttachmentView;
  close(): Promise<void>;
}

export async function startControlPlaneStandIn(): Promise<ControlPlaneStandIn> {
  const registrations: Array<Record<string, unknown>> = [];
  const attachments: AttachmentView[] = [];
  const standIn = { unavailable: false, dropNextChange: false, dropped: 0 } as ControlPlaneStandIn;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    const refuseWhileDown = () => {
      if (!standIn.unavailable) return false;
      response
        .writeHead(503, { 'content-type': 'application/json' })
        .end('{"detail":"unavailable"}');
      return true;
    };
    request.on('end', () => {
      if (refuseWhileDown()) return;
      if (request.method === 'PUT' && url.pathname.startsWith('/adapter-types/')) {
        registrations.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(200, { 'content-type': 'application/json' }).end(body);
        return;
      }
      if (request.method === 'GET' && url.pathname === '/attachments') {
        const type = url.searchParams.get('adapterType');
        const known = url.searchParams.get('knownVersion');
        const deadline = Date.now() + Number(url.searchParams.get('waitSeconds') ?? 0) * 1000;
        const feed = () => {
          const list = attachments.filter((a) => a.adapterType === type);
          return {
            attachments: list,
            version: createHash('sha256').update(JSON.stringify(list)).digest('hex'),
          };
        };
        const answer = () => {
          if (response.destroyed) return;
          // A poll already waiting when the control plane goes down must not deliver what
          // changed while it is down: a real one would have dropped the connection.
          if (refuseWhileDown()) return;
          const current = feed();
          if (current.version === known && Date.now() < deadline) {
            setTimeout(answer, 10);
            return;
          }
          if (current.version !== known && known !== null && standIn.dropNextChange) {
            standIn.dropNextChange = false;
            standIn.dropped += 1;
            response.destroy();
            return;
          }
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(current));
        };
        answer();
        return;
      }
      response.writeHead(404).end('{"detail":"not found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const members: Omit<ControlPlaneStandIn, 'unavailable' | 'dropNextChange' | 'dropped'> = {
    url: `http://127.0.0.1:${port}`,
    registrations,
    attachments,
    attach(contract, adapterType, config, enabled = true) {
      const now = new Date().toISOString();
      const attachment = {
        attachmentId: randomUUID(),
        contractId: contract.contractId,
        adapterType,
        config,
        enabled,
        contract,
        createdAt: now,
        updatedAt: now,
      };
      attachments.push(attachment);
      return attachment;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return Object.assign(standIn, members);
}
