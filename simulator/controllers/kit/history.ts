// ControllerRevisions (apps/v1), the revision history of StatefulSets and DaemonSets as the real
// controller/history package keeps it: one immutable revision per distinct pod template, named
// `<owner>-<hash>`, labelled with the template's labels, owned by the workload (controller true), whose `data`
// is the patch that restores the template (`{"spec":{"template":{..., "$patch":"replace"}}}`, what `kubectl
// rollout undo` applies) and whose `revision` orders them. Going back to an older template reuses its revision
// and moves it to the top (revision = highest + 1); revisions neither current nor in use by a pod are pruned
// beyond spec.revisionHistoryLimit, oldest first.

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/meta.ts';
import type { ApiClient } from '../../client/api-client.ts';
import { controllerRefOf, isConflict, isNotFound, ownerRef, templateHash, type Obj } from './workload-util.ts';
import { RESOURCE } from '../../client/resource-paths.ts';

/** rand.SafeEncodeString: digits and letters that cannot spell words. */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
export function safeEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => SAFE[b % SAFE.length]).join('');
}

export const revisionsPath = (ns: string) => RESOURCE.controllerRevisions.collection(ns);

/** The patch a revision stores: the whole template, replacing whatever the owner has. */
export function revisionData(template: unknown): Obj {
  return { spec: { template: { ...((template ?? {}) as Obj), $patch: 'replace' } } };
}

/** The template a revision restores. */
export function templateOfRevision(rev: KubeObject): Obj | undefined {
  const t = ((rev.data as Obj | undefined)?.spec as Obj | undefined)?.template as Obj | undefined;
  if (!t) return undefined;
  const copy = { ...t };
  delete copy.$patch;
  return copy;
}

export const revisionNumber = (rev: KubeObject) => Number(rev.revision ?? 0);

/** Revisions this owner controls, oldest first. */
export function ownedRevisions(all: KubeObject[], owner: KubeObject): KubeObject[] {
  return all
    .filter((r) => r.metadata.namespace === owner.metadata.namespace && controllerRefOf(r)?.uid === owner.metadata.uid)
    .sort((a, b) => revisionNumber(a) - revisionNumber(b));
}

export interface HistoryOwner {
  apiVersion: string;
  kind: string;
  /** The hash of a revision's template: the name is `<owner>-<hash>`. */
  hashOf(template: unknown, collisionCount: number): string;
  /** Labels a new revision gets besides the template's (the DaemonSet's `controller-revision-hash`). */
  extraLabels?(template: unknown, collisionCount: number): Record<string, string>;
  /** Annotations a new revision gets (the DaemonSet's own, so `kubernetes.io/change-cause` shows in history). */
  annotations?: Record<string, string>;
}

/**
 * Finds or makes the revision of the owner's current template; returns it with the owner's revisions
 * (which the caller's cache may not show yet). A name taken by another template bumps collisionCount, which
 * the caller writes into status.
 */
export async function ensureRevision(
  client: ApiClient,
  owner: KubeObject,
  template: unknown,
  revisions: KubeObject[],
  h: HistoryOwner,
  signal?: AbortSignal,
): Promise<{ revision: KubeObject; revisions: KubeObject[]; collisionCount: number }> {
  const ns = owner.metadata.namespace ?? 'default';
  const data = revisionData(template);
  let collisionCount = Number((owner.status as Obj | undefined)?.collisionCount ?? 0);
  const max = revisions.reduce((m, r) => Math.max(m, revisionNumber(r)), 0);
  const same = revisions.filter((r) => isDeepStrictEqual(r.data, data));
  if (same.length > 0) {
    const rev = same[same.length - 1];
    if (revisionNumber(rev) === max) return { revision: rev, revisions, collisionCount };
    // Back to an older template: its revision becomes the newest.
    const bumped = await client.patch(
      `${revisionsPath(ns)}/${encodeURIComponent(rev.metadata.name ?? '')}`,
      { revision: max + 1 },
      'application/merge-patch+json',
      signal,
    );
    return { revision: bumped, revisions: revisions.map((r) => (r === rev ? bumped : r)), collisionCount };
  }
  const labels = ((template as Obj | undefined)?.metadata as Obj | undefined)?.labels as Record<string, string> | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const name = `${owner.metadata.name}-${h.hashOf(template, collisionCount)}`;
    const allLabels = { ...labels, ...h.extraLabels?.(template, collisionCount) };
    const body: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name,
        namespace: ns,
        ...(Object.keys(allLabels).length ? { labels: allLabels } : {}),
        ...(h.annotations && Object.keys(h.annotations).length ? { annotations: { ...h.annotations } } : {}),
        ownerReferences: [ownerRef(owner, h.apiVersion, h.kind)],
      },
      data,
      revision: max + 1,
    };
    try {
      const created = await client.create(revisionsPath(ns), body, signal);
      return { revision: created, revisions: [...revisions, created], collisionCount };
    } catch (err) {
      if (!(err as { code?: number }).code || (err as { code?: number }).code !== 409) throw err;
      // The name exists: ours with the same data (a cache that lags), or a hash collision.
      const existing = await client.get(`${revisionsPath(ns)}/${encodeURIComponent(name)}`, undefined, signal).catch(() => undefined);
      if (existing && controllerRefOf(existing)?.uid === owner.metadata.uid && isDeepStrictEqual(existing.data, data)) {
        return { revision: existing, revisions: [...revisions.filter((r) => r.metadata.name !== name), existing], collisionCount };
      }
      collisionCount++;
    }
  }
  throw new Error(`could not name a ControllerRevision for ${ns}/${owner.metadata.name}`);
}

/** Deletes the oldest revisions beyond the limit that are neither live (current, update) nor used by a pod. */
export async function pruneRevisions(client: ApiClient, revisions: KubeObject[], live: Set<string>, limit: number, signal?: AbortSignal): Promise<void> {
  const removable = revisions.filter((r) => !live.has(r.metadata.name ?? ''));
  const excess = removable.length - Math.max(0, limit);
  for (const r of removable.slice(0, Math.max(0, excess))) {
    await client.delete(`${revisionsPath(r.metadata.namespace ?? 'default')}/${encodeURIComponent(r.metadata.name ?? '')}`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: r.metadata.uid } }, signal).catch((err: unknown) => {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    });
  }
}

/** The StatefulSet naming: SafeEncodeString of the decimal FNV-32a of the revision's data (+ collision count). */
export function hashRevisionData(template: unknown, collisionCount: number): string {
  return safeEncode(templateHash(revisionData(template), collisionCount || undefined));
}
