// The write options of a request (registry/store.ts WriteOptions), shared by every write handler.

import type { WriteOptions } from '../registry/store.ts';
import { badRequest } from '../errors.ts';
import type { ResourceRequest } from '../context.ts';

const DRY_RUN_VALUES = ['All'];

/**
 * The write options of a request: `dryRun=All` (query, or DeleteOptions.dryRun in a delete's body) runs every
 * step of the write but storing it; any other value is 400, as on servers that know dry runs (1.13+). The
 * requesting user goes along (kinds that record who asked, e.g. certificate signing requests).
 */
export function writeOptions(req: ResourceRequest, bodyDryRun?: unknown): WriteOptions {
  const values: unknown[] = [];
  if (req.query.dryRun !== undefined) values.push(req.query.dryRun);
  if (bodyDryRun !== undefined && bodyDryRun !== null) {
    if (!Array.isArray(bodyDryRun)) throw badRequest('dryRun must be a list of strings');
    values.push(...bodyDryRun);
  }
  for (const v of values) {
    if (typeof v !== 'string' || !DRY_RUN_VALUES.includes(v)) {
      throw badRequest(`Invalid dry run value: ${JSON.stringify(v)}: supported values: "${DRY_RUN_VALUES.join('", "')}"`);
    }
  }
  return values.length > 0 ? { dryRun: true, user: req.user } : { user: req.user };
}
