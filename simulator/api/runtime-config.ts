// --runtime-config (the 1.9 API server flag): which group versions, and which resources of a group version, are
// served. A 1.9 cluster serves its GA and beta group versions and none of its alpha ones unless told; the
// simulator also keeps off what 1.9 did not serve (ResourceDef.offByDefault) and keeps on what a current client
// of the README's "works with" table needs (ResourceDef.beyond19).
//
// Syntax, as the real flag: a comma-separated list of `key[=value]`; value `true` or `false` (no value: true);
// key `api/all` (every group version), `api/v1` (the core group), `<group>/<version>`, or
// `<group>/<version>/<resource>` (one resource, as 1.9 allowed for extensions/v1beta1). Later entries win over
// earlier ones; a resource entry wins over its group version's.

import { RESOURCES, servedByDefault, type ResourceDef } from './registry.ts';

export type RuntimeConfig = ReadonlyMap<string, boolean>;

export class RuntimeConfigError extends Error {}

/** Parses the flag's value (several flags: join them with commas first). */
export function parseRuntimeConfig(text: string | readonly string[] | undefined): RuntimeConfig {
  const out = new Map<string, boolean>();
  const parts = (Array.isArray(text) ? text.join(',') : (text as string | undefined) ?? '').split(',');
  for (const raw of parts) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? 'true' : part.slice(eq + 1);
    if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing "${value}": invalid syntax`);
    const segs = key.split('/');
    if (segs.length < 2 || segs.length > 3 || segs.some((s) => s === '')) throw new RuntimeConfigError(`invalid key ${key}: want api/all, <group>/<version> or <group>/<version>/<resource>`);
    out.set(key, value === 'true');
  }
  return out;
}

function groupVersionKey(d: ResourceDef): string {
  return d.group === '' ? `api/${d.version}` : `${d.group}/${d.version}`;
}

/** Whether this definition is served under that configuration. */
export function isServed(d: ResourceDef, config: RuntimeConfig): boolean {
  const gv = groupVersionKey(d);
  const byResource = config.get(`${gv}/${d.resource}`);
  if (byResource !== undefined) return byResource;
  const byGroupVersion = config.get(gv);
  if (byGroupVersion !== undefined) return byGroupVersion;
  const all = config.get('api/all');
  if (all !== undefined) return all;
  return servedByDefault(d);
}

/** The definitions served under that configuration (default: a default 1.9 cluster's). */
export function servedResources(config: RuntimeConfig = new Map(), defs: readonly ResourceDef[] = RESOURCES): ResourceDef[] {
  return defs.filter((d) => isServed(d, config));
}
