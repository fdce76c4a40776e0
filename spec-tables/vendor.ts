// The spec writes {vendor} where the product name would be (media types, paths, option defaults).
// The tables keep it literally; the loader substitutes one word everywhere.

export const DEFAULT_VENDOR = 'kubernetes';
export const VENDOR_PLACEHOLDER = '{vendor}';

const VENDOR_WORD = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function checkVendor(vendor: string): string | undefined {
  return VENDOR_WORD.test(vendor) ? undefined : `vendor must be a lower-case word (letters, digits, inner dashes), got ${JSON.stringify(vendor)}`;
}

/** A deep copy with {vendor} replaced in every string (keys included). */
export function substituteVendor<T>(value: T, vendor: string): T {
  return walk(value, vendor) as T;
}

function walk(value: unknown, vendor: string): unknown {
  // Most strings hold no placeholder: they are kept as they are rather than split and joined (a start walks every row).
  if (typeof value === 'string') return value.includes(VENDOR_PLACEHOLDER) ? value.split(VENDOR_PLACEHOLDER).join(vendor) : value;
  if (Array.isArray(value)) return value.map((v) => walk(v, vendor));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k in value) if (Object.hasOwn(value, k)) out[walk(k, vendor) as string] = walk((value as Record<string, unknown>)[k], vendor);
    return out;
  }
  return value;
}
