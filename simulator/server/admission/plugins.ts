// --admission-control (the 1.9 flag): which admission plugins run, in the order given. Each plugin may have a
// mutating step (run first, in order, before the object is validated again) and a validating step (run after,
// in order). The default is the list 1.9's documentation recommends. 1.9 plugin names this simulator has no
// behaviour for are accepted and reported (`unsimulated`), so a real command line works; unknown names are refused
// as 1.9 refuses them.

import type { AdmissionHook } from './attributes.ts';
import type { ServerContext } from '../context.ts';
import { forbidden } from '../errors.ts';
import { namespaceLifecycle } from './namespace-lifecycle.ts';
import { limitRanger } from './limit-ranger.ts';
import { webhookAdmission } from './webhooks.ts';
import { podSecurityPolicy } from './pod-security-policy.ts';
import { serviceAccountAdmission } from './service-account.ts';
import { quotaAdmission } from '../quota-admission.ts';

/** 1.9's recommended --admission-control. */
export const RECOMMENDED_ADMISSION_CONTROL = [
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'PersistentVolumeLabel', 'DefaultStorageClass', 'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota',
];

/**
 * The default of an API server with no controller daemon behind it: the recommended list without ServiceAccount.
 * That plugin refuses every pod whose service account or token does not exist yet, and only the daemon makes
 * them; an API server run alone (a test's fake API, as envtest runs one) would refuse every pod. Naming the
 * plugin in --admission-control turns it on anyway.
 */
export const API_ALONE_ADMISSION_CONTROL = RECOMMENDED_ADMISSION_CONTROL.filter((n) => n !== 'ServiceAccount');

interface Plugin {
  mutating?: AdmissionHook;
  validating?: AdmissionHook;
  close?(): void;
}

/** The plugins with behaviour here. */
const PLUGINS: Record<string, (ctx: ServerContext, shared: { webhooks?: ReturnType<typeof webhookAdmission> }) => Plugin> = {
  AlwaysAdmit: () => ({}),
  AlwaysDeny: () => ({
    validating: (attrs) => {
      throw forbidden({ group: attrs.def.group, resource: attrs.def.resource }, attrs.name, 'admission control is denying all modifications');
    },
  }),
  NamespaceLifecycle: () => ({ validating: namespaceLifecycle }),
  LimitRanger: (ctx) => {
    const lr = limitRanger(ctx);
    return { mutating: lr.hook, close: lr.close };
  },
  PodSecurityPolicy: (ctx) => ({ mutating: podSecurityPolicy(ctx) }),
  ServiceAccount: (ctx) => ({ mutating: serviceAccountAdmission(ctx) }),
  MutatingAdmissionWebhook: (ctx, shared) => {
    shared.webhooks ??= webhookAdmission(ctx);
    return { mutating: shared.webhooks.mutating, close: shared.webhooks.close };
  },
  ValidatingAdmissionWebhook: (ctx, shared) => {
    shared.webhooks ??= webhookAdmission(ctx);
    return { validating: shared.webhooks.validating, close: shared.webhooks.close };
  },
  ResourceQuota: (ctx) => ({ validating: quotaAdmission(ctx) }),
};

/**
 * 1.9 plugins that change nothing here: they concern cloud and node features the simulator does not have, or
 * features it leaves out.
 */
const UNSIMULATED = new Set([
  'PersistentVolumeLabel', 'DefaultStorageClass', 'DefaultTolerationSeconds', 'Initializers', 'NodeRestriction', 'PodNodeSelector',
  'PodPreset', 'PodTolerationRestriction', 'Priority', 'AlwaysPullImages', 'DenyEscalatingExec', 'DenyExecOnPrivileged', 'EventRateLimit',
  'ExtendedResourceToleration', 'ImagePolicyWebhook', 'LimitPodHardAntiAffinityTopology', 'NamespaceAutoProvision', 'NamespaceExists',
  'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize', 'SecurityContextDeny', 'InitialResources', 'GenericAdmissionWebhook',
]);

export class AdmissionControlError extends Error {}

export interface AdmissionChain {
  mutating: AdmissionHook[];
  validating: AdmissionHook[];
  /** Names given that have no behaviour here. */
  unsimulated: string[];
  close(): void;
}

/** The chain of the flag's value (a comma list, or undefined for the recommended one). */
export function buildAdmissionChain(ctx: ServerContext, flag: string | readonly string[] | undefined, withDaemon = false): AdmissionChain {
  const names = flag === undefined ? (withDaemon ? RECOMMENDED_ADMISSION_CONTROL : API_ALONE_ADMISSION_CONTROL) : (Array.isArray(flag) ? flag.join(',') : (flag as string)).split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !PLUGINS[n] && !UNSIMULATED.has(n));
  if (unknown.length) throw new AdmissionControlError(`unknown admission plugin: ${unknown.join(', ')}`);
  const shared: { webhooks?: ReturnType<typeof webhookAdmission> } = {};
  const plugins = names.filter((n) => PLUGINS[n]).map((n) => PLUGINS[n](ctx, shared));
  const closers = new Set(plugins.flatMap((p) => (p.close ? [p.close] : [])));
  return {
    mutating: plugins.flatMap((p) => (p.mutating ? [p.mutating] : [])),
    validating: plugins.flatMap((p) => (p.validating ? [p.validating] : [])),
    unsimulated: names.filter((n) => UNSIMULATED.has(n)),
    close: () => closers.forEach((c) => c()),
  };
}

/** Checks the flag's names without building anything (command-line parsing). */
export function checkAdmissionControl(flag: string | readonly string[]): void {
  const names = (Array.isArray(flag) ? flag.join(',') : (flag as string)).split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !PLUGINS[n] && !UNSIMULATED.has(n));
  if (unknown.length) throw new AdmissionControlError(`unknown admission plugin: ${unknown.join(', ')}`);
}
