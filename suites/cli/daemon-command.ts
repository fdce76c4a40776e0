// Which controller daemon the daemon-options suite starts: --daemon-cmd, handed to the check processes
// (node's test runner starts one per suite file) through the environment, or this project's own daemon:
// compiled into one file for the run when that could be done (daemon/daemon-build.ts), else through tsx.

import { existsSync } from 'node:fs';
import { shellEscape } from '../daemon/daemon-process.ts';

export const DAEMON_CMD_ENV = 'CONFORMANCE_DAEMON_CMD';
/** The path of this project's daemon compiled for the run (set by cli/main.ts when no --daemon-cmd is given). */
export const DAEMON_BUILD_ENV = 'CONFORMANCE_DAEMON_BUILD';

/** `node --import tsx` is much quicker to start than `npx tsx`, and the suite starts the daemon often. */
export const DEFAULT_DAEMON_CMD = 'node --import tsx simulator/controllers/index.ts';

export function daemonCommand(env: NodeJS.ProcessEnv = process.env): { command: string; isDefault: boolean } {
  const cmd = env[DAEMON_CMD_ENV];
  if (cmd && cmd.trim() !== '') return { command: cmd, isDefault: false };
  const built = env[DAEMON_BUILD_ENV];
  if (built && existsSync(built)) return { command: `node ${shellEscape(built)}`, isDefault: true };
  return { command: DEFAULT_DAEMON_CMD, isDefault: true };
}
