// The API server's own loops for CustomResourceDefinitions, as the real apiextensions server runs them beside
// its handlers: the naming controller (are the names free? → status.acceptedNames, NamesAccepted), the
// establishing controller (Established, and from then on the custom resource is served: registry, discovery,
// REST, watch), and the finalizer controller (a deleted CRD first loses every instance, then its
// `customresourcecleanup.apiextensions.k8s.io` finalizer, then itself). They read and write the store directly,
// as the real ones do through the server's own storage, and each change reaches watchers like any write.

import type { KubeObject } from '../api/meta.ts';
import type { ResourceDef } from '../api/registry.ts';
import { customResourceDefs, customResourceStorage } from '../api/custom-resource.ts';
import { CRD_CLEANUP_FINALIZER, effectiveVersions, type Crd, type CrdCondition, type CrdNames } from '../api/kinds/custom-resource-definition.ts';
import { StoreError, type StoredObject, type StoreEvent, type WatchHandle } from '../storage/store.ts';
import type { ServerContext } from './context.ts';
import { deleteStored, getStored, listStored, STORAGE_REFS, updateStored, watchStored } from './registry/storage.ts';

const CRDS = STORAGE_REFS.customResourceDefinitions;

function time(ctx: ServerContext): string {
  return ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Names of a CRD that another served resource of the same group already uses (the real naming controller's rules). */
function conflicts(crd: Crd, served: ResourceDef[]): { reason: string; message: string } | undefined {
  const n = crd.spec.names;
  const others = served.filter((d) => d.group === crd.spec.group && d.customResourceDefinition !== crd.metadata.name);
  for (const d of others) {
    const theirs = new Set([d.resource, d.singular, ...(d.shortNames ?? [])]);
    if (theirs.has(n.plural)) return { reason: 'PluralConflict', message: `"${n.plural}" is already in use` };
    if (n.singular && theirs.has(n.singular)) return { reason: 'SingularConflict', message: `"${n.singular}" is already in use` };
    for (const s of n.shortNames ?? []) if (theirs.has(s)) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
    if (d.kind === n.kind) return { reason: 'KindConflict', message: `"${n.kind}" is already in use` };
    if (`${d.kind}List` === (n.listKind ?? `${n.kind}List`)) return { reason: 'ListKindConflict', message: `"${n.listKind}" is already in use` };
  }
  return undefined;
}

function setCondition(conds: CrdCondition[], c: CrdCondition, now: string): CrdCondition[] {
  const old = conds.find((x) => x.type === c.type);
  const next = { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now };
  return [...conds.filter((x) => x.type !== c.type), next];
}

export class CustomResourceController {
  private watch?: WatchHandle;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  /** onServedChange: told whenever a custom resource starts or stops being served (the aggregator's registration). */
  constructor(private readonly ctx: ServerContext, private readonly onServedChange?: () => void) {}

  async start(): Promise<void> {
    const snap = await listStored(this.ctx, CRDS, undefined);
    for (const item of snap.items) await this.reconcile(item.value.metadata.name!);
    this.watch = watchStored(this.ctx, CRDS, undefined, {
      fromRevision: snap.revision,
      onEvent: (ev: StoreEvent) => this.enqueue(ev.object.metadata.name!),
      onClose: (reason) => {
        // The store ended the watch (it closed, or fell behind): pick up from the current state.
        if (!this.closed && reason instanceof StoreError && reason.code !== 'Closed') void this.start().catch(() => {});
      },
    });
  }

  /** Serialised: one CRD change at a time, in the order the store made them. */
  private enqueue(name: string): void {
    this.queue = this.queue.then(() => this.reconcile(name)).catch(() => {});
  }

  /** Waits until every change seen so far has been acted on (tests, and the server's close). */
  idle(): Promise<void> {
    return this.queue;
  }

  close(): void {
    this.closed = true;
    this.watch?.stop();
  }

  private served(crdName: string): ResourceDef[] {
    return this.ctx.registry.defs.filter((d) => d.customResourceDefinition === crdName);
  }

  private unserve(crdName: string): void {
    const served = this.served(crdName);
    for (const d of served) this.ctx.registry.remove(d);
    if (served.length) this.onServedChange?.();
  }

  private async reconcile(name: string): Promise<void> {
    if (this.closed) return;
    const cur = await getStored(this.ctx, CRDS, undefined, name);
    if (!cur) {
      this.unserve(name);
      return;
    }
    const crd = cur.value as Crd;
    if (crd.metadata.deletionTimestamp) return this.finalize(name, crd);

    const now = time(this.ctx);
    const clash = conflicts(crd, this.ctx.registry.defs);
    let conds = crd.status?.conditions ?? [];
    let acceptedNames: CrdNames = crd.status?.acceptedNames ?? { plural: '', kind: '' };
    if (clash) {
      conds = setCondition(conds, { type: 'NamesAccepted', status: 'False', reason: clash.reason, message: clash.message }, now);
      if (!conds.some((c) => c.type === 'Established'))
        conds = setCondition(conds, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
    } else {
      acceptedNames = { ...crd.spec.names };
      conds = setCondition(conds, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, now);
      conds = setCondition(
        conds,
        { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
        now,
      );
      // Served from now on, with the CRD's current versions, schemas and subresources.
      this.unserve(crd.metadata.name!);
      for (const d of customResourceDefs(crd)) this.ctx.registry.add(d);
      this.onServedChange?.();
    }
    const storage = effectiveVersions(crd.spec).find((v) => v.storage)?.name;
    const storedVersions = [...new Set([...(crd.status?.storedVersions ?? []), ...(storage && !clash ? [storage] : [])])];
    const status = { conditions: conds, acceptedNames, storedVersions };
    if (JSON.stringify(status) === JSON.stringify(crd.status)) return;
    await updateStored(this.ctx, CRDS, undefined, name, (c) => {
      if (!c || c.value.metadata.deletionTimestamp) return undefined;
      return { ...c.value, status } as KubeObject;
    })
      .catch(() => {});
  }

  /** The finalizer controller: stop serving, delete every instance, then let the CRD go. */
  private async finalize(name: string, crd: Crd): Promise<void> {
    const fins = crd.metadata.finalizers ?? [];
    const instances = customResourceStorage(crd);
    if (fins.includes(CRD_CLEANUP_FINALIZER)) {
      // New instances are refused from now on: the resource is no longer served.
      this.unserve(crd.metadata.name!);
      const now = time(this.ctx);
      const conds = setCondition(
        crd.status?.conditions ?? [],
        { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
        now,
      );
      const terminating = (c: StoredObject | undefined) =>
        c ? ({ ...c.value, status: { ...(c.value.status as object), conditions: conds } } as KubeObject) : undefined;
      await updateStored(this.ctx, CRDS, undefined, name, terminating).catch(() => {});
      for (;;) {
        const page = await listStored(this.ctx, instances, undefined, { limit: 500 });
        if (page.items.length === 0) break;
        for (const item of page.items) {
          const m = item.value.metadata;
          await deleteStored(this.ctx, instances, m.namespace, m.name!).catch(() => {});
        }
      }
    }
    const out = await updateStored(this.ctx, CRDS, undefined, name, (c) => {
      if (!c) return undefined;
      const rest = (c.value.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      // Nothing else holds it: gone, as the generic store removes an object whose last finalizer went.
      if (rest.length === 0) return null;
      if (rest.length === (c.value.metadata.finalizers ?? []).length) return undefined;
      return { ...c.value, metadata: { ...c.value.metadata, finalizers: rest } } as KubeObject;
    })
      .catch(() => undefined);
    if (out?.deleted) this.unserve(crd.metadata.name!);
  }
}
