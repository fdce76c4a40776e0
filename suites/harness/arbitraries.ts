// fast-check arbitraries for the API's input spaces: object names, label sets, ConfigMap data.
import fc from 'fast-check';

const ALNUM_LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const ALNUM = `${ALNUM_LOWER}ABCDEFGHIJKLMNOPQRSTUVWXYZ`;

const charFrom = (chars: string) => fc.constantFrom(...chars.split(''));

/** A DNS-1123 label (what namespaces and most names must be), up to maxLength characters. */
export function dnsLabel(maxLength = 40): fc.Arbitrary<string> {
  return fc
    .tuple(charFrom(ALNUM_LOWER), fc.array(charFrom(`${ALNUM_LOWER}-`), { maxLength: Math.max(0, maxLength - 2) }), charFrom(ALNUM_LOWER))
    .map(([a, mid, z]) => (maxLength === 1 ? a : `${a}${mid.join('')}${z}`));
}

/** A DNS-1123 subdomain: dot-separated labels (ConfigMap and Secret names). */
export function dnsSubdomain(): fc.Arbitrary<string> {
  return fc.array(dnsLabel(12), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
}

/** A label value: empty, or alphanumerics with - _ . inside, up to 63. */
export function labelValue(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(''),
    fc
      .tuple(charFrom(ALNUM), fc.array(charFrom(`${ALNUM}-_.`), { maxLength: 20 }), charFrom(ALNUM))
      .map(([a, mid, z]) => `${a}${mid.join('')}${z}`),
  );
}

/** A label key: optional DNS prefix, then a name part like a label value (non-empty). */
export function labelKey(): fc.Arbitrary<string> {
  const name = fc.tuple(charFrom(ALNUM), fc.array(charFrom(`${ALNUM}-_.`), { maxLength: 15 }), charFrom(ALNUM)).map(([a, m, z]) => `${a}${m.join('')}${z}`);
  return fc.tuple(fc.option(dnsSubdomain(), { nil: undefined }), name).map(([prefix, n]) => (prefix ? `${prefix}/${n}` : n));
}

export function labels(maxKeys = 4): fc.Arbitrary<Record<string, string>> {
  return fc.dictionary(labelKey(), labelValue(), { maxKeys });
}

/** ConfigMap data: keys of [-._a-zA-Z0-9] (not ".", not starting with ".."), any Unicode text as values. */
export function configMapData(maxKeys = 4): fc.Arbitrary<Record<string, string>> {
  const key = fc.array(charFrom(`${ALNUM}-_.`), { minLength: 1, maxLength: 20 }).map((c) => c.join('')).filter((k) => k !== '.' && !k.startsWith('..'));
  return fc.dictionary(key, fc.string({ unit: 'grapheme', maxLength: 40 }), { maxKeys });
}
