// The spec as typed, validated rows: the single source of truth the simulator and the suites
// read their routes, defaults, options, gates and rules from.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml';
import { CATALOG, schemaFileOf } from './catalog.ts';
import { SpecTableError } from './errors.ts';
import { checkIntegrity, type LoadedRow } from './integrity.ts';
import { validateDocument } from './validate.ts';
import { DEFAULT_VENDOR, VENDOR_PLACEHOLDER, checkVendor, substituteVendor } from './vendor.ts';
import type {
  AuthenticationRow, BodyTypeRow, ControllerRow, DefaultRuleRow, EndpointRow, ErrorRow, FeatureGateRow, FieldRow, LimitRow,
  MediaTypeRow, NegotiationRow, OptionRow, PrefixRow, QueryParameterRow, RuleRow, SpecRow, SpecRowBase, TableName, TypeRow,
  VersioningRow,
} from './types.ts';

export * from './types.ts';
export { SpecTableError, type RowLocation } from './errors.ts';
export { parseDurationMs, formatDuration } from '../simulator/util/go-duration.ts';
export { DEFAULT_VENDOR } from './vendor.ts';

export const SPEC_TABLES_DIR = dirname(fileURLToPath(import.meta.url));

export interface LoadOptions {
  /** Replaces {vendor} in every string; default "kubernetes". */
  vendor?: string;
  /** Directory holding the YAML files and schemas/; default this module's directory. */
  dir?: string;
}

export interface SpecTables {
  readonly vendor: string;
  readonly dir: string;
  readonly prefixes: readonly PrefixRow[];
  readonly mediaTypes: readonly MediaTypeRow[];
  readonly negotiation: readonly NegotiationRow[];
  readonly queryParameters: readonly QueryParameterRow[];
  readonly endpoints: readonly EndpointRow[];
  readonly fields: readonly FieldRow[];
  readonly defaultRules: readonly DefaultRuleRow[];
  readonly types: readonly TypeRow[];
  readonly bodyTypes: readonly BodyTypeRow[];
  readonly rules: readonly RuleRow[];
  readonly errors: readonly ErrorRow[];
  readonly limits: readonly LimitRow[];
  readonly options: readonly OptionRow[];
  readonly controllers: readonly ControllerRow[];
  readonly featureGates: readonly FeatureGateRow[];
  readonly versioning: readonly VersioningRow[];
  readonly authentication: readonly AuthenticationRow[];
  /** Every row of every table, in file order. */
  readonly all: readonly SpecRow[];
  byId(id: string): SpecRow | undefined;
  /** Rows a black-box check can observe: the ones the suites must cover. */
  testableRows(): SpecRow[];
  /** "CORE/namespaces/<namespace>/configmaps" -> "/api/v1/namespaces/{namespace}/configmaps". */
  expandPrefix(specPath: string): string;
  /** By the exact name, with or without the leading dashes ("--x-api-qps" or "x-api-qps"). */
  optionByName(name: string): OptionRow | undefined;
  /** fieldRow("DeploymentSpec", "revisionHistoryLimit"). */
  fieldRow(type: string, field: string): FieldRow | undefined;
}

const TABLE_NAMES: readonly TableName[] = [
  'prefixes', 'mediaTypes', 'negotiation', 'queryParameters', 'endpoints', 'fields', 'defaultRules', 'types', 'bodyTypes', 'rules',
  'errors', 'limits', 'options', 'controllers', 'featureGates', 'versioning', 'authentication',
];

const cache = new Map<string, SpecTables>();

/** Loads, validates and caches (per vendor and directory) every table. Synchronous for start-up code. */
export function loadSpecTables(opts?: LoadOptions): SpecTables {
  // The tables of this folder for the default vendor, asked for on every defaulting and validation of a field
  // (api/kinds/table.ts): held apart, without the path resolution and key of the general case.
  if (opts === undefined || (opts.vendor === undefined && opts.dir === undefined)) return (defaultTables ??= loadSpecTablesFrom({}));
  return loadSpecTablesFrom(opts);
}

let defaultTables: SpecTables | undefined;

function loadSpecTablesFrom(opts: LoadOptions): SpecTables {
  const vendor = opts.vendor ?? DEFAULT_VENDOR;
  const dir = resolve(opts.dir ?? SPEC_TABLES_DIR);
  const key = `${vendor}\0${dir}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const displayDir = displayPath(dir);
  const vendorProblem = checkVendor(vendor);
  if (vendorProblem) throw new SpecTableError(displayDir, vendorProblem);
  const tables = build(readAll(dir, displayDir, vendor), vendor, dir);
  cache.set(key, tables);
  return tables;
}

function displayPath(dir: string): string {
  const rel = relative(process.cwd(), dir);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? dir : rel;
}

/**
 * The tables' documents, parsed and validated against their JSON Schemas, as JSON text with {vendor} in it.
 * Validation compiles a dozen schemas (the largest part of a process's start-up): a document set whose exact bytes
 * were validated before is read back from a cache keyed by the hash of every table and schema file, so the same
 * files are never judged twice and a changed byte anywhere is judged anew.
 */
function validatedDocumentsText(dir: string, displayDir: string): string {
  const hash = createHash('sha256');
  const texts = CATALOG.map((entry) => {
    try {
      return readFileSync(join(dir, entry.file), 'utf8');
    } catch (e) {
      throw new SpecTableError(`${displayDir}/${entry.file}`, `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  });
  for (const t of texts) hash.update(t).update('\0');
  try {
    for (const f of readdirSync(join(dir, 'schemas')).sort()) hash.update(f).update(readFileSync(join(dir, 'schemas', f))).update('\0');
  } catch {
    /* no schemas folder: validation below reports it */
  }
  const cacheDir = join(tmpdir(), 'cluster-api-conformance-spec-tables');
  const cacheFile = join(cacheDir, `${hash.digest('hex')}.json`);
  try {
    return readFileSync(cacheFile, 'utf8');
  } catch {
    /* not validated before: below */
  }
  const docs = CATALOG.map((entry, i) => {
    const displayFile = `${displayDir}/${entry.file}`;
    const doc = parseYamlText(texts[i], displayFile);
    validateDocument(doc, { schemaDir: join(dir, 'schemas'), schemaName: schemaFileOf(entry.file).slice('schemas/'.length), displayDir: `${displayDir}/schemas`, displayFile });
    return doc;
  });
  const text = JSON.stringify(docs);
  try {
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${cacheFile}.${process.pid}`;
    writeFileSync(tmp, text);
    renameSync(tmp, cacheFile); // atomic: a concurrent reader sees the whole file or none
  } catch {
    /* a read-only temp directory only costs the next start the validation */
  }
  return text;
}

/**
 * Every row of every table, with {vendor} replaced by the vendor word. The word is put into the documents' JSON
 * text before it is parsed (a lower-case word needs no escaping, and "{vendor}" none either), which replaces it in
 * every string and key at once: copying the parsed rows to replace it took 25 ms of each process's start.
 */
function readAll(dir: string, displayDir: string, vendor: string): LoadedRow[] {
  const rows: LoadedRow[] = [];
  const docs = JSON.parse(validatedDocumentsText(dir, displayDir).replaceAll(VENDOR_PLACEHOLDER, vendor)) as unknown[];
  for (const [i, entry] of CATALOG.entries()) {
    const displayFile = `${displayDir}/${entry.file}`;
    const doc = docs[i];
    for (const [table, fillIns] of Object.entries(entry.tables) as Array<[TableName, Record<string, unknown>]>) {
      const list = (doc as Record<string, Array<Record<string, unknown>>>)[table];
      const defaults = substituteVendor(fillIns, vendor);
      list.forEach((raw, index) => {
        const row = { ...defaults, ...raw, file: entry.file, table } as unknown as SpecRowBase & Record<string, unknown>;
        rows.push({ row, displayFile, index });
      });
    }
  }
  return rows;
}

function parseYamlText(text: string, displayFile: string): unknown {
  try {
    return loadYaml(text, { schema: CORE_SCHEMA });
  } catch (e) {
    throw new SpecTableError(displayFile, `is not valid YAML: ${(e as Error).message}`);
  }
}

function build(loaded: LoadedRow[], vendor: string, dir: string): SpecTables {
  checkIntegrity(loaded);
  const all = loaded.map((r) => deepFreeze(r.row) as unknown as SpecRow);
  const byTable = Object.fromEntries(TABLE_NAMES.map((t) => [t, [] as SpecRow[]])) as Record<TableName, SpecRow[]>;
  for (const row of all) byTable[row.table].push(row);
  const byId = new Map(all.map((r) => [r.id, r]));
  const options = byTable.options as OptionRow[];
  const optionsByName = new Map(options.map((o) => [o.name, o]));
  const fieldsByKey = new Map((byTable.fields as FieldRow[]).map((f) => [`${f.type}.${f.name}`, f]));
  const prefixes = byTable.prefixes as PrefixRow[];
  const tables: SpecTables = {
    vendor,
    dir,
    ...(Object.fromEntries(TABLE_NAMES.map((t) => [t, Object.freeze(byTable[t])])) as unknown as Record<TableName, never>),
    all: Object.freeze(all),
    byId: (id) => byId.get(id),
    testableRows: () => all.filter((r) => r.testable),
    expandPrefix: (specPath) => expandWith(prefixes, specPath),
    optionByName: (name) => optionsByName.get(name.startsWith('-') ? name : `--${name}`) ?? optionsByName.get(`--${name.replace(/^-+/, '')}`),
    fieldRow: (type, field) => fieldsByKey.get(`${type}.${field}`),
  };
  return Object.freeze(tables);
}

function expandWith(prefixes: readonly PrefixRow[], specPath: string): string {
  const [head, ...rest] = specPath.split('/');
  const prefix = prefixes.find((p) => p.prefix === head);
  if (!prefix) throw new Error(`unknown path prefix ${JSON.stringify(head)} in ${JSON.stringify(specPath)} (known: ${prefixes.map((p) => p.prefix).join(', ')})`);
  const tail = rest.join('/').replaceAll('<namespace>', '{namespace}').replaceAll('<name>', '{name}');
  return tail ? `${prefix.expandsTo}/${tail}` : prefix.expandsTo;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** expandPrefix against the default tables. */
export function expandPrefix(specPath: string, tables: SpecTables = loadSpecTables()): string {
  return tables.expandPrefix(specPath);
}

/** optionByName against the default tables (option names do not depend on the vendor word). */
export function optionByName(name: string, tables: SpecTables = loadSpecTables()): OptionRow | undefined {
  return tables.optionByName(name);
}

/** fieldRow against the default tables. */
export function fieldRow(type: string, field: string, tables: SpecTables = loadSpecTables()): FieldRow | undefined {
  return tables.fieldRow(type, field);
}
