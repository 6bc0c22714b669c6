/**
 * Bounds the uploads this process reads at once, before any body byte is read: in all
 * (`maxConcurrent`, else 503) and per client address (`maxPerAddress`, else 429). A
 * replay is held in memory while it is read and decoded, so this also bounds memory.
 */
import { renderErrors } from '../errors.js';

export interface UploadGateOptions {
  /** @defaultValue 32 */
  maxConcurrent: number;
  /** @defaultValue 2 */
  maxPerAddress: number;
}

export interface UploadGate {
  /** Takes a slot for `address` or throws the coded error; call the result once to give it back. */
  enter(address: string): () => void;
  /** Uploads being read now (metrics, tests). */
  readonly inFlight: number;
}

export function createUploadGate(options: UploadGateOptions): UploadGate {
  const perAddress = new Map<string, number>();
  let inFlight = 0;
  return {
    get inFlight() {
      return inFlight;
    },
    enter(address) {
      if (inFlight >= options.maxConcurrent)
        throw renderErrors.UPLOADS_BUSY({ headers: { 'Retry-After': '5' } });
      const mine = perAddress.get(address) ?? 0;
      if (mine >= options.maxPerAddress)
        throw renderErrors.UPLOADS_PER_ADDRESS({
          detail: `You already have ${options.maxPerAddress} uploads in progress.`,
          headers: { 'Retry-After': '5' },
        });
      inFlight += 1;
      perAddress.set(address, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight -= 1;
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left > 0) perAddress.set(address, left);
        else perAddress.delete(address);
      };
    },
  };
}
