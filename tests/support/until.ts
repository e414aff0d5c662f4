/**
 * Waits until `condition` holds (checked every `intervalMs`), or fails naming `what` after `timeoutMs`.
 * For effects that arrive asynchronously (a notification on another connection), never as a fixed sleep.
 */
export async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 5_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
