// npx tsx simulator/controllers [options]: the controller daemon as its own process.
// Exit codes: 0 after --help/--version or a clean stop, 2 for a bad command line, 1 for any other failure
// (including lost leadership, after which a supervisor is expected to restart the daemon, as with the real one).

import { loadSpecTables } from '../../spec-tables/index.ts';
import { DaemonExit, prepareOptions } from './config/command-line.ts';
import { UsageError } from './config/options.ts';

async function main(): Promise<number> {
  let handle;
  try {
    const tables = loadSpecTables();
    const argv = process.argv.slice(2);
    // Help, version and a bad command line are answered before the rest of the daemon is loaded.
    prepareOptions(argv, tables);
    const { startDaemon } = await import('./daemon/daemon.ts');
    handle = await startDaemon(argv, { tables });
  } catch (err) {
    if (err instanceof DaemonExit) {
      process.stdout.write(err.text);
      return err.exitCode;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`Error: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof Error && (err as { exitCode?: unknown }).exitCode === 255) {
      // glog.Fatalf: an F line, exit code 255.
      const d = new Date();
      const p = (n: number, w = 2) => String(n).padStart(w, '0');
      process.stderr.write(`F${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000 ${p(process.pid, 5)} controllermanager.go] ${err.message}\n`);
      return 255;
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
