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
  // Every request comes through here: one pass over the segments, no intermediate arrays or object spreads.
  const decoded: string[] = [];
  for (const p of clean.split('/')) {
    if (p === '') continue;
    if (!p.includes('%')) decoded.push(p);
    else {
      try {
        decoded.push(decodeURIComponent(p));
      } catch {
        return { type: 'unknown' };
      }
    }
  }
  if (decoded[0] === 'api') {
    if (decoded.length === 1) return { type: 'discovery-core' };
    return resourcePart('', decoded[1], decoded, 2);
  }
  if (decoded[0] === 'apis') {
    if (decoded.length === 1) return { type: 'discovery-groups' };
    if (decoded.length === 2) return { type: 'discovery-group', group: decoded[1] };
    return resourcePart(decoded[1], decoded[2], decoded, 3);
  }
  return { type: 'unknown' };
}

/** The resource part of a path: segs[at...] after the group and version. */
function resourcePart(group: string, version: string, segs: string[], at: number): RequestTarget {
  if (segs.length === at) return { type: 'discovery-resources', group, version };
  let watchPath = false;
  if (segs[at] === 'watch') {
    watchPath = true;
    at++;
    if (segs.length === at) return { type: 'unknown' };
  }
  const n = segs.length - at;
  if (segs[at] === 'namespaces' && n >= 2) {
    if (n >= 3 && !NAMESPACE_SUBRESOURCES.has(segs[at + 2])) {
      // /namespaces/<ns>/<resource>[/<name>[/<subresource>]]
      return { type: 'resource', group, version, watchPath, namespace: segs[at + 1], resource: segs[at + 2], name: segs[at + 3], subresource: segs[at + 4], extra: n > 5 };
    }
    // /namespaces/<name>[/status|/finalize]
    return { type: 'resource', group, version, watchPath, resource: 'namespaces', name: segs[at + 1], subresource: segs[at + 2], extra: n > 3 };
  }
  return { type: 'resource', group, version, watchPath, resource: segs[at], name: segs[at + 1], subresource: segs[at + 2], extra: n > 3 };
}
