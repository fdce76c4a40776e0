// resource.Quantity arithmetic (quantity.ts checks the grammar): parsing "250m", "1.5", "64Mi", "2Gi", "1e3" into a value in milli-units (so
// CPU millicores and whole bytes stay exact), and formatting sums back the way the real Quantity prints its
// canonical form (binary suffixes for values written with Ki/Mi/Gi..., "m" for fractions, plain integers
// otherwise). Used by quota (admission and status.used) and the metrics API / HPA.

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

export interface ParsedQuantity {
  /** Value times 1000 (milli-units), rounded up to a whole milli-unit as the real server rounds. */
  milli: number;
  format: 'BinarySI' | 'DecimalSI' | 'DecimalExponent';
}

/** The real quantity regular expression's error message. */
export const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export function parseQuantity(v: unknown): ParsedQuantity | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return { milli: Math.ceil(v * 1000), format: 'DecimalSI' };
  if (typeof v !== 'string') return undefined;
  const m = QUANTITY.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (!Number.isFinite(n)) return undefined;
  if (m[3] !== undefined) return { milli: Math.ceil(n * 10 ** Number(m[3]) * 1000), format: 'DecimalExponent' };
  const suffix = m[2] ?? '';
  if (suffix in BINARY) return { milli: Math.ceil(n * BINARY[suffix] * 1000), format: 'BinarySI' };
  return { milli: Math.ceil(n * DECIMAL[suffix] * 1000 - 1e-9), format: 'DecimalSI' };
}

/** Milli-units of a quantity, 0 when it does not parse. */
export function milliOf(v: unknown): number {
  return parseQuantity(v)?.milli ?? 0;
}

/** Canonical text of a value in milli-units, in the format of the quantities it came from. */
export function formatQuantity(milli: number, format: ParsedQuantity['format'] = 'DecimalSI'): string {
  if (milli === 0) return '0';
  if (milli % 1000 !== 0) return `${milli}m`;
  const whole = milli / 1000;
  if (format === 'BinarySI') {
    for (const s of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) if (Math.abs(whole) >= BINARY[s] && whole % BINARY[s] === 0) return `${whole / BINARY[s]}${s}`;
    return String(whole);
  }
  for (const s of ['E', 'P', 'T', 'G', 'M', 'k']) if (Math.abs(whole) >= DECIMAL[s] && whole % DECIMAL[s] === 0) return `${whole / DECIMAL[s]}${s}`;
  return String(whole);
}

/** Adds quantities; the result keeps the format of the first one (as Quantity.Add does). */
export function sumQuantities(values: unknown[]): string {
  let milli = 0;
  let format: ParsedQuantity['format'] | undefined;
  for (const v of values) {
    const q = parseQuantity(v);
    if (!q) continue;
    milli += q.milli;
    format ??= q.format;
  }
  return formatQuantity(milli, format ?? 'DecimalSI');
}
