// npx tsx simulator/controllers [options]: the controller daemon as its own process.
// Exit codes: 0 after --help/--version or a clean stop, 2 for a bad command line, 1 for any other failure
// (including lost leadership, after which a supervisor is expected to restart the daemon, as with the real one).

import { startDaemon, DaemonExit, UsageError } from './daemon.ts';

async function main(): Promise<number> {
  let handle;
  try {
    handle = await startDaemon(process.argv.slice(2));
  } catch (err) {
    if (err instanceof DaemonExit) {
      process.stdout.write(err.text);
      return err.exitCode;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`Error: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
  const h = handle;
  const stop = (signal: string) => {
    process.stderr.write(`received ${signal}, shutting down\n`);
    void h.close();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  const { reason } = await h.done;
  return reason === 'closed' ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
