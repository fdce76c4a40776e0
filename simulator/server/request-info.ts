// Turns a request path into what it addresses, the way the real server's request-info resolver does.

export type RequestTarget =
  | { type: 'discovery-core' } // /api
  | { type: 'discovery-groups' } // /apis
  | { type: 'discovery-group'; group: string } // /apis/<group>
  | { type: 'discovery-resources'; group: string; version: string } // /api/v1, /apis/<g>/<v>
  | {
      type: 'resource';
      group: string;
      version: string;
      /** /watch/ prefix present. */
      watchPath: boolean;
      namespace?: string;
      resource: string;
      name?: string;
      subresource?: string;
      /** Extra path segments beyond a subresource (never valid). */
      extra: boolean;
    }
  | { type: 'unknown' };

/** Subresources of a namespace that look like a namespaced resource name in the path. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parseRequestPath(path: string): RequestTarget {
  const q = path.indexOf('?');
  const clean = q >= 0 ? path.slice(0, q) : path;
  const parts = clean.split('/').filter((p) => p !== '');
  let decoded: string[];
  try {
    decoded = parts.map((p) => (p.includes('%') ? decodeURIComponent(p) : p));
  } catch {
    return { type: 'unknown' };
  }
  if (decoded[0] === 'api') {
    if (decoded.length === 1) return { type: 'discovery-core' };
    return resourcePart('', decoded[1], decoded.slice(2));
  }
  if (decoded[0] === 'apis') {
    if (decoded.length === 1) return { type: 'discovery-groups' };
    if (decoded.length === 2) return { type: 'discovery-group', group: decoded[1] };
    return resourcePart(decoded[1], decoded[2], decoded.slice(3));
  }
  return { type: 'unknown' };
}

function resourcePart(group: string, version: string, rest: string[]): RequestTarget {
  if (rest.length === 0) return { type: 'discovery-resources', group, version };
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
    if (rest.length === 0) return { type: 'unknown' };
  }
  const base = { type: 'resource' as const, group, version, watchPath, extra: false };
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    if (rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2])) {
      // /namespaces/<ns>/<resource>[/<name>[/<subresource>]]
      return { ...base, namespace: rest[1], resource: rest[2], name: rest[3], subresource: rest[4], extra: rest.length > 5 };
    }
    // /namespaces/<name>[/status|/finalize]
    return { ...base, resource: 'namespaces', name: rest[1], subresource: rest[2], extra: rest.length > 3 };
  }
  return { ...base, resource: rest[0], name: rest[1], subresource: rest[2], extra: rest.length > 3 };
}
