// The suites command is the parent of node's test runner (harness/engine.ts calls run()), and runs no test itself:
// every check runs in a check process. But the first use of node:test in a process sets up the harness of
// in-process tests, which enables an async hook with a destroy callback (to tell which test an uncaught error came
// from), and from then on V8 tracks the end of every promise and async resource of the process. In the suites
// command that process also holds the embedded simulator, its controllers and nodes, which create promises by the
// million: the hook's bookkeeping was 5-6% of the command's CPU in a profile of a full run (registerDestroyHook
// alone 4.2 of 73 busy seconds). Here that one hook is created but never enabled; everything else of the harness,
// and every hook of anyone else, is as node makes it.
// Only node's modules here: suites/index.ts runs it before the command (and node:test) is loaded.
import asyncHooks from 'node:async_hooks';

/** Where node's test runner lives in a stack trace. */
const TEST_RUNNER = /\bnode:internal\/test_runner\//;
const INSTALLED = Symbol.for('cluster-conformance.parent-process');

/**
 * Leaves the async hook of node's in-process test harness disabled in this process. Call it before anything loads
 * node:test; a process that runs tests itself must not (its errors would no longer be charged to their tests).
 */
export function runNoTestsInProcess(): void {
  const hooks = asyncHooks as typeof asyncHooks & { [INSTALLED]?: true };
  if (hooks[INSTALLED]) return;
  hooks[INSTALLED] = true;
  const createHook = asyncHooks.createHook;
  hooks.createHook = (callbacks) => {
    const hook = createHook(callbacks);
    if (callbacks.destroy && TEST_RUNNER.test(new Error().stack ?? '')) hook.enable = () => hook;
    return hook;
  };
}
