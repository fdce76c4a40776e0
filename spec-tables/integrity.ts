// Checks that span rows or files, which JSON Schema cannot express: unique ids, ids that agree
// with the row's own name, and references from one row to another that must resolve.
import { SpecTableError } from './errors.ts';
import type { SpecRow, SpecRowBase } from './types.ts';

export interface LoadedRow {
  row: SpecRowBase & Record<string, unknown>;
  displayFile: string;
  index: number;
}

type Check = (rows: LoadedRow[], byId: Map<string, LoadedRow>) => void;

function fail(r: LoadedRow, field: string, detail: string): never {
  throw new SpecTableError(r.displayFile, detail, { table: r.row.table, index: r.index, id: r.row.id }, field);
}

/** The id a row must have, derived from its own columns, per table. */
const DERIVED_IDS: Partial<Record<string, (row: Record<string, unknown>) => string>> = {
  options: (row) => `option.${String(row.name).replace(/^-+/, '')}`,
  controllers: (row) => `controller.${row.name}`,
  featureGates: (row) => `gate.${row.name}`,
  fields: (row) => `field.${row.type}.${row.name}`,
  prefixes: (row) => `prefix.${row.prefix}`,
  types: (row) => `type.${row.name}`,
};

const idsAgreeWithNames: Check = (rows) => {
  for (const r of rows) {
    const derive = DERIVED_IDS[r.row.table];
    if (derive && derive(r.row) !== r.row.id) fail(r, '/id', `must be ${JSON.stringify(derive(r.row))} (derived from the row's name)`);
  }
};

/** Every column that holds another row's id, per table. */
const REFERENCE_COLUMNS: Partial<Record<string, string[]>> = {
  defaultRules: ['field'],
  rules: ['refs'],
  limits: ['refs'],
  versioning: ['refs'],
  authentication: ['refs'],
};

const referencesResolve: Check = (rows, byId) => {
  for (const r of rows) {
    for (const column of REFERENCE_COLUMNS[r.row.table] ?? []) {
      const value = r.row[column];
      const targets = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
      targets.forEach((target, i) => {
        if (!byId.has(String(target))) fail(r, Array.isArray(value) ? `/${column}/${i}` : `/${column}`, `names no row: ${JSON.stringify(target)}`);
      });
    }
    if (r.row.table === 'fields' && r.row.defaultRule !== null && !byId.has(`defaultRule.${r.row.defaultRule}`))
      fail(r, '/defaultRule', `names no row: defaultRule.${r.row.defaultRule}`);
  }
};

const defaultsWithinEnums: Check = (rows) => {
  for (const r of rows) {
    const { enum: values, default: def } = r.row as { enum?: unknown; default?: unknown };
    if (Array.isArray(values) && def !== null && def !== undefined && !Array.isArray(def) && !values.includes(def))
      fail(r, '/default', `must be one of ${JSON.stringify(values)}`);
  }
};

const optionReferencesResolve: Check = (rows) => {
  const names = new Set(rows.filter((r) => r.row.table === 'options').map((r) => r.row.name));
  for (const r of rows.filter((x) => x.row.table === 'authentication')) {
    ((r.row.options as string[] | null) ?? []).forEach((name, i) => {
      if (!names.has(name)) fail(r, `/options/${i}`, `names no option: ${JSON.stringify(name)}`);
    });
  }
  for (const r of rows.filter((x) => x.row.table === 'options')) {
    (r.row.constraints as Array<Record<string, unknown>>).forEach((c, i) => {
      for (const key of ['requires', 'atMost', 'affects', 'dependsOn', 'overrides'])
        if (c[key] !== undefined && !names.has(c[key])) fail(r, `/constraints/${i}/${key}`, `names no option: ${JSON.stringify(c[key])}`);
    });
  }
};

const endpointsAgreeWithPrefixes: Check = (rows) => {
  const prefixes = new Map(rows.filter((r) => r.row.table === 'prefixes').map((r) => [r.row.prefix as string, r.row]));
  for (const r of rows.filter((x) => x.row.table === 'endpoints')) {
    const e = r.row;
    const p = prefixes.get(e.prefix as string);
    if (!p) fail(r, '/prefix', `names no prefix row: ${JSON.stringify(e.prefix)}`);
    if (e.group !== p.group || e.version !== p.version) fail(r, '/group', `must be ${JSON.stringify(p.group)}/${p.version} (from prefix ${e.prefix})`);
    const expected = (p.expandsTo as string) + (e.specPath as string).slice((e.prefix as string).length).replace('<namespace>', '{namespace}').replace('<name>', '{name}');
    if (e.path !== expected) fail(r, '/path', `must be ${JSON.stringify(expected)} (specPath with its prefix expanded)`);
    if (!(e.specPath as string).startsWith(e.prefix as string)) fail(r, '/specPath', `must start with ${e.prefix}`);
  }
};

const CHECKS: Check[] = [idsAgreeWithNames, referencesResolve, defaultsWithinEnums, optionReferencesResolve, endpointsAgreeWithPrefixes];

/** Throws on the first problem; returns the id index on success. */
export function checkIntegrity(rows: LoadedRow[]): Map<string, LoadedRow> {
  const byId = new Map<string, LoadedRow>();
  for (const r of rows) {
    const first = byId.get(r.row.id);
    if (first) fail(r, '/id', `duplicates the id of ${first.displayFile} ${first.row.table}[${first.index}]`);
    byId.set(r.row.id, r);
  }
  for (const check of CHECKS) check(rows, byId);
  return byId;
}

export type { SpecRow };
