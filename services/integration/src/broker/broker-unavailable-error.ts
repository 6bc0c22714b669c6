/** Raised by `publish` (and `ping`) when the broker cannot be reached; nothing was published. */
export class BrokerUnavailableError extends Error {
  /**
   * The record may have reached the broker after all (its publish was sent and no answer
   * came back in time, or the connection dropped after sending): the caller cannot say
   * "nothing was published".
   */
  readonly inDoubt: boolean;
  constructor(message = 'broker unavailable', options?: { cause?: unknown; inDoubt?: boolean }) {
    super(message, options);
    this.name = 'BrokerUnavailableError';
    this.inDoubt = options?.inDoubt ?? false;
  }
}

/** Thrown for a publish to a topic that was never created. */
export class UnknownTopicError extends Error {
  constructor(readonly topic: string) {
    super(`unknown topic: ${topic}`);
    this.name = 'UnknownTopicError';
  }
}

/**
 * Thrown by `publish` for a message larger than the broker takes (JetStream: the server's
 * `max_payload`; SQL log: its configured limit); nothing was published, and retrying the
 * same message cannot succeed.
 */
export class MessageTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`message of ${bytes} bytes exceeds the broker's limit of ${maxBytes} bytes`);
    this.name = 'MessageTooLargeError';
  }
}
