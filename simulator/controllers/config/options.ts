// The daemon's command line, read the way the real daemon's flag library (Go pflag) reads it:
// "--name=value" and "--name value"; a boolean (or --version) given bare is "true" and never takes the next
// argument; "--" ends the options; a repeated option overrides (slices and maps accumulate). Names are matched
// after turning "_" into "-", as the real daemon's word-separator normaliser does, so --concurrent_rc_syncs
// and --concurrent-rc-syncs are the same option. The option list itself comes from the spec-table rows.

import { flagTypeOf, FlagValueError, type FlagType, type FlagTypeName, type FlagValue, type FlagValueOf } from './flag-types.ts';
import { toMilliseconds, type Nanoseconds } from '../../util/go-duration.ts';

/** The fields of a spec-table option row that the daemon reads (spec-tables/index.ts `options`). */
export interface OptionRowLike {
  id: string;
  name: string;
  type: string;
  default: unknown;
  defaultText?: string | null;
  purpose: string;
  group?: string | null;
}

export interface OptionDef {
  name: string;
  type: FlagType;
  defaultValue: FlagValue;
  row: OptionRowLike;
  /** Key in /configz: the option name in lowerCamelCase ("--x-api-qps" -> "xApiQps"). */
  configKey: string;
}

/** A command-line mistake: the daemon prints the one-line message and exits with this code. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

const normalize = (name: string) => name.replace(/^-+/, '').replace(/_/g, '-');

export function configKeyOf(name: string): string {
  return normalize(name).replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

export class OptionDefs {
  readonly list: readonly OptionDef[];
  private readonly byNormalized = new Map<string, OptionDef>();

  constructor(rows: readonly OptionRowLike[]) {
    const list: OptionDef[] = [];
    for (const row of rows) {
      const type = flagTypeOf(row.type);
      if (!type) throw new Error(`spec-table option ${row.id} (${row.name}) has unknown type ${JSON.stringify(row.type)}`);
      if (!row.name.startsWith('--')) throw new Error(`spec-table option ${row.id} has a name without "--": ${row.name}`);
      let defaultValue: FlagValue;
      try {
        defaultValue = type.fromDefault(row.default as never);
      } catch (err) {
        throw new Error(`spec-table option ${row.name}: default ${JSON.stringify(row.default)} is not a valid ${row.type}: ${(err as Error).message}`);
      }
      const def: OptionDef = { name: row.name, type, defaultValue, row, configKey: configKeyOf(row.name) };
      const key = normalize(row.name);
      if (this.byNormalized.has(key)) throw new Error(`spec-table option ${row.name} is defined twice`);
      this.byNormalized.set(key, def);
      list.push(def);
    }
    this.list = list;
  }

  lookup(name: string): OptionDef | undefined {
    return this.byNormalized.get(normalize(name));
  }
}

export type ParseResult =
  | { action: 'run'; options: DaemonOptions }
  | { action: 'help' }
  | { action: 'version'; mode: 'true' | 'raw' };

function invalid(def: OptionDef, raw: string, detail: string): UsageError {
  return new UsageError(`invalid argument ${JSON.stringify(raw)} for ${JSON.stringify(def.name)} flag: ${detail}`);
}

/** Reads argv (without node and script) into option values. Throws UsageError on any mistake. */
export function parseCommandLine(argv: readonly string[], defs: OptionDefs): ParseResult {
  const values = new Map<string, FlagValue>(defs.list.map((d) => [d.name, d.defaultValue]));
  const changed = new Set<string>();
  let help = false;
  const positional: string[] = [];
  const apply = (def: OptionDef, raw: string) => {
    try {
      values.set(def.name, def.type.set(raw, values.get(def.name) as never, changed.has(def.name)));
      changed.add(def.name);
    } catch (err) {
      if (err instanceof FlagValueError) throw invalid(def, raw, err.detail);
      throw err;
    }
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) {
      // Single-dash arguments are shorthands in pflag; the daemon defines none besides -h.
      if (arg === '-h' || arg === '-help' || arg.startsWith('-h=')) {
        help = true;
        continue;
      }
      throw new UsageError(`unknown shorthand flag: ${JSON.stringify(arg[1])} in ${arg}`);
    }
    const body = arg.slice(2);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    if (name === '' || name.startsWith('-') || name.startsWith('=')) throw new UsageError(`bad flag syntax: ${arg}`);
    const def = defs.lookup(name);
    if (!def) {
      if (name === 'help') {
        help = true;
        continue;
      }
      throw new UsageError(`unknown flag: --${name}`);
    }
    if (eq >= 0) apply(def, body.slice(eq + 1));
    else if (def.type.noOptValue !== undefined) apply(def, def.type.noOptValue);
    else if (i + 1 < argv.length) apply(def, argv[++i]);
    else throw new UsageError(`flag needs an argument: ${def.name} (expected ${def.type.expected})`);
  }
  if (help) return { action: 'help' };
  const versionDef = defs.list.find((d) => d.type.name === 'version[=true]');
  if (versionDef) {
    const v = values.get(versionDef.name);
    if (v === 'true' || v === 'raw') return { action: 'version', mode: v };
  }
  if (positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positional[0])}: the daemon takes options only (see --help)`);
  return { action: 'run', options: new DaemonOptions(defs, values, changed) };
}

/** The effective option values, read by name with the type the table declares. */
export class DaemonOptions {
  constructor(
    readonly defs: OptionDefs,
    private readonly values: Map<string, FlagValue>,
    private readonly changed: ReadonlySet<string>,
  ) {}

  private def(name: string, type: FlagTypeName | FlagTypeName[]): OptionDef {
    const def = this.defs.lookup(name);
    if (!def) throw new Error(`the daemon has no option ${name}`);
    const types = Array.isArray(type) ? type : [type];
    if (!types.includes(def.type.name)) throw new Error(`option ${name} is a ${def.type.name}, not a ${types.join(' or ')}`);
    return def;
  }

  get<T extends FlagTypeName>(name: string, type: T): FlagValueOf[T] {
    return this.values.get(this.def(name, type).name) as FlagValueOf[T];
  }

  bool(name: string): boolean {
    return this.get(name, 'flag');
  }
  int(name: string): number {
    return this.get(name, 'int32');
  }
  float(name: string): number {
    return this.values.get(this.def(name, ['float', 'float32']).name) as number;
  }
  string(name: string): string {
    return this.values.get(this.def(name, ['string', 'ip']).name) as string;
  }
  duration(name: string): Nanoseconds {
    return this.get(name, 'duration');
  }
  durationMs(name: string): number {
    return toMilliseconds(this.duration(name));
  }
  slice(name: string): string[] {
    return [...this.get(name, 'stringSlice')];
  }
  map(name: string): Record<string, boolean> {
    return { ...this.get(name, 'mapStringBool') };
  }
  /** True when the option appeared on the command line. */
  wasSet(name: string): boolean {
    const def = this.defs.lookup(name);
    return def !== undefined && this.changed.has(def.name);
  }

  /** Every option by configKey, JSON-ready (durations in Go text), for /configz. */
  toConfig(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const def of this.defs.list) out[def.configKey] = def.type.toJson(this.values.get(def.name) as never);
    return out;
  }

  /** A copy with some values replaced (used by tests and in-process callers). */
  with(overrides: Record<string, FlagValue>): DaemonOptions {
    const values = new Map(this.values);
    const changed = new Set(this.changed);
    for (const [name, value] of Object.entries(overrides)) {
      const def = this.defs.lookup(name);
      if (!def) throw new Error(`the daemon has no option ${name}`);
      values.set(def.name, value);
      changed.add(def.name);
    }
    return new DaemonOptions(this.defs, values, changed);
  }
}

const HELP_INDENT = 6;

/** pflag prints "(default X)" for non-zero defaults; for zero ones the table's own words say more than nothing. */
function helpDefault(def: OptionDef): string {
  if (!def.type.isZero(def.defaultValue as never)) return ` (default ${def.type.format(def.defaultValue as never)})`;
  const text = def.row.defaultText ?? '';
  if (text === '' || /^none$/i.test(text)) return ' (default: none)';
  if (/^empty$/i.test(text)) return ' (default "")';
  return ` (default ${text})`;
}

/** --help text: every option with its type, default and purpose, grouped by the table's group column. */
export function formatHelp(defs: OptionDefs, program: string, intro: string, appendix: readonly string[] = []): string {
  const groups = new Map<string, OptionDef[]>();
  for (const def of defs.list) {
    const group = def.row.group || 'General';
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group)!.push(def);
  }
  const heads = defs.list.map((d) => `${d.name}${d.type.helpWord ? ` ${d.type.helpWord}` : ''}`);
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  const lines = [intro, '', `Usage:\n  ${program} [flags]`, ''];
  for (const [group, members] of groups) {
    lines.push(`${group} flags:`);
    for (const def of members) {
      const head = `${def.name}${def.type.helpWord ? ` ${def.type.helpWord}` : ''}`;
      lines.push(`${' '.repeat(HELP_INDENT)}${head.padEnd(width)}${def.row.purpose}${helpDefault(def)}`);
    }
    lines.push('');
  }
  lines.push(`${' '.repeat(HELP_INDENT)}${'-h, --help'.padEnd(width)}help for ${program}`);
  for (const section of appendix) lines.push('', section);
  return lines.join('\n') + '\n';
}
