// Derives the authorization attributes of an HTTP request from its method, path and query alone, the way the
// real request-info resolver does (before any handler or registry is involved): /api/v1/... and
// /apis/<group>/<version>/... are resource requests, everything else (/healthz, /version, /api, /apis/<group>,
// /openapi/...) is a non-resource request whose verb is the lower-case method.

import type { Attributes } from './authorizer.ts';
import { queryBool } from '../query-params.ts';

/** Subresources of a namespace: /namespaces/<name>/<sub> is not a namespaced collection. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const VERB_OF_METHOD: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function decode(p: string): string {
  try {
    return p.includes('%') ? decodeURIComponent(p) : p;
  } catch {
    return p;
  }
}

/** The attributes of a request, without the user. */
export function requestAttributes(method: string, url: string): Omit<Attributes, 'user'> {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const query = new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
  const nonResource = { verb: method.toLowerCase(), resourceRequest: false, path } as const;
  const parts = path.split('/').filter((p) => p !== '').map(decode);
  let rest: string[];
  let apiGroup: string;
  let apiVersion: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    apiGroup = '';
    apiVersion = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    apiGroup = parts[1];
    apiVersion = parts[2];
    rest = parts.slice(3);
  } else return nonResource;
  let verb = VERB_OF_METHOD[method.toUpperCase()];
  if (!verb) return nonResource;
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
    verb = 'watch';
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (!watchPath && name === undefined) {
    if (verb === 'get') verb = queryBool(query.get('watch') ?? undefined) ? 'watch' : 'list';
    else if (verb === 'delete') verb = 'deletecollection';
  }
  const attrs: Omit<Attributes, 'user'> = { verb, resourceRequest: true, apiGroup, apiVersion, resource: resource ?? '' };
  if (namespace !== undefined) attrs.namespace = namespace;
  if (name !== undefined) attrs.name = name;
  if (subresource !== undefined) attrs.subresource = subresource;
  return attrs;
}
