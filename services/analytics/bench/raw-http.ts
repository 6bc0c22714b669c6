/**
 * One keep-alive HTTP/1.1 connection that writes prepared request bytes and reads one
 * answer at a time, by its `Content-Length`: what a load tool in C (wrk) does, and what
 * the bench's load client uses instead of `node:http`.
 *
 * Why (README, Benchmark, "Where a cached p99 goes"): `node:http`'s client cost the load
 * client 0.3–0.5 ms of CPU per request, as much as the server's whole cached read, on the
 * same two cores, and allocated enough to scavenge during a line. Four answers arriving
 * together then waited for each other in the client: its own work, counted as the
 * server's latency. Here a request is one `write` of bytes made by the caller, and an
 * answer is its chunks as they arrive, checked for status and length.
 *
 * A request's time ends in the `data` callback that brings the body's last byte, before
 * any other JavaScript of this process runs for it. Answers without a `Content-Length`
 * (chunked) are refused rather than guessed: every answer the bench reads has one.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  /** The body's bytes (a view of what was read: use before the next request). */
  body: Buffer;
  /** `performance.now()` when the body's last byte arrived. */
  arrivedAt: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export class RawHttpConnection {
  private waiting?: { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void };
  private chunks: Buffer[] = [];
  private received = 0;
  /** Where the body starts in the joined chunks, and its length: known once the headers are in. */
  private bodyStart = -1;
  private bodyLength = -1;
  private status = 0;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the server closed the connection')));
  }

  static open(host: string, port: number): Promise<RawHttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, noDelay: true });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawHttpConnection(socket));
      });
    });
  }

  /** Writes `request` (a whole HTTP/1.1 request) and resolves with its answer. */
  send(request: Buffer): Promise<RawAnswer> {
    if (this.waiting) throw new Error('one request at a time on a connection');
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const arrivedAt = performance.now();
    if (!this.waiting) return this.fail(new Error('bytes from the server with no request out'));
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.bodyStart < 0 && !this.readHeaders()) return;
    const end = this.bodyStart + this.bodyLength;
    if (this.received < end) return;
    if (this.received > end) return this.fail(new Error('more bytes than the answer announced'));
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const answer = { status: this.status, body: all.subarray(this.bodyStart), arrivedAt };
    const { resolve } = this.waiting;
    this.waiting = undefined;
    this.chunks = [];
    this.received = 0;
    this.bodyStart = -1;
    resolve(answer);
  }

  /** Parses the status line and `Content-Length` once the headers are in; false until then. */
  private readHeaders(): boolean {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    const head = this.chunks[0]!;
    const end = head.indexOf(HEADER_END);
    if (end < 0) return false;
    const text = head.toString('latin1', 0, end);
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
    const length = /\r\ncontent-length: *(\d+)/i.exec(text);
    if (!status || (!length && status[1] !== '304' && status[1] !== '204')) {
      this.fail(new Error(`an answer the bench cannot read: ${text.slice(0, 200)}`));
      return false;
    }
    this.status = Number(status[1]);
    this.bodyStart = end + HEADER_END.length;
    this.bodyLength = length ? Number(length[1]) : 0;
    return true;
  }

  private fail(error: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.socket.destroy();
    waiting?.reject(error);
  }
}
