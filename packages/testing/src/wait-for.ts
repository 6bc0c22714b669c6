/**
 * Waits for a condition a test names: polls `check` every `intervalMs` until it holds, or
 * throws "timed out waiting for <what>" after `timeoutMs`. The bound is a ceiling for a
 * broken build, not a duration the test relies on: derive it from the setting that
 * governs the wait where there is one.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
