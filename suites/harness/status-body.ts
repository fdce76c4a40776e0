// The shape of a Status body (spec 2.1 and wire facts 2): kind Status, apiVersion v1, a metadata object,
// status Success or Failure, code equal to the HTTP status, and for named errors reason and details.
import type { RawResponse } from './client.ts';
import { fail } from './expect.ts';

export interface ExpectedStatus {
  status: 'Success' | 'Failure';
  code: number;
  reason?: string;
  /** details.name and details.kind (the plural resource for NotFound, AlreadyExists, Conflict). */
  name?: string;
  detailsKind?: string;
}

export function expectStatusBody(res: RawResponse & { object?: unknown }, expected: ExpectedStatus, what: string, rows?: string | string[]): void {
  const body = res.object as Record<string, unknown> | undefined;
  const problems: string[] = [];
  if (!body || typeof body !== 'object') {
    fail(`${what}: expected a Status body, got ${res.mediaType || 'no Content-Type'} ${JSON.stringify(res.text().slice(0, 120))}`, rows);
  }
  if (body.kind !== 'Status') problems.push(`kind ${JSON.stringify(body.kind)} (expected "Status")`);
  if (body.apiVersion !== 'v1') problems.push(`apiVersion ${JSON.stringify(body.apiVersion)} (expected "v1")`);
  if (typeof body.metadata !== 'object' || body.metadata === null) problems.push('no metadata object');
  if (body.status !== expected.status) problems.push(`status ${JSON.stringify(body.status)} (expected "${expected.status}")`);
  if (body.code !== expected.code) problems.push(`code ${JSON.stringify(body.code)} (expected ${expected.code})`);
  if (expected.reason !== undefined && body.reason !== expected.reason) problems.push(`reason ${JSON.stringify(body.reason)} (expected "${expected.reason}")`);
  const details = (body.details ?? {}) as Record<string, unknown>;
  if (expected.name !== undefined && details.name !== expected.name) problems.push(`details.name ${JSON.stringify(details.name)} (expected "${expected.name}")`);
  if (expected.detailsKind !== undefined && details.kind !== expected.detailsKind) problems.push(`details.kind ${JSON.stringify(details.kind)} (expected "${expected.detailsKind}")`);
  if (problems.length > 0) fail(`${what}: Status body has ${problems.join(', ')}`, rows);
}
