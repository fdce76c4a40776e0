// The default daemon under test, compiled once per run (harness/compile.ts). The daemon suites start this
// project's daemon about 100 times per run; through tsx each start took ~0.5 CPU-second to refuse a bad option
// and ~1.9 to serve /configz with every controller for a second (2 cores, 2026-11-23); compiled and started by
// plain node, ~0.13 and ~0.8. Split where the daemon imports its controllers only after reading its command line,
// so that a refusal reads the small first part only. Anything failing here leaves the tsx command in place
// (cli/daemon-command.ts).
import { join } from 'node:path';
import { compileEntries, plainNodeEntry, REPO_ROOT } from '../harness/compile.ts';

/**
 * Builds (or finds) the compiled daemon; the path of the file plain node runs (its CommonJS form's launcher, loaded
 * with V8's code cache of earlier starts: ~0.1 CPU-second less per start), or undefined when it cannot be built here.
 */
export async function buildDaemon(root = REPO_ROOT): Promise<string | undefined> {
  const out = await compileEntries('suites-daemon', { daemon: join(root, 'simulator', 'controllers', 'index.ts') }, root, { commonJs: true });
  return out?.daemon && plainNodeEntry(out.daemon);
}
