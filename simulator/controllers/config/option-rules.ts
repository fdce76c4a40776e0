// Cross-option rules of the daemon. Most come straight from the machine-readable constraints of the spec-table
// rows (greaterThan, atMost, requires, oneOf, valuesFrom); a few the spec states in words or that the real
// daemon enforces are listed in EXTRA_RULES below. Every broken rule is a UsageError (exit 2, one line).

import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { UsageError, type DaemonOptions, type OptionDef } from './options.ts';
import { parseGoDuration } from '../../util/go-duration.ts';
import { FeatureGates, UnknownFeatureGateError, type FeatureGateRowLike } from './feature-gates.ts';
import { CredentialFileError, parseCertificatesPem, readPrivateKeyFile, readRootCAFile, readSigningCA } from './credential-files.ts';
import { loadRecyclerTemplate } from './volume-plugins.ts';
import { selectControllers, UnknownControllerError, type ControllerRowLike, type ControllerSelection } from './controller-selection.ts';

export interface ConstraintLike {
  text?: string;
  greaterThan?: string | number;
  atMost?: string;
  requires?: string;
  oneOf?: readonly string[];
  valuesFrom?: string;
  [other: string]: unknown;
}

export interface ValidatedOptions {
  options: DaemonOptions;
  gates: FeatureGates;
  controllers: ControllerSelection;
  /** Things that are accepted but do nothing; the daemon logs them at start. */
  notes: string[];
}

function constraintsOf(def: OptionDef): ConstraintLike[] {
  const c = (def.row as { constraints?: unknown }).constraints;
  return Array.isArray(c) ? (c as ConstraintLike[]) : [];
}

function formatted(opts: DaemonOptions, def: OptionDef): string {
  return def.type.format(opts.get(def.name, def.type.name) as never);
}

/** Compares two values of one option type (durations as bigint ns, numbers as numbers). */
function compareValues(def: OptionDef, a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  throw new Error(`option ${def.name}: cannot order values of type ${def.type.name}`);
}

function thresholdOf(def: OptionDef, raw: string | number): unknown {
  if (def.type.name === 'duration') return parseGoDuration(String(raw));
  return Number(raw);
}

function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const family = isIP(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (family === 0 || !/^[0-9]{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

interface ExtraRule {
  option: string;
  /** Returns the problem, or undefined when the rule holds. */
  check(opts: DaemonOptions): string | undefined;
}

// Rules the tables do not carry as machine-readable constraints.
const EXTRA_RULES: ExtraRule[] = [
  {
    option: '--leader-elect-retry-period',
    // client-go's elector requires the renew deadline to exceed the retry period.
    check: (o) =>
      o.duration('--leader-elect-retry-period') < o.duration('--leader-elect-renew-deadline')
        ? undefined
        : `must be below --leader-elect-renew-deadline (${fmt(o, '--leader-elect-renew-deadline')})`,
  },
  {
    option: '--leader-elect-lease-duration',
    check: (o) => (o.duration('--leader-elect-lease-duration') > 0n ? undefined : 'must be greater than zero'),
  },
  {
    option: '--leader-elect-retry-period',
    check: (o) => (o.duration('--leader-elect-retry-period') > 0n ? undefined : 'must be greater than zero'),
  },
  {
    option: '--port',
    check: (o) => (o.int('--port') >= 0 && o.int('--port') <= 65535 ? undefined : 'expected a port number from 0 to 65535'),
  },
  {
    option: '--cluster-cidr',
    check: (o) => (o.string('--cluster-cidr') === '' || isCidr(o.string('--cluster-cidr')) ? undefined : 'expected a CIDR such as 10.244.0.0/16'),
  },
  {
    option: '--service-cluster-ip-range',
    check: (o) =>
      o.string('--service-cluster-ip-range') === '' || isCidr(o.string('--service-cluster-ip-range')) ? undefined : 'expected a CIDR such as 10.96.0.0/12',
  },
  {
    option: '--x-api-content-type',
    check: (o) =>
      /^application\/(json|vnd\.[A-Za-z0-9.-]+\.protobuf)$/.test(o.string('--x-api-content-type'))
        ? undefined
        : 'expected application/json or application/vnd.<vendor>.protobuf',
  },
  // Credential files are read at start; a file that cannot be read or parsed names its option (exit 2). The
  // signing pair is read only when both files exist: csrsigning does not start otherwise (registry.ts).
  { option: '--service-account-private-key-file', check: (o) => fileProblem(o.string('--service-account-private-key-file'), readPrivateKeyFile) },
  { option: '--root-ca-file', check: (o) => fileProblem(o.string('--root-ca-file'), readRootCAFile) },
  {
    option: '--cluster-signing-cert-file',
    check: (o) => (signingPairPresent(o) ? fileProblem(o.string('--cluster-signing-cert-file'), (p) => parseCertificatesPem(readFileSync(p, 'utf8'))) : undefined),
  },
  {
    option: '--cluster-signing-key-file',
    check: (o) =>
      signingPairPresent(o)
        ? (fileProblem(o.string('--cluster-signing-key-file'), readPrivateKeyFile) ??
          fileProblem(o.string('--cluster-signing-key-file'), (p) => readSigningCA(o.string('--cluster-signing-cert-file'), p)))
        : undefined,
  },
  // Recycler pod templates are read at start (the real daemon stops on a bad one too).
  { option: '--pv-recycler-pod-template-filepath-hostpath', check: (o) => fileProblem(o.string('--pv-recycler-pod-template-filepath-hostpath'), loadRecyclerTemplate) },
  { option: '--pv-recycler-pod-template-filepath-nfs', check: (o) => fileProblem(o.string('--pv-recycler-pod-template-filepath-nfs'), loadRecyclerTemplate) },
  {
    option: '--controller-start-interval',
    check: (o) => (o.duration('--controller-start-interval') >= 0n ? undefined : 'must not be negative'),
  },
];

/** Why a set file option's file is unusable, or undefined (also when the option is empty). */
function fileProblem(path: string, read: (path: string) => unknown): string | undefined {
  if (path === '') return undefined;
  try {
    read(path);
    return undefined;
  } catch (e) {
    if (e instanceof CredentialFileError) return e.message;
    const code = (e as NodeJS.ErrnoException).code;
    return code ? `cannot read the file: ${code}` : (e as Error).message;
  }
}

const signingPairPresent = (o: DaemonOptions) => existsSync(o.string('--cluster-signing-cert-file')) && existsSync(o.string('--cluster-signing-key-file'));

function fmt(o: DaemonOptions, name: string): string {
  const def = o.defs.lookup(name)!;
  return formatted(o, def);
}

function fail(o: DaemonOptions, def: OptionDef, problem: string): never {
  throw new UsageError(`invalid argument ${JSON.stringify(formatted(o, def))} for ${JSON.stringify(def.name)} flag: ${problem}`);
}

/** Checks every cross-option rule and resolves feature gates and controllers. Throws UsageError. */
export function validateOptions(
  opts: DaemonOptions,
  tables: { featureGates: readonly FeatureGateRowLike[]; controllers: readonly ControllerRowLike[] },
): ValidatedOptions {
  const notes: string[] = [];
  let gates: FeatureGates | undefined;
  let controllers: ControllerSelection | undefined;
  for (const def of opts.defs.list) {
    const value = opts.get(def.name, def.type.name);
    const isSet = !def.type.isZero(value as never);
    const allowed = (def.row as { enum?: unknown }).enum;
    if (Array.isArray(allowed) && !allowed.includes(value)) fail(opts, def, `expected one of ${allowed.join(', ')}`);
    for (const c of constraintsOf(def)) {
      if (c.greaterThan !== undefined && compareValues(def, value, thresholdOf(def, c.greaterThan)) <= 0) {
        fail(opts, def, `${c.text ?? `must be greater than ${c.greaterThan}`}`);
      }
      if (c.atMost !== undefined) {
        const other = opts.defs.lookup(c.atMost);
        if (!other) throw new Error(`option ${def.name}: constraint names unknown option ${c.atMost}`);
        if (compareValues(def, value, opts.get(other.name, other.type.name)) > 0) {
          fail(opts, def, `must be at most ${other.name} (${formatted(opts, other)})`);
        }
      }
      if (c.oneOf !== undefined && !c.oneOf.includes(String(value))) fail(opts, def, `expected one of ${c.oneOf.join(', ')}`);
      if (c.requires !== undefined && isSet) {
        const other = opts.defs.lookup(c.requires);
        if (!other) throw new Error(`option ${def.name}: constraint names unknown option ${c.requires}`);
        if (other.type.name === 'flag' && opts.bool(other.name) === false) {
          // A value option that needs a switch is an error (e.g. --cluster-cidr without --allocate-node-cidrs);
          // a switch that needs another switch merely has no effect, as in the real daemon.
          if (def.type.name === 'flag') notes.push(`${def.name} has no effect because ${other.name} is off`);
          else fail(opts, def, `needs ${other.name}=true`);
        }
      }
      if (c.valuesFrom === 'featureGates') {
        try {
          gates = new FeatureGates(tables.featureGates, opts.get(def.name, 'mapStringBool'));
        } catch (err) {
          if (!(err instanceof UnknownFeatureGateError)) throw err;
          const explicit = opts.get(def.name, 'mapStringBool');
          throw new UsageError(`invalid argument ${JSON.stringify(`${err.gate}=${explicit[err.gate]}`)} for ${JSON.stringify(def.name)} flag: ${err.message}`);
        }
      }
      if (c.valuesFrom === 'controllers') {
        try {
          controllers = selectControllers(opts.get(def.name, 'stringSlice'), tables.controllers);
        } catch (err) {
          if (!(err instanceof UnknownControllerError)) throw err;
          throw new UsageError(`invalid argument ${JSON.stringify(formatted(opts, def))} for ${JSON.stringify(def.name)} flag: ${err.message}`);
        }
      }
    }
  }
  for (const rule of EXTRA_RULES) {
    const def = opts.defs.lookup(rule.option);
    if (!def) continue;
    const problem = rule.check(opts);
    if (problem) fail(opts, def, problem);
  }
  // Tables without valuesFrom markers still get gates and controllers resolved from the named options.
  gates ??= new FeatureGates(tables.featureGates, opts.defs.lookup('--feature-gates') ? opts.map('--feature-gates') : {});
  controllers ??= selectControllers(opts.defs.lookup('--controllers') ? opts.slice('--controllers') : ['*'], tables.controllers);
  if (opts.wasSet('--insecure-experimental-approve-all-kubelet-csrs-for-group')) {
    notes.push('--insecure-experimental-approve-all-kubelet-csrs-for-group is accepted but has no effect');
  }
  return { options: opts, gates, controllers, notes };
}
