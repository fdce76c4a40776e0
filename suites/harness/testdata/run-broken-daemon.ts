// Runs daemon-controllers checks with --daemon-cmd naming broken-daemon.ts (this project's daemon with the breaks
// named), against a plain simulator, for the harness tests that show each check failing on a daemon that gets its
// row wrong (../../daemon-controllers.test.ts, ../../daemon-timing.test.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type RunningSimulator } from '../../../simulator/cluster.ts';
import { runChecks, type EngineResult } from '../engine.ts';
import { DAEMON_CMD_ENV } from '../../cli/daemon-command.ts';

const BROKEN = join(dirname(fileURLToPath(import.meta.url)), 'broken-daemon.ts');
let sim: RunningSimulator | undefined;

/** Runs the checks `ids` with a daemon broken by `breaks` (see broken-daemon.ts). */
export async function runWithBrokenDaemon(breaks: string[], ids: string[]): Promise<EngineResult> {
  sim ??= await startSimulator({ port: 0, host: '127.0.0.1' });
  process.env[DAEMON_CMD_ENV] = `BROKEN_DAEMON=${breaks.join(',')} node --import tsx ${BROKEN}`;
  try {
    return await runChecks({
      connection: { url: sim.url },
      vendor: 'kubernetes',
      seed: 5,
      runs: 5,
      workers: 2,
      timeoutSeconds: 120,
      replayCommand: `npx tsx suites --target ${sim.url}`,
      grep: new RegExp(`^(${ids.map((i) => i.replace(/\./g, '\\.')).join('|')})$`),
    });
  } finally {
    delete process.env[DAEMON_CMD_ENV];
  }
}

/** Stops the simulator the runs shared. */
export async function closeBrokenDaemonTarget(): Promise<void> {
  delete process.env[DAEMON_CMD_ENV];
  await sim?.close();
  sim = undefined;
}
