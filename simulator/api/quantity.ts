// The resource Quantity grammar of the real server (apimachinery resource.ParseQuantity): a signed decimal
// number and one suffix — binary (Ki Mi Gi Ti Pi Ei), decimal SI (n u m "" k M G T P E) or a decimal
// exponent (e3, E-2). A string that does not parse fails decoding in the real server, so the body is 400
// `<Kind> in version "<v>" cannot be handled as a <Kind>: quantities must match the regular expression ...`
// (server/shape-check.ts); the value is used for the comparisons validation makes (requests <= limits,
// non-negative).

export const QUANTITY_REGEXP = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const FORMAT = new RegExp(QUANTITY_REGEXP);
const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

export const ERR_FORMAT = `quantities must match the regular expression '${QUANTITY_REGEXP}'`;
export const ERR_NUMERIC = "unable to parse quantity's numeric part";
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

export type QuantityResult = { ok: true; value: number } | { ok: false; error: string };

/** Parses a Quantity string (or a JSON number, which the real decoder also takes) into its value. */
export function parseQuantity(input: string | number): QuantityResult {
  if (typeof input === 'number') return Number.isFinite(input) ? { ok: true, value: input } : { ok: false, error: ERR_FORMAT };
  const text = input.trim();
  if (text.length === 0) return { ok: false, error: ERR_FORMAT };
  const m = FORMAT.exec(text);
  if (!m) return { ok: false, error: ERR_FORMAT };
  // The regular expression lets the numeric part take the first digits of an exponent suffix back; split
  // where the real parser does: the longest numeric prefix, then the suffix.
  const numEnd = /^[+-]?[0-9.]*/.exec(text)![0].length;
  const num = text.slice(0, numEnd);
  const suffix = text.slice(numEnd);
  if (!NUMBER.test(num)) return { ok: false, error: ERR_NUMERIC };
  const base = Number(num);
  let mult: number | undefined = BINARY[suffix] ?? DECIMAL[suffix];
  if (mult === undefined) {
    const e = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
    if (!e) return { ok: false, error: ERR_SUFFIX };
    mult = 10 ** Number(e[1]);
  }
  return { ok: true, value: base * mult };
}

export function isQuantity(v: unknown): boolean {
  return (typeof v === 'string' || typeof v === 'number') && parseQuantity(v).ok;
}
