// Field shapes generated from the field rows of the spec tables (2.1-2.6): for an object (or list) of a kind,
// which rows apply, where their values sit (Container and ContainerStatus rows through the types table), and
// whether each value present has the type the row words ("string", "integer", "map of string to string",
// "timestamp", "DeploymentStrategy" ...). Presence is judged by the checks (a field is often optional); this
// module only says what a present value must look like. Nothing here comes from the simulator.
import type { FieldRow, SpecTables } from '../../spec-tables/index.ts';
import { isObject } from './models/json.ts';

/** RFC 3339 in UTC ("Z"), with optional fractional seconds (spec 2.1: "timestamp, RFC 3339, UTC"). */
export const RFC3339_UTC = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?Z$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isRfc3339Utc(v: unknown): boolean {
  return typeof v === 'string' && RFC3339_UTC.test(v) && !Number.isNaN(Date.parse(v));
}

/** Why `value` does not have the type the spec words as `jsonType`, or undefined when it does. */
export function typeProblem(jsonType: string | null, value: unknown): string | undefined {
  const show = () => JSON.stringify(value)?.slice(0, 80);
  if (jsonType === null) return undefined; // the spec gives no type: rules of the check judge it
  const t = jsonType.trim();
  switch (t) {
    case 'string':
      return typeof value === 'string' ? undefined : `expected a string, got ${show()}`;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : `expected an integer, got ${show()}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected a boolean, got ${show()}`;
    case 'timestamp':
    case 'Time':
      return isRfc3339Utc(value) ? undefined : `expected an RFC 3339 UTC timestamp, got ${show()}`;
    case 'map of string to string':
      return isObject(value) && Object.values(value).every((v) => typeof v === 'string') ? undefined : `expected a map of string to string, got ${show()}`;
    case 'list of strings':
    case 'string array':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : `expected an array of strings, got ${show()}`;
    case 'integer or percentage string':
      return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^\d+%$/.test(value)) ? undefined : `expected an integer or a percentage string, got ${show()}`;
    case 'bytes':
      return value instanceof Uint8Array ? undefined : `expected bytes, got ${show()}`;
  }
  if (t.endsWith(' array') || t === 'array of the kind') {
    return Array.isArray(value) && value.every((v) => isObject(v)) ? undefined : `expected an array of ${t.replace(/ array$/, '')} objects, got ${show()}`;
  }
  // object, type-specific, and every named type (ObjectMeta, DeploymentSpec, Probe ...): a JSON object.
  return isObject(value) ? undefined : `expected an object (${t}), got ${show()}`;
}

/** Rules of a row the checks can judge on any value, beyond its type (format columns). */
export function formatProblem(row: FieldRow, value: unknown): string | undefined {
  if (row.format === 'DNS_LABEL' && typeof value === 'string' && (!DNS_LABEL.test(value) || value.length > 63)) return `expected a DNS_LABEL, got ${JSON.stringify(value)}`;
  return undefined;
}

export interface Sample {
  /** "apps/v1 Deployment", "apps/v1 DeploymentList", "v1 Pod" ... (the spec tables' kind notation) */
  kind: string;
  /** The decoded object or list. */
  body: unknown;
  /** Where it came from, for messages. */
  where: string;
}

export interface ShapeFinding {
  row: string;
  message: string;
}

function isList(kind: string): boolean {
  return kind.endsWith('List');
}

/** Whether a field row applies to a sample of this kind (directly, or through an embedded type). */
export function rowApplies(row: FieldRow, kind: string): boolean {
  if (row.kinds.includes(kind)) return true;
  if (row.kinds.includes('*') && !isList(kind) && kind.includes(' ')) return true;
  if (row.kinds.includes('*List') && isList(kind)) return true;
  return false;
}

/** The values a row's jsonPath reaches in a sample (several for container rows, none when absent). */
export function valuesAt(tables: SpecTables, row: FieldRow, kind: string, body: unknown): unknown[] {
  const [head, ...rest] = row.jsonPath.split('.');
  const embedded = tables.types.find((t) => t.jsonPathPrefix === head);
  if (embedded) {
    const at = embedded.embeddedAt.find((e) => e.kind === kind);
    if (!at) return [];
    const list = getPath(body, at.path.replace(/\[\]$/, ''));
    if (!Array.isArray(list)) return [];
    return list.map((item) => getPath(item, rest.join('.'))).filter((v) => v !== undefined);
  }
  const v = getPath(body, row.jsonPath);
  return v === undefined ? [] : [v];
}

function getPath(obj: unknown, path: string): unknown {
  if (path === '') return obj;
  let cur = obj;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** The JSON field rows (not the protobuf envelope's) that apply to any of these kinds. */
export function jsonFieldRows(tables: SpecTables, kinds: readonly string[]): FieldRow[] {
  return tables.fields.filter((r) => r.testable && !r.kinds.includes('protobuf envelope') && kinds.some((k) => rowApplies(r, k)));
}

/**
 * Type and format findings of every applicable row on every sample, and the rows that had a value somewhere.
 * A null where the spec gives a Time is tolerated for creationTimestamp of an export (wire facts: zero Time is
 * null) only when `allowNullTime` is set.
 */
export function shapeFindings(tables: SpecTables, rows: readonly FieldRow[], samples: readonly Sample[]): { findings: ShapeFinding[]; present: Set<string> } {
  const findings: ShapeFinding[] = [];
  const present = new Set<string>();
  for (const s of samples) {
    for (const row of rows) {
      if (!rowApplies(row, s.kind)) continue;
      for (const v of valuesAt(tables, row, s.kind, s.body)) {
        present.add(row.id);
        const problem = typeProblem(row.jsonType, v) ?? formatProblem(row, v);
        if (problem) findings.push({ row: row.id, message: `${s.where}: ${row.jsonPath}: ${problem}` });
      }
    }
  }
  return { findings, present };
}
