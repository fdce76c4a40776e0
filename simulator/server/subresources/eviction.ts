// POST /api/v1/namespaces/<ns>/pods/<name>/eviction (policy/v1beta1 Eviction, the 1.9 EvictionREST): deletes the
// pod with the Eviction's deleteOptions, unless a PodDisruptionBudget forbids it:
//   - more than one budget selects the pod: 500 "This pod has more than one PodDisruptionBudget, which the
//     eviction subresource does not support.";
//   - the budget's status is older than its spec (observedGeneration < generation) or allows no disruption:
//     429 TooManyRequests "Cannot evict pod as it would violate the pod's disruption budget.";
//   - otherwise status.disruptionsAllowed is decremented and the pod recorded in status.disruptedPods (one
//     compare-and-swap write, so two evictions never take the same disruption), then the pod is deleted.
// Pods that already finished (Succeeded, Failed) are deleted without consulting budgets. Answers a Success Status
// (201) as the real subresource does. dryRun: the checks run, nothing is written.

import type { DeleteOptions, KubeObject } from '../../api/meta.ts';
import { matchesRequirements, requirementsOf, type LabelSelector } from '../../api/labels.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import { decodeBody } from '../serializers.ts';
import { deleteResource } from '../registry/store.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { nowTimestamp } from '../registry/system-meta.ts';
import { storeErrorToApi } from '../registry/store-errors.ts';
import { writeOptions } from '../handlers/write.ts';
import { copyJson } from '../../util/json-value.ts';
import { getStored, listStored, STORAGE_REFS, updateStored } from '../registry/storage.ts';
import { checkBodyType } from '../handlers/common.ts';

const PODS = { group: '', resource: 'pods' };
export const EVICTION_REFUSED = "Cannot evict pod as it would violate the pod's disruption budget.";

function tooManyRequests(message: string): ApiError {
  return new ApiError(429, 'TooManyRequests', message, undefined);
}

const selects = (pdb: KubeObject, pod: KubeObject) => {
  const sel = (pdb.spec as { selector?: LabelSelector } | undefined)?.selector;
  // A budget without a selector (or an empty one) selects nothing, as the 1.9 eviction REST reads it.
  if (!sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)) return false;
  return matchesRequirements(requirementsOf(sel), pod.metadata.labels ?? {});
};

export async function evictPod(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const ns = req.namespace!;
  const name = req.name!;
  const raw = req.body && req.body.length ? (decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf }) as Record<string, unknown>) : {};
  checkBodyType(raw, 'Eviction');
  if (raw.apiVersion !== undefined && raw.apiVersion !== 'policy/v1beta1') throw badRequest(`the API version in the data (${String(raw.apiVersion)}) does not match the expected API version (policy/v1beta1)`);
  const meta = (raw.metadata ?? {}) as { name?: unknown };
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`name in URL does not match name in Eviction object`);
  const deleteOptions = (raw.deleteOptions ?? {}) as DeleteOptions;
  const wopts = writeOptions(req);
  const pod = (await getStored(ctx, req.def, ns, name))?.value;
  if (!pod) throw notFound(PODS, name);
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase !== 'Succeeded' && phase !== 'Failed') {
    const { items } = await listStored(ctx, STORAGE_REFS.podDisruptionBudgets, ns);
    const budgets = items.map((i) => i.value).filter((b) => selects(b, pod));
    if (budgets.length > 1) throw new ApiError(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    if (budgets.length === 1) {
      const pdb = budgets[0];
      const check = (b: KubeObject) => {
        const st = (b.status ?? {}) as { observedGeneration?: number; disruptionsAllowed?: number };
        if ((st.observedGeneration ?? 0) < (b.metadata.generation ?? 1)) throw tooManyRequests(EVICTION_REFUSED);
        if ((st.disruptionsAllowed ?? 0) <= 0) throw tooManyRequests(EVICTION_REFUSED);
      };
      check(pdb);
      if (!wopts.dryRun) {
        await updateStored(ctx, STORAGE_REFS.podDisruptionBudgets, ns, pdb.metadata.name!, (cur) => {
          if (!cur) throw tooManyRequests(EVICTION_REFUSED);
          check(cur.value);
          const next = copyJson(cur.value) as KubeObject;
          const st = next.status as { disruptionsAllowed: number; disruptedPods?: Record<string, string> };
          st.disruptionsAllowed -= 1;
          st.disruptedPods = { ...(st.disruptedPods ?? {}), [name]: nowTimestamp(ctx) };
          next.metadata.resourceVersion = '0';
          return next;
        });
      }
    }
  }
  try {
    await deleteResource(ctx, req.def, ns, name, deleteOptions, wopts);
  } catch (e) {
    storeErrorToApi(e, req.def, name);
  }
  return { code: 201, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}
