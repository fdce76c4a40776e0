// The daemon's command line: parse and validate argv against the spec-table options, or answer --help and
// --version. Kept apart from daemon.ts so that a bad command line is refused (and help printed) without
// loading the HTTP client, metrics and controllers, which the daemon needs only once it runs.

import type { SpecTables } from '../../../spec-tables/index.ts';
import { OptionDefs, parseCommandLine, formatHelp } from './options.ts';
import { validateOptions, type ValidatedOptions } from './option-rules.ts';

export const DAEMON_VERSION = 'v1.9.0';
export const PROGRAM = 'controller-daemon';

const INTRO =
  'The controller daemon embeds the core control loops of the cluster. A control loop watches the shared state\n' +
  'of the cluster through the API server and makes changes to move the current state toward the desired state.';

/** Help or version was asked for: print `text` to stdout and exit with code 0. */
export class DaemonExit extends Error {
  constructor(
    readonly text: string,
    readonly exitCode = 0,
  ) {
    super(text);
  }
}

function helpAppendix(tables: SpecTables): string[] {
  const gates = tables.featureGates.map((g) => `      ${g.name}=true|false (${g.stage ? `${g.stage} - ` : ''}default=${g.default})`);
  const controllers = tables.controllers.map((c) => `      ${c.name}${c.enabledByDefault ? '' : ' (off by default)'}`);
  return [
    `Feature gates for --feature-gates (AllAlpha=true turns on every alpha gate not set explicitly):\n${gates.join('\n')}`,
    `Controllers for --controllers ("*" = all on by default, "name" enables, "-name" disables, first match wins):\n${controllers.join('\n')}`,
    'Note: --insecure-experimental-approve-all-kubelet-csrs-for-group is accepted and has no effect.',
  ];
}

/** Parses and validates argv. Throws UsageError (exit 2) or DaemonExit (help, version; exit 0). */
export function prepareOptions(argv: readonly string[], tables: SpecTables): ValidatedOptions {
  const defs = new OptionDefs(tables.options);
  const parsed = parseCommandLine(argv, defs);
  if (parsed.action === 'help') throw new DaemonExit(formatHelp(defs, PROGRAM, INTRO, helpAppendix(tables)));
  if (parsed.action === 'version') {
    const info = { gitVersion: DAEMON_VERSION, platform: `${process.platform}/${process.arch}`, runtime: `node ${process.version}`, vendor: tables.vendor };
    throw new DaemonExit(parsed.mode === 'raw' ? `${JSON.stringify(info)}\n` : `${tables.vendor.charAt(0).toUpperCase()}${tables.vendor.slice(1)} ${DAEMON_VERSION}\n`);
  }
  return validateOptions(parsed.options, tables);
}
