// Timers of control loops that end with the loop's AbortSignal. Written once because the hand-made form
// (`setTimeout` + `signal.addEventListener('abort', ...)`) misses a signal that was aborted before the
// listener was added: the timer then outlives the daemon (an hour-long csrcleaner period kept a closed
// daemon's process alive) and a loop sleeps past its stop.

/** Resolves after ms, or at once when signal is (or becomes) aborted; no timer is left behind either way. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Calls fn every ms (nothing when ms is not positive) until signal aborts or the returned stop is called;
 * starts nothing when the signal is already aborted.
 */
export function every(ms: number, signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted || !(ms > 0)) return () => {};
  const timer = setInterval(fn, ms);
  const stop = () => {
    clearInterval(timer);
    signal.removeEventListener('abort', stop);
  };
  signal.addEventListener('abort', stop, { once: true });
  return stop;
}

/** Resolves when signal aborts (at once if it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
