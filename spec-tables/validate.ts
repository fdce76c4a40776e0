// JSON Schema validation of a whole table document, with ajv errors turned into one
// SpecTableError that names the row and the field.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { SpecTableError, type RowLocation } from './errors.ts';

const validatorsByDir = new Map<string, Ajv>();

/** One ajv instance per schema directory, holding every schema there so $refs between them resolve. */
function ajvFor(schemaDir: string, displayDir: string): Ajv {
  let ajv = validatorsByDir.get(schemaDir);
  if (ajv) return ajv;
  // strictRequired is off: "then: required [reason]" names a property declared by the row schema, not by common.
  // ajv is loaded here, not at import: tables validated before (the cache below) never need it.
  const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  ajv = new AjvClass({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true });
  for (const name of readdirSync(schemaDir).filter((f) => f.endsWith('.schema.json')).sort()) {
    const text = readFileSync(join(schemaDir, name), 'utf8');
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch (e) {
      throw new SpecTableError(`${displayDir}/${name}`, `is not valid JSON: ${(e as Error).message}`);
    }
    try {
      ajv.addSchema(schema as object, name);
    } catch (e) {
      throw new SpecTableError(`${displayDir}/${name}`, `is not a valid schema: ${(e as Error).message}`);
    }
  }
  validatorsByDir.set(schemaDir, ajv);
  return ajv;
}

// Compiling the schemas costs more than a second of CPU, paid by every process that loads the tables (the
// simulator, each suite process, each daemon the daemon-options suite starts). A document that passed is
// remembered by a hash of its content and of every schema, in the temp directory: the same tables are not
// validated twice on one machine, while any change to a table or a schema is validated again.
const VALIDATED_DIR = join(tmpdir(), 'spec-tables-validated');
const schemaHashes = new Map<string, string>();

function schemaDirHash(schemaDir: string): string {
  let hash = schemaHashes.get(schemaDir);
  if (hash === undefined) {
    const h = createHash('sha256');
    for (const name of readdirSync(schemaDir).sort()) h.update(name).update('\0').update(readFileSync(join(schemaDir, name))).update('\0');
    hash = h.digest('hex');
    schemaHashes.set(schemaDir, hash);
  }
  return hash;
}

function validatedMarker(doc: unknown, opts: { schemaDir: string; schemaName: string }): string | undefined {
  try {
    const key = createHash('sha256').update(schemaDirHash(opts.schemaDir)).update(opts.schemaName).update('\0').update(JSON.stringify(doc)).digest('hex');
    return join(VALIDATED_DIR, key);
  } catch {
    return undefined;
  }
}

export function validateDocument(doc: unknown, opts: { schemaDir: string; schemaName: string; displayDir: string; displayFile: string }): void {
  const marker = validatedMarker(doc, opts);
  if (marker && existsSync(marker)) return;
  validateNow(doc, opts);
  try {
    mkdirSync(VALIDATED_DIR, { recursive: true });
    if (marker) writeFileSync(marker, '');
  } catch {
    // Only a cache.
  }
}

function validateNow(doc: unknown, opts: { schemaDir: string; schemaName: string; displayDir: string; displayFile: string }): void {
  const ajv = ajvFor(opts.schemaDir, opts.displayDir);
  let validate: ValidateFunction | undefined;
  try {
    validate = ajv.getSchema(opts.schemaName);
  } catch (e) {
    throw new SpecTableError(`${opts.displayDir}/${opts.schemaName}`, `cannot be compiled: ${(e as Error).message}`);
  }
  if (!validate) throw new SpecTableError(opts.displayFile, `has no schema (${opts.schemaName} is missing)`);
  if (validate(doc)) return;
  const error = (validate.errors ?? [])[0];
  if (!error) throw new SpecTableError(opts.displayFile, 'failed validation');
  throw toSpecTableError(doc, error, opts.displayFile);
}

/** instancePath is /<table>/<index>/<field...>; everything after the index is the field. */
function toSpecTableError(doc: unknown, error: ErrorObject, file: string): SpecTableError {
  const parts = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extraField = missingOrExtraField(error);
  if (parts.length < 2) {
    const field = parts.length === 1 ? `/${parts[0]}` : extraField !== undefined ? `/${extraField}` : undefined;
    return new SpecTableError(file, error.message ?? 'is invalid', undefined, field);
  }
  const [table, indexText, ...rest] = parts;
  const index = Number(indexText);
  const rowValue = (doc as Record<string, unknown[]>)[table]?.[index];
  const id = rowValue && typeof rowValue === 'object' && typeof (rowValue as { id?: unknown }).id === 'string' ? (rowValue as { id: string }).id : undefined;
  const row: RowLocation = { table, index, id };
  const fieldParts = extraField !== undefined ? [...rest, extraField] : rest;
  const field = fieldParts.length ? `/${fieldParts.join('/')}` : undefined;
  return new SpecTableError(file, describe(error), row, field);
}

function missingOrExtraField(error: ErrorObject): string | undefined {
  if (error.keyword === 'required') return String(error.params.missingProperty);
  if (error.keyword === 'additionalProperties') return String(error.params.additionalProperty);
  return undefined;
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a column of this table';
  if (error.keyword === 'enum') return `${error.message}: ${JSON.stringify(error.params.allowedValues)}`;
  return error.message ?? 'is invalid';
}
