// Assertions for checks. A failure can name the spec rows it disproves (`forRows`), so a check that covers
// several rows tells which one the target broke; untagged failures count against all the check's rows.
import type { RawResponse } from './client.ts';
import { canonicalJson, deepEqual } from './models/json.ts';

export const ROWS_PROPERTY = 'specRows';

export class CheckFailure extends Error {
  override name = 'CheckFailure';
  constructor(message: string, rows?: string[]) {
    super(message);
    if (rows) (this as unknown as Record<string, unknown>)[ROWS_PROPERTY] = rows;
  }
}

export function rowsOf(err: unknown): string[] | undefined {
  const rows = err && typeof err === 'object' ? (err as Record<string, unknown>)[ROWS_PROPERTY] : undefined;
  return Array.isArray(rows) ? rows.map(String) : undefined;
}

/** Runs fn; an error it throws is tagged with the rows (the innermost tag wins). */
export async function forRows<T>(rows: string | string[], fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err && typeof err === 'object' && !rowsOf(err)) {
      (err as Record<string, unknown>)[ROWS_PROPERTY] = Array.isArray(rows) ? rows : [rows];
    }
    throw err;
  }
}

export function fail(message: string, rows?: string | string[]): never {
  throw new CheckFailure(message, rows === undefined ? undefined : Array.isArray(rows) ? rows : [rows]);
}

/** A short description of a response for failure messages: status, type and the Status message if any. */
export function describeResponse(res: RawResponse): string {
  let detail = '';
  if (res.mediaType === 'application/json') {
    try {
      const body = JSON.parse(res.text()) as { kind?: string; message?: string };
      if (body?.kind === 'Status' && body.message) detail = `: ${body.message}`;
      else if (body?.kind) detail = ` (${body.kind})`;
    } catch {
      detail = ` (body not JSON: ${JSON.stringify(res.text().slice(0, 80))})`;
    }
  } else if (res.body.length > 0 && res.body.length < 200 && res.mediaType.startsWith('text/')) {
    detail = `: ${JSON.stringify(res.text())}`;
  }
  return `${res.status} ${res.mediaType || '(no Content-Type)'}${detail}`;
}

export function expectStatusCode(res: RawResponse, allowed: number | number[], what: string, rows?: string | string[]): void {
  const codes = Array.isArray(allowed) ? allowed : [allowed];
  if (!codes.includes(res.status)) {
    fail(`${what}: expected HTTP ${codes.join(' or ')}, got ${describeResponse(res)}`, rows);
  }
}

/**
 * Structural equality of JSON values: object key order carries no meaning (a map is a map whatever order its
 * keys arrive in; real servers sort them), array order does. undefined members count as absent.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === undefined || b === undefined) return false;
  return deepEqual(JSON.parse(JSON.stringify(a)) as unknown, JSON.parse(JSON.stringify(b)) as unknown);
}

/** Fails unless actual and expected are the same JSON value (key order of objects ignored; see sameJson). */
export function expectEqual<T>(actual: T, expected: T, what: string, rows?: string | string[]): void {
  if (!sameJson(actual, expected)) {
    fail(`${what}: expected ${canonicalJson(expected)}, got ${canonicalJson(actual)}`, rows);
  }
}

export function expectTrue(condition: unknown, message: string, rows?: string | string[]): asserts condition {
  if (!condition) fail(message, rows);
}
