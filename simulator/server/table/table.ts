// Server-side printing: a response object (one object of a served kind, or a list of them) as a
// meta.k8s.io Table (v1 or v1beta1, as the client asked with `Accept: application/json;as=Table;v=..;g=meta.k8s.io`).
// Rows carry the object as PartialObjectMetadata by default, the full object with includeObject=Object, or
// nothing with includeObject=None.

import type { Registry } from '../../api/registry.ts';
import { parseApiVersion } from '../../api/meta.ts';
import { badRequest } from '../errors.ts';
import { printerFor, type ColumnDefinition, type Printer, type RowCondition } from './printers.ts';

export type TableVersion = 'v1' | 'v1beta1';
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableRow {
  cells: unknown[];
  conditions?: RowCondition[];
  object: object | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { selfLink?: string; resourceVersion?: string; continue?: string };
  columnDefinitions: ColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  version: TableVersion;
  includeObject: IncludeObject;
  /** Milliseconds since the epoch: ages are computed against it. */
  now: number;
  /** false leaves columnDefinitions out (null), as watch events after the first do. */
  headers: boolean;
}

/** What a Table is built from: the printer of the item kind, and whether the object is a list. */
export interface TableSource {
  printer: Printer;
  kind: string;
  apiVersion: string;
  list: boolean;
}

/** The includeObject query parameter (default Metadata); any other value is 400, as on the real server. */
export function parseIncludeObject(v: string | undefined): IncludeObject {
  if (v === undefined || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'None' || v === 'Object') return v;
  throw badRequest(`unrecognized includeObject value: ${JSON.stringify(v)}`);
}

/**
 * Whether a response object has a Table form: an object of a kind the registry serves, or a list of one.
 * Anything else (Status, discovery documents, Scale) has none, and negotiation moves to the next acceptable type.
 */
export function tableSourceOf(registry: Registry, obj: object): TableSource | undefined {
  const o = obj as { kind?: unknown; apiVersion?: unknown; metadata?: unknown; items?: unknown };
  if (typeof o.kind !== 'string' || typeof o.apiVersion !== 'string') return undefined;
  const gv = parseApiVersion(o.apiVersion);
  if (o.kind.endsWith('List') && Array.isArray(o.items)) {
    const kind = o.kind.slice(0, -'List'.length);
    if (registry.byKind(gv.group, gv.version, kind)) return { printer: printerFor(kind), kind, apiVersion: o.apiVersion, list: true };
    return undefined;
  }
  if (!o.metadata || typeof o.metadata !== 'object') return undefined;
  if (!registry.byKind(gv.group, gv.version, o.kind)) return undefined;
  return { printer: printerFor(o.kind), kind: o.kind, apiVersion: o.apiVersion, list: false };
}

type Meta = Record<string, unknown> & { selfLink?: string; resourceVersion?: string; continue?: string };

/** The Table of a response object whose source tableSourceOf found. */
export function toTable(src: TableSource, obj: object, opts: TableOptions): Table {
  if (src.list) {
    const list = obj as { metadata?: Meta; items: Array<Record<string, unknown>> };
    const rows = list.items.map((item) => rowOf(src, { kind: src.kind, apiVersion: src.apiVersion, ...item }, opts));
    return tableOf(list.metadata, rows, src.printer, opts);
  }
  const one = obj as { metadata?: Meta };
  const meta = one.metadata ? { selfLink: one.metadata.selfLink, resourceVersion: one.metadata.resourceVersion } : undefined;
  return tableOf(meta, [rowOf(src, obj as Record<string, unknown>, opts)], src.printer, opts);
}

/** A one-row Table of one object of a known kind (watch events). */
export function objectTable(kind: string, apiVersion: string, obj: object, opts: TableOptions): Table {
  return toTable({ printer: printerFor(kind), kind, apiVersion, list: false }, obj, opts);
}

function tableOf(meta: Meta | undefined, rows: TableRow[], printer: Printer, opts: TableOptions): Table {
  const metadata: Table['metadata'] = {};
  if (meta?.selfLink) metadata.selfLink = meta.selfLink;
  if (meta?.resourceVersion) metadata.resourceVersion = meta.resourceVersion;
  if (meta?.continue) metadata.continue = meta.continue;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata,
    columnDefinitions: opts.headers ? printer.columns : null,
    rows,
  };
}

function rowOf(src: TableSource, obj: Record<string, unknown>, opts: TableOptions): TableRow {
  const printed = src.printer.row(obj, opts.now);
  let object: object | null;
  switch (opts.includeObject) {
    case 'Object':
      object = obj;
      break;
    case 'None':
      object = null;
      break;
    default:
      object = { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${opts.version}`, metadata: obj.metadata ?? {} };
  }
  const row: TableRow = { cells: printed.cells } as TableRow;
  if (printed.conditions) row.conditions = printed.conditions;
  row.object = object;
  return row;
}
