// The cluster-role aggregation controller (1.9 clusterroleaggregation): a ClusterRole with an aggregationRule
// gets as its rules the rules of every other ClusterRole one of its selectors matches — selectors in order,
// matching roles by name, each distinct rule once — and is updated only when that differs from what it has.
// Any ClusterRole change re-checks every aggregating role (a label change can add or remove a source).

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../api/meta.ts';
import { matchesRequirements, requirementsOf, type LabelSelector } from '../api/labels.ts';
import { ApiError } from '../client/api-client.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import type { Informer } from '../client/informer.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { RESOURCE } from '../client/resource-paths.ts';


type Rule = Record<string, unknown>;
const selectorsOf = (cr: KubeObject): LabelSelector[] =>
  (cr as { aggregationRule?: { clusterRoleSelectors?: LabelSelector[] } }).aggregationRule?.clusterRoleSelectors ?? [];
const rulesOf = (cr: KubeObject): Rule[] => ((cr as { rules?: Rule[] }).rules ?? []);
const aggregates = (cr: KubeObject) => !!(cr as { aggregationRule?: unknown }).aggregationRule;

/** The rules an aggregating ClusterRole should have, given every ClusterRole. */
export function aggregatedRules(target: KubeObject, all: KubeObject[]): Rule[] {
  const out: Rule[] = [];
  const byName = [...all].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
  for (const sel of selectorsOf(target)) {
    let reqs;
    try {
      reqs = requirementsOf(sel);
    } catch {
      continue; // an invalid selector matches nothing (validation keeps them out anyway)
    }
    for (const cr of byName) {
      if (cr.metadata.name === target.metadata.name) continue;
      if (!matchesRequirements(reqs, cr.metadata.labels ?? {})) continue;
      for (const rule of rulesOf(cr)) if (!out.some((r) => isDeepStrictEqual(r, rule))) out.push(rule);
    }
  }
  return out;
}

export class ClusterRoleAggregationController implements Controller {
  readonly name = 'clusterrole-aggregation';
  readonly stats = { updated: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    const roles = ctx.informers.informerFor(RESOURCE.clusterRoles.collection());
    const queue = new WorkQueue<string>({ name: 'ClusterRoleAggregator', metrics: ctx.metrics });
    const enqueueAll = () => {
      for (const cr of roles.list()) if (aggregates(cr)) queue.add(cr.metadata.name!);
    };
    roles.addEventHandler({ onAdd: enqueueAll, onUpdate: enqueueAll, onDelete: enqueueAll });
    if (!(await roles.waitForSync(ctx.signal))) return;
    enqueueAll();
    await runWorkers(queue, 5, (name) => this.sync(ctx, roles, name), ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
  }

  private async sync(ctx: ControllerContext, roles: Informer, name: string): Promise<void> {
    const cr = roles.get(name);
    if (!cr || !aggregates(cr) || cr.metadata.deletionTimestamp) return;
    const rules = aggregatedRules(cr, roles.list());
    if (isDeepStrictEqual(rules, rulesOf(cr))) return;
    try {
      await ctx.client.update(RESOURCE.clusterRoles.named(name), { ...cr, rules } as KubeObject, ctx.signal);
      this.stats.updated++;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err; // 409: retried with backoff against the newer cached version
    }
  }
}

export const clusterRoleAggregationController = (): Controller => new ClusterRoleAggregationController();
