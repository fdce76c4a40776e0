// Values for the daemon's options, generated from the spec-table rows (type, default, constraints): valid
// values with the value /configz should then show, invalid values the daemon must refuse, the value a default
// should show, and how a /configz entry is compared with an expectation (durations as Go durations, float32
// with float32 precision). Options whose value is fixed by the environment (--master, --xconfig, --port,
// --address) take it from there.

import fc from 'fast-check';
import type { ControllerRow, FeatureGateRow, OptionRow } from '../../spec-tables/index.ts';
import { formatDuration, parseDurationMs } from '../../spec-tables/index.ts';

export interface ValueEnv {
  vendor: string;
  masterUrl: string;
  kubeconfigPath: string;
  port: number;
  /** An existing readable file and directory, for path options. */
  file: string;
  /** An existing file holding a JSON object, for the cloud credential options (the daemon reads them as JSON). */
  jsonFile?: string;
  /**
   * PEM files for the options the daemon reads as keys and certificates (it refuses anything else, exit 2): an
   * RSA key for --service-account-private-key-file, a CA certificate for --root-ca-file and
   * --cluster-signing-cert-file, and that CA's key for --cluster-signing-key-file.
   */
  pem?: { serviceAccountKeyFile: string; caCertFile: string; caKeyFile: string };
  /** A recycler pod manifest (YAML) for the --pv-recycler-pod-template-filepath-* options (1.9 loads it as a Pod). */
  podTemplateFile?: string;
  dir: string;
  controllers: readonly ControllerRow[];
  gates: readonly FeatureGateRow[];
}

/** One option set on the command line: its argument and what /configz should show for it. */
export interface OptionValue {
  option: string;
  arg: string;
  expected: unknown;
}

/** Options a valid-value run cannot set like the others: --version prints and exits. */
export const NOT_IN_CONFIGZ = new Set(['--version']);

export const normalizeName = (name: string) => name.replace(/^-+/, '').replace(/_/g, '-');
const loose = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

const constraint = <K extends string>(row: OptionRow, key: K) =>
  (row.constraints ?? []).find((c) => (c as unknown as Record<string, unknown>)[key] !== undefined) as (Record<K, unknown> & { text?: string }) | undefined;

export const requiresOf = (row: OptionRow) => constraint(row, 'requires')?.requires as string | undefined;
export const oneOfOf = (row: OptionRow): string[] | undefined => (constraint(row, 'oneOf')?.oneOf as string[] | undefined) ?? row.enum ?? undefined;
export const valuesFromOf = (row: OptionRow) => constraint(row, 'valuesFrom')?.valuesFrom as string | undefined;
export const greaterThanOf = (row: OptionRow) => constraint(row, 'greaterThan')?.greaterThan as string | undefined;
export const atMostOf = (row: OptionRow) => constraint(row, 'atMost')?.atMost as string | undefined;

const arg = (row: OptionRow, text: string | undefined) => (text === undefined ? row.name : `${row.name}=${text}`);

/** A duration written the ways Go accepts (canonical, in ms, in s, fractional minutes). */
function durationText(ms: number): fc.Arbitrary<string> {
  const forms = [fc.constant(formatDuration(ms)), fc.constant(`${ms}ms`)];
  if (ms % 1000 === 0) forms.push(fc.constant(`${ms / 1000}s`));
  if (ms % 6000 === 0 && ms > 0) forms.push(fc.constant(`${ms / 60_000}m`));
  return fc.oneof(...forms);
}

const durationValue = (row: OptionRow, ms: fc.Arbitrary<number>) =>
  ms.chain((v) => durationText(v).map((text): OptionValue => ({ option: row.name, arg: arg(row, text), expected: formatDuration(v) })));

const truthy = fc.constantFrom<[string | undefined, boolean]>([undefined, true], ['true', true], ['t', true], ['1', true], ['TRUE', true], ['T', true]);
const anyBool = fc.oneof(truthy, fc.constantFrom<[string | undefined, boolean]>(['false', false], ['f', false], ['0', false], ['FALSE', false]));

function stringValue(row: OptionRow, env: ValueEnv): fc.Arbitrary<string> {
  const name = normalizeName(row.name);
  const choices = oneOfOf(row);
  if (choices?.length) return fc.constantFrom(...choices);
  switch (name) {
    case 'master':
      return fc.constant(env.masterUrl);
    case 'xconfig':
      return fc.constant(env.kubeconfigPath);
    case 'cidr-allocator-type':
      return fc.constantFrom('RangeAllocator', 'CloudAllocator');
    case 'cluster-cidr':
      return fc.integer({ min: 0, max: 200 }).map((n) => `10.${n}.0.0/16`);
    case 'service-cluster-ip-range':
      return fc.integer({ min: 0, max: 15 }).map((n) => `172.${16 + n}.0.0/16`);
    case 'x-api-content-type':
      return fc.constantFrom('application/json', `application/vnd.${env.vendor}.protobuf`);
    case 'cloud-provider':
      return fc.constant('external');
    case 'insecure-experimental-approve-all-kubelet-csrs-for-group':
      return fc.constantFrom('system:nodes', 'system:bootstrappers');
    case 'cloud-a-container-registry-config':
    case 'cloud-b-json-key':
      return fc.constant(env.jsonFile ?? env.file);
    case 'service-account-private-key-file':
      return fc.constant(env.pem?.serviceAccountKeyFile ?? env.file);
    case 'root-ca-file':
    case 'cluster-signing-cert-file':
      return fc.constant(env.pem?.caCertFile ?? env.file);
    case 'cluster-signing-key-file':
      return fc.constant(env.pem?.caKeyFile ?? env.file);
    case 'pv-recycler-pod-template-filepath-hostpath':
    case 'pv-recycler-pod-template-filepath-nfs':
      return fc.constant(env.podTemplateFile ?? env.file);
    case 'flex-volume-plugin-dir':
      return fc.constant(env.dir.endsWith('/') ? env.dir : `${env.dir}/`);
  }
  if (/(file|config|filepath|json-key)$/.test(name)) return fc.constant(env.file);
  return fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/);
}

/** A valid value for one option, ignoring constraints between options (validAssignment handles those). */
export function validValue(row: OptionRow, env: ValueEnv): fc.Arbitrary<OptionValue> {
  const name = normalizeName(row.name);
  const simple = <T>(a: fc.Arbitrary<T>, text: (v: T) => string, expected: (v: T) => unknown = (v) => v) =>
    a.map((v): OptionValue => ({ option: row.name, arg: arg(row, text(v)), expected: expected(v) }));
  switch (row.type) {
    case 'flag':
      return anyBool.map(([text, v]) => ({ option: row.name, arg: arg(row, text), expected: v }));
    case 'int32': {
      if (name === 'port') return fc.constant({ option: row.name, arg: arg(row, String(env.port)), expected: env.port });
      const range = name === 'node-cidr-mask-size' ? { min: 16, max: 28 } : name === 'terminated-pod-gc-threshold' ? { min: -5, max: 20_000 } : { min: 1, max: 500 };
      // Go's integer flags read base prefixes too (0x1f, 0o17, 0b101).
      return fc.integer(range).chain((n) => fc.constantFrom(String(n), n >= 0 ? `0x${n.toString(16)}` : String(n)).map((t) => ({ option: row.name, arg: arg(row, t), expected: n })));
    }
    case 'float':
    case 'float32':
      return simple(fc.integer({ min: 1, max: 2000 }), (n) => String(n / 100), (n) => n / 100);
    case 'duration': {
      const g = greaterThanOf(row);
      const min = g ? parseDurationMs(g) + 1000 : name === 'controller-start-interval' ? 0 : 1000;
      const max = name === 'controller-start-interval' ? 300 : 3 * 3_600_000;
      const step = name === 'controller-start-interval' ? 1 : 500;
      return durationValue(row, fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step));
    }
    case 'ip':
      return simple(fc.constantFrom('127.0.0.1', '0.0.0.0'), (v) => v);
    case 'string':
      return simple(stringValue(row, env), (v) => v);
    case 'stringSlice': {
      const names = env.controllers.map((c) => c.name);
      const list = valuesFromOf(row) === 'controllers'
        ? fc.oneof(fc.constant(['*']), fc.constantFrom(...names).map((n) => ['*', `-${n}`]), fc.subarray(names, { minLength: 1, maxLength: 4 }))
        : fc.array(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), { minLength: 1, maxLength: 3 });
      return simple(list, (v) => v.join(','));
    }
    case 'mapStringBool': {
      const gates = env.gates.map((g) => g.name);
      return simple(
        fc.uniqueArray(fc.tuple(fc.constantFrom(...gates), fc.boolean()), { minLength: 1, maxLength: 4, selector: ([g]) => g }),
        (v) => v.map(([g, b]) => `${g}=${b}`).join(','),
        (v) => Object.fromEntries(v),
      );
    }
    default:
      return fc.constant({ option: row.name, arg: row.name, expected: undefined });
  }
}

/**
 * Valid values for every option at once, honouring the rules between them: the renew deadline below the
 * lease duration and above the retry period; CIDRs only with --allocate-node-cidrs on.
 */
export function validAssignment(rows: readonly OptionRow[], env: ValueEnv): fc.Arbitrary<OptionValue[]> {
  const byName = new Map(rows.map((r) => [r.name, r]));
  const parts: Array<fc.Arbitrary<OptionValue[]>> = [];
  const leader = ['--leader-elect-lease-duration', '--leader-elect-renew-deadline', '--leader-elect-retry-period'].map((n) => byName.get(n));
  if (leader.every(Boolean)) {
    const [lease, renew, retry] = leader as OptionRow[];
    parts.push(
      fc.integer({ min: 3, max: 60 }).chain((l) =>
        fc.integer({ min: 2, max: l - 1 }).chain((r) =>
          fc.integer({ min: 1, max: Math.max(1, Math.floor((r * 1000) / 2 / 100)) }).chain((t) =>
            fc.tuple(durationValue(lease, fc.constant(l * 1000)), durationValue(renew, fc.constant(r * 1000)), durationValue(retry, fc.constant(t * 100))),
          ),
        ),
      ),
    );
  }
  const handled = new Set(leader.filter(Boolean).map((r) => r!.name));
  const needsAllocate = rows.filter((r) => r.type !== 'flag' && requiresOf(r));
  for (const row of rows) {
    if (handled.has(row.name) || NOT_IN_CONFIGZ.has(row.name)) continue;
    // A switch that other options need is switched on (in any of its spellings).
    if (row.type === 'flag' && needsAllocate.some((r) => requiresOf(r) === row.name)) {
      parts.push(truthy.map(([text]) => [{ option: row.name, arg: arg(row, text), expected: true }]));
      continue;
    }
    parts.push(validValue(row, env).map((v) => [v]));
  }
  return fc.tuple(...parts).map((groups) => groups.flat());
}

export interface InvalidCase {
  option: string;
  /** The arguments that make the value invalid (the option, and what its constraint refers to). */
  args: string[];
  why: string;
}

/** Values the daemon must refuse at start for this option; empty when the spec allows any value (plain strings). */
export function invalidCases(row: OptionRow, rows: readonly OptionRow[]): InvalidCase[] {
  const c = (text: string, why: string, extra: string[] = []): InvalidCase => ({ option: row.name, args: [`${row.name}=${text}`, ...extra], why });
  const out: InvalidCase[] = [];
  switch (row.type) {
    case 'flag':
      out.push(c('maybe', 'not a boolean'), c('2', 'not a boolean'));
      break;
    case 'int32':
      out.push(c('ten', 'not an integer'), c('2147483648', 'beyond int32'), c('1.5', 'not an integer'));
      break;
    case 'float':
    case 'float32':
      out.push(c('fast', 'not a number'), c('1,5', 'not a number'));
      break;
    case 'duration':
      out.push(c('10', 'a duration needs a unit'), c('5parsecs', 'unknown unit'), c('1h-', 'not a duration'));
      break;
    case 'ip':
      out.push(c('300.1.1.1', 'not an IP address'), c('localhost', 'not an IP address'));
      break;
    case 'stringSlice':
      if (valuesFromOf(row) === 'controllers') out.push(c('nosuchcontroller', 'not a known controller'), c('*,-nosuchcontroller', 'not a known controller'));
      break;
    case 'mapStringBool':
      out.push(c('NoSuchGate=true', 'not a known feature gate'), c('APIListChunking=maybe', 'not a boolean'), c('APIListChunking', 'no value'));
      break;
    case 'version[=true]':
      out.push(c('bogus', 'not true, false or raw'));
      break;
  }
  const choices = oneOfOf(row);
  if (row.type === 'string' && choices?.length) out.push(c('nosuchvalue', `not one of ${choices.join(', ')}`));
  const gt = greaterThanOf(row);
  if (gt) out.push(c(gt, `must exceed ${gt}`), c(formatDuration(Math.max(0, parseDurationMs(gt) / 2)), `must exceed ${gt}`));
  const atMost = atMostOf(row);
  const other = atMost ? rows.find((r) => r.name === atMost) : undefined;
  if (other && typeof other.default === 'string') {
    const over = formatDuration(parseDurationMs(other.default) + 5000);
    out.push(c(over, `more than ${atMost} (default ${other.default})`));
  }
  const req = requiresOf(row);
  if (req && row.type !== 'flag') {
    const sample = normalizeName(row.name).includes('cidr') || normalizeName(row.name).includes('ip-range') ? '10.0.0.0/16' : 'x';
    out.push(c(sample, `needs ${req} on (given ${req}=false)`, [`${req}=false`]));
  }
  return out;
}

/** What /configz should show for an option left at its default. */
export function expectedDefault(row: OptionRow): unknown {
  if (row.default !== null) return row.default;
  switch (row.type) {
    case 'flag':
      return false;
    case 'int32':
    case 'float':
    case 'float32':
      return 0;
    case 'duration':
      return '0s';
    case 'stringSlice':
      return [];
    case 'mapStringBool':
      return {};
    default:
      return '';
  }
}

/** The componentconfig section of a /configz document (1.9: "componentconfig"; else the first object). */
export function componentConfig(doc: Record<string, unknown>): Record<string, unknown> | undefined {
  const pick = doc.componentconfig ?? Object.values(doc).find((v) => v && typeof v === 'object' && !Array.isArray(v));
  return pick && typeof pick === 'object' ? (pick as Record<string, unknown>) : undefined;
}

/** The entry of an option in componentconfig: its key is the option name in any casing, without separators. */
export function configEntry(config: Record<string, unknown>, option: string): { found: boolean; value?: unknown } {
  const want = loose(option);
  for (const [k, v] of Object.entries(config)) if (loose(k) === want) return { found: true, value: v };
  return { found: false };
}

const float32 = (x: number) => Math.fround(x);

/** Whether a /configz value shows the expected value of an option of this type. */
export function sameValue(type: string, expected: unknown, actual: unknown): boolean {
  switch (type) {
    case 'duration':
      try {
        return typeof actual === 'string' && parseDurationMs(actual) === parseDurationMs(String(expected));
      } catch {
        return false;
      }
    case 'float32':
    case 'float': {
      const a = typeof actual === 'string' ? Number(actual) : actual;
      if (typeof a !== 'number' || typeof expected !== 'number') return false;
      if (a === expected) return true;
      const tolerance = type === 'float32' ? Math.abs(float32(expected) - expected) + Math.abs(expected) * 1e-6 : Math.abs(expected) * 1e-12;
      return Math.abs(a - expected) <= tolerance;
    }
    case 'int32':
      return Number(actual) === expected;
    case 'flag':
      return actual === expected || String(actual) === String(expected);
    case 'stringSlice':
      return Array.isArray(actual) && JSON.stringify(actual) === JSON.stringify(expected);
    case 'mapStringBool': {
      if (!actual || typeof actual !== 'object') return false;
      const e = expected as Record<string, boolean>;
      const a = actual as Record<string, unknown>;
      return Object.keys(e).length === Object.keys(a).length && Object.entries(e).every(([k, v]) => a[k] === v);
    }
    default:
      return actual === expected || (expected === '' && (actual === null || actual === undefined));
  }
}

/** Whether a refusal message names the option (either word separator, with or without dashes). */
export function namesOption(text: string, option: string): boolean {
  const t = text.replace(/_/g, '-');
  const n = normalizeName(option);
  return t.includes(`--${n}`) || new RegExp(`(^|[^a-z0-9-])${n.replace(/[-]/g, '-')}([^a-z0-9-]|$)`).test(t);
}
