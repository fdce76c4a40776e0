// PodSecurityPolicy admission (1.9, off unless --admission-control names it). A pod is judged against each
// PodSecurityPolicy that the requesting user or the pod's service account may `use` (extensions
// podsecuritypolicies, in the pod's namespace), by name (api/pod-security.ts applies one policy: its defaults,
// then its checks). A policy that allows the pod as it is wins; else, on create, the first by name that allows
// it once defaulted, and the pod is written with those defaults. On update only policies that allow the pod
// unchanged count (1.9 does not mutate on update). The policy used on create is recorded in the annotation
// kubernetes.io/psp (set once, on create). None: 403 "unable to validate against any pod security policy: [...]",
// or "no providers available to validate pod request" when the user may use none.

import type { KubeObject } from '../../api/meta.ts';
import { applyPodSecurityPolicy } from '../../api/pod-security.ts';
import { forbidden } from '../errors.ts';
import type { AdmissionAttributes, AdmissionHook } from './attributes.ts';
import type { ServerContext } from '../context.ts';
import { UNSECURED_USER } from '../authorization/filter.ts';
import { listStored, STORAGE_REFS } from '../registry/storage.ts';

export const PSP_ANNOTATION = 'kubernetes.io/psp';

async function mayUse(ctx: ServerContext, attrs: AdmissionAttributes, serviceAccount: string, name: string): Promise<boolean> {
  const user = attrs.user ?? UNSECURED_USER;
  const ask = async (u: { name: string; groups?: string[] }) => (await ctx.security.authorizer.authorize({
    user: { name: u.name, groups: u.groups ?? [] }, resourceRequest: true, verb: 'use', apiGroup: 'extensions', resource: 'podsecuritypolicies', name, namespace: attrs.namespace,
  })).decision === 'allow';
  if (await ask(user)) return true;
  const ns = attrs.namespace ?? '';
  return ask({ name: `system:serviceaccount:${ns}:${serviceAccount}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`] });
}

/** The object the store writes is the one the caller holds: the chosen policy's pod replaces it in place. */
function replaceInPlace(target: KubeObject, next: KubeObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, next);
}

export function podSecurityPolicy(ctx: ServerContext): AdmissionHook {
  return async (attrs) => {
    if (attrs.def.group !== '' || attrs.def.resource !== 'pods' || attrs.subresource !== undefined || !attrs.object) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const pod = attrs.object;
    const serviceAccount = ((pod.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName) || 'default';
    const all = (await listStored(ctx, STORAGE_REFS.podSecurityPolicies, undefined)).items.map((i) => i.value);
    all.sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    const usable: KubeObject[] = [];
    for (const p of all) if (await mayUse(ctx, attrs, serviceAccount, p.metadata.name ?? '')) usable.push(p);
    if (usable.length === 0) throw forbidden({ group: '', resource: 'pods' }, attrs.name, 'no providers available to validate pod request');
    const reasons: string[] = [];
    let firstMutating: { name: string; pod: KubeObject } | undefined;
    for (const p of usable) {
      const name = p.metadata.name ?? '';
      const outcome = applyPodSecurityPolicy(p, pod);
      if (outcome.errors.length) {
        reasons.push(...outcome.errors);
        continue;
      }
      if (!outcome.mutated) return annotate(attrs, pod, name);
      firstMutating ??= { name, pod: outcome.pod };
    }
    if (firstMutating && attrs.operation === 'CREATE') {
      replaceInPlace(pod, firstMutating.pod);
      attrs.mutated = true;
      return annotate(attrs, pod, firstMutating.name);
    }
    throw forbidden({ group: '', resource: 'pods' }, attrs.name, `unable to validate against any pod security policy: [${reasons.join(' ')}]`);
  };
}

function annotate(attrs: AdmissionAttributes, pod: KubeObject, name: string): void {
  if (attrs.operation !== 'CREATE' || pod.metadata.annotations?.[PSP_ANNOTATION] === name) return;
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [PSP_ANNOTATION]: name };
  attrs.mutated = true;
}
