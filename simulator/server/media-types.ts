// Media types the server speaks (spec 4.1) and the parsing of Accept and Content-Type headers.

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';
export const protobufType = (vendor: string): string => `application/vnd.${vendor}.protobuf`;

export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'] as const;

export interface MediaRange {
  type: string; // e.g. "application"
  subtype: string; // e.g. "json"
  params: Record<string, string>;
  q: number;
}

/** Parses an Accept header into ranges in the client's order of preference (stable for equal q). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || header.trim() === '') return [];
  const out: Array<MediaRange & { index: number }> = [];
  header.split(',').forEach((raw, index) => {
    const parsed = parseMediaType(raw);
    if (!parsed) return;
    const qRaw = parsed.params.q;
    delete parsed.params.q;
    let q = 1;
    if (qRaw !== undefined) {
      const n = Number(qRaw);
      q = Number.isFinite(n) ? Math.max(0, Math.min(1, n)) : 0;
    }
    out.push({ ...parsed, q, index });
  });
  out.sort((a, b) => b.q - a.q || a.index - b.index);
  return out.filter((r) => r.q > 0).map(({ index: _i, ...r }) => r);
}

export function parseMediaType(raw: string): Omit<MediaRange, 'q'> & { params: Record<string, string> } | undefined {
  const [typePart, ...paramParts] = raw.split(';');
  let full = typePart.trim().toLowerCase();
  if (full === '*') full = '*/*'; // a bare "*" is read as */* (goautoneg)
  const slash = full.indexOf('/');
  if (slash <= 0 || slash === full.length - 1) return undefined;
  const params: Record<string, string> = {};
  for (const p of paramParts) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    params[k] = v;
  }
  return { type: full.slice(0, slash), subtype: full.slice(slash + 1), params };
}

/** The bare media type of a Content-Type header ("application/json; charset=utf-8" -> "application/json"). */
export function essence(contentType: string | undefined): string {
  if (!contentType) return '';
  return contentType.split(';')[0].trim().toLowerCase();
}

export function matches(range: MediaRange, mediaType: string): boolean {
  const [t, s] = mediaType.split('/');
  if (range.type === '*' && range.subtype === '*') return true;
  if (range.type !== t) return false;
  return range.subtype === '*' || range.subtype === s;
}
