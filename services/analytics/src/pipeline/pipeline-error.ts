/** Why a build stopped: a missing source file or column, or failed quality checks (with the report). */
export class PipelineError extends Error {
  constructor(
    message: string,
    readonly report?: unknown,
  ) {
    super(message);
    this.name = 'PipelineError';
  }
}
