/** The one error `decodeReplay` raises, with a code saying what was wrong. */
export type ReplayDecodeErrorCode = 'TRUNCATED' | 'BAD_LZMA' | 'UNSUPPORTED_MODE' | 'MALFORMED';

export class ReplayDecodeError extends Error {
  override readonly name = 'ReplayDecodeError';
  constructor(
    readonly code: ReplayDecodeErrorCode,
    message: string,
  ) {
    super(message);
  }
}
