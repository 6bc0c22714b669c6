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
 * A request's time ends in the read callback that brings the body's last byte, before
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

/** Bytes read per `read` call of the socket, into one buffer reused for every read. */
const READ_BUFFER_BYTES = 64 * 1024;

export class RawHttpConnection {
  private waiting?: { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void };
  /** The answer so far (grown when an answer is larger), reused for every answer. */
  private data = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private received = 0;
  /** Where the body starts in `data`, and its length: known once the headers are in. */
  private bodyStart = -1;
  private bodyLength = -1;
  private status = 0;
  private socket!: Socket;

  private constructor() {}

  static open(host: string, port: number): Promise<RawHttpConnection> {
    const connection = new RawHttpConnection();
    return new Promise((resolve, reject) => {
      // Node reads into this buffer and calls back, with no new buffer per read: reading a
      // 16 KB answer into a new one each time scavenged the client about once per 1,500.
      const socket = connect({
        host,
        port,
        noDelay: true,
        onread: {
          buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
          callback: (bytes: number, buffer: Uint8Array) => {
            connection.onData(buffer, bytes);
            return true;
          },
        },
      });
      connection.socket = socket;
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        socket.on('error', (error) => connection.fail(error));
        socket.on('close', () => connection.fail(new Error('the server closed the connection')));
        resolve(connection);
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

  private onData(chunk: Uint8Array, bytes: number): void {
    const arrivedAt = performance.now();
    if (!this.waiting) return this.fail(new Error('bytes from the server with no request out'));
    if (this.received + bytes > this.data.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.data.length * 2, this.received + bytes));
      this.data.copy(grown, 0, 0, this.received);
      this.data = grown;
    }
    this.data.set(chunk.subarray(0, bytes), this.received);
    this.received += bytes;
    if (this.bodyStart < 0 && !this.readHeaders()) return;
    const end = this.bodyStart + this.bodyLength;
    if (this.received < end) return;
    if (this.received > end) return this.fail(new Error('more bytes than the answer announced'));
    const answer = {
      status: this.status,
      body: this.data.subarray(this.bodyStart, end),
      arrivedAt,
    };
    const { resolve } = this.waiting;
    this.waiting = undefined;
    this.received = 0;
    this.bodyStart = -1;
    resolve(answer);
  }

  /** Parses the status line and `Content-Length` once the headers are in; false until then. */
  private readHeaders(): boolean {
    // `data` past `received` holds an earlier answer's bytes: a match must end before it.
    const end = this.data.indexOf(HEADER_END);
    if (end < 0 || end + HEADER_END.length > this.received) return false;
    const text = this.data.toString('latin1', 0, end);
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
