// deployments/<name>/rollback: the Deployment's rollback storage (extensions/v1beta1, apps/v1beta1: the real
// registry's RollbackREST), a subresource of one kind, so it lives here rather than in the generic handlers.

import type { KubeObject } from '../../api/meta.ts';
import { apiVersionOf } from '../../api/meta.ts';
import { DEPLOYMENT_ROLLBACK_TO } from '../../api/kinds/deployment.ts';
import { validateAnnotations } from '../../api/validation/object-meta.ts';
import { badRequest, invalid, invalidValue, notFound, type FieldError } from '../errors.ts';
import { decodeBody } from '../serializers.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { groupResource } from '../registry/system-meta.ts';
import { getStored, updateStored } from '../registry/storage.ts';
import { writeOptions } from '../handlers/write-options.ts';
import { copyJson } from '../../util/json-value.ts';
import { checkBodyType } from '../handlers/common.ts';

/**
 * POST .../deployments/<name>/rollback (extensions/v1beta1, 1.9 RollbackREST): a DeploymentRollback body asks
 * the Deployment controller to go back to a revision (0 = the previous one). Like the real registry this writes
 * storage directly (no update strategy, so no generation bump): updatedAnnotations are merged into the
 * Deployment's annotations and spec.rollbackTo is set, which apps/v1 storage keeps in the annotation
 * DEPLOYMENT_ROLLBACK_TO (simulator/api/kinds/deployment.ts). Answers a Success Status, 200.
 */
export async function rollbackDeployment(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf }) as Record<string, unknown>;
  const apiVersion = apiVersionOf(def);
  checkBodyType(raw, 'DeploymentRollback');
  if (raw.apiVersion !== undefined && raw.apiVersion !== apiVersion) throw badRequest(`the API version in the data (${String(raw.apiVersion)}) does not match the expected API version (${apiVersion})`);
  const name = typeof raw.name === 'string' ? raw.name : '';
  const rollbackTo = (raw.rollbackTo ?? {}) as { revision?: unknown };
  const revision = rollbackTo.revision ?? 0;
  const errs: FieldError[] = [...validateAnnotations(raw.updatedAnnotations, 'updatedAnnotations')];
  if (!name) errs.push({ type: 'FieldValueRequired', field: 'name', detail: 'name is required' });
  if (typeof revision !== 'number' || !Number.isInteger(revision)) errs.push(invalidValue('rollback.revision', revision, 'must be an integer'));
  else if (revision < 0) errs.push(invalidValue('rollback.revision', revision, 'must be non-negative'));
  if (errs.length) throw invalid('DeploymentRollback', def.group, name, errs);
  if (name !== req.name) throw badRequest(`the name of the object (${name}) does not match the name on the URL (${req.name})`);
  const updatedAnnotations = (raw.updatedAnnotations ?? {}) as Record<string, string>;
  const { dryRun } = writeOptions(req);
  if (dryRun) {
    if (!(await getStored(ctx, def, req.namespace, name))) throw notFound(groupResource(def), name);
  } else await updateStored(ctx, def, req.namespace, name, (cur) => {
    if (!cur) throw notFound(groupResource(def), name);
    const next = copyJson(cur.value) as KubeObject;
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), ...updatedAnnotations, [DEPLOYMENT_ROLLBACK_TO]: String(revision) };
    next.metadata.resourceVersion = '0';
    return next;
  });
  return { code: 200, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: `rollback request for deployment "${name}" succeeded`, code: 200 } };
}
