/**
 * The first build, retried until it succeeds (issue 21 item 4): a build that failed, on
 * a full disk above all, is tried again every `retrySeconds`, so the service serves by
 * itself once the disk is freed instead of answering 503 until someone restarts it.
 * Meanwhile `whyNotBuilt` gives the reads' 503 (and `/health`) a detail naming the cause.
 */
import { isDiskFailure, type Logger } from '@platform/core';

export interface FirstBuild {
  /** The 503 detail while the warehouse is missing because the build failed. */
  whyNotBuilt(): string | undefined;
  /** Stops the retries (shutdown). */
  stop(): void;
}

export function startFirstBuild(
  build: () => Promise<unknown>,
  { retrySeconds, logger }: { retrySeconds: number; logger: Logger },
): FirstBuild {
  let failure: unknown;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = () => {
    build().then(
      () => (failure = undefined),
      (error: unknown) => {
        failure = error;
        logger.error(
          { err: error, retrySeconds },
          'the first build failed; the service answers 503 until a build succeeds',
        );
        if (!stopped) timer = setTimeout(attempt, retrySeconds * 1000);
      },
    );
  };
  attempt();
  return {
    whyNotBuilt() {
      if (failure === undefined) return undefined;
      const cause = isDiskFailure(failure)
        ? 'the disk under DATA_DIR is full or failing'
        : 'the build failed (see the service log)';
      return `The warehouse is not built yet: ${cause}; the build is retried every ${retrySeconds} s`;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
