/**
 * A publish's NATS header block, written once from the record's headers: `NATS/1.0`, then
 * `Name: value` a header, then a blank line, each line ended by CRLF — the bytes the
 * client's `headers()` object encodes for the same names and values, checked the way it
 * checks them (a name of printable ASCII without `:`, a value without CR or LF, trimmed).
 *
 * Why not the client's object: each `set` deletes and appends, and each of those lists
 * the names into a new array, filters it, and puts the name in MIME form; with three
 * headers a record that was a tenth of the bytes the batch bench's process allocated
 * (a sampling heap profile of the batch phase, 28 Nov 2026). The client asks a publish's
 * headers for nothing but `encode()` (`ProtocolHandler.publish`), and
 * `publish-headers.test.ts` holds these bytes to the client's own for the same headers.
 */
import type { MsgHdrs } from 'nats';

/** A header name the client accepts: printable ASCII (33–126) other than `:`. */
const NAME = /^[!-9;-~]+$/;
const LINE_BREAK = /[\r\n]/;

export class InvalidHeaderError extends Error {}

/** Headers as the client's publish reads them: `encode()`, the block's bytes. */
export type EncodedHeaders = MsgHdrs & { encode(): Uint8Array };

/** The client's `MsgHdrs` for a publish, holding only its encoded block. */
export function publishHeaders(headers: Readonly<Record<string, string>>): EncodedHeaders {
  let block = 'NATS/1.0';
  for (const name of Object.keys(headers)) {
    const value = headers[name]!;
    if (!NAME.test(name)) throw new InvalidHeaderError(`not a valid header name: ${name}`);
    if (LINE_BREAK.test(value))
      throw new InvalidHeaderError(`header ${name}: a value may not hold CR or LF`);
    block += `\r\n${name}: ${value.trim()}`;
  }
  const bytes = Buffer.from(`${block}\r\n\r\n`, 'utf8');
  // Only `encode` is ever read (see above); the cast is what the client's type asks for.
  return { encode: () => bytes } as unknown as EncodedHeaders;
}
