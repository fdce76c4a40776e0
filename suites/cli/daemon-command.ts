// Which controller daemon the daemon-options suite starts: --daemon-cmd, handed to the check processes
// (node's test runner starts one per suite file) through the environment, or this project's own daemon.

export const DAEMON_CMD_ENV = 'CONFORMANCE_DAEMON_CMD';

/** `node --import tsx` is much quicker to start than `npx tsx`, and the suite starts the daemon often. */
export const DEFAULT_DAEMON_CMD = 'node --import tsx simulator/controllers/index.ts';

export function daemonCommand(env: NodeJS.ProcessEnv = process.env): { command: string; isDefault: boolean } {
  const cmd = env[DAEMON_CMD_ENV];
  return cmd && cmd.trim() !== '' ? { command: cmd, isDefault: false } : { command: DEFAULT_DAEMON_CMD, isDefault: true };
}
