/** Raised by `publish` (and `ping`) when the broker cannot be reached; nothing was published. */
export class BrokerUnavailableError extends Error {
  constructor(message = 'broker unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BrokerUnavailableError';
  }
}

/** Thrown for a publish to a topic that was never created. */
export class UnknownTopicError extends Error {
  constructor(readonly topic: string) {
    super(`unknown topic: ${topic}`);
    this.name = 'UnknownTopicError';
  }
}
