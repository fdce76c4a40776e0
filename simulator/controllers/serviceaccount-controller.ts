// The service-account controller: every active namespace has a ServiceAccount named "default"; it is
// created when a namespace appears and again whenever it is deleted. Terminating namespaces are left alone
// (the API refuses new content in them). Work items are namespace names.

import type { KubeObject } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

const isActive = (ns: KubeObject | undefined) =>
  !!ns && !ns.metadata.deletionTimestamp && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';

export class ServiceAccountController implements Controller {
  readonly name = 'serviceaccount';

  async run(ctx: ControllerContext): Promise<void> {
    const namespaces = ctx.informers.informerFor(RESOURCE.namespaces.collection());
    const accounts = ctx.informers.informerFor(RESOURCE.serviceAccounts.collection());
    const queue = new WorkQueue<string>({ name: 'serviceaccount', metrics: ctx.metrics });
    namespaces.addEventHandler({
      onAdd: (ns) => queue.add(ns.metadata.name!),
      onUpdate: (_old, ns) => queue.add(ns.metadata.name!),
    });
    accounts.addEventHandler({
      onDelete: (sa) => {
        if (sa.metadata.name === DEFAULT_SERVICE_ACCOUNT && sa.metadata.namespace) queue.add(sa.metadata.namespace);
      },
    });
    // Both caches must be filled first: otherwise every namespace looks like it lacks its account.
    if (!(await namespaces.waitForSync(ctx.signal)) || !(await accounts.waitForSync(ctx.signal))) return;

    const reconcile = async (namespace: string) => {
      if (!isActive(namespaces.get(namespace))) return;
      if (accounts.get(`${namespace}/${DEFAULT_SERVICE_ACCOUNT}`)) return;
      try {
        await ctx.client.create(
          RESOURCE.serviceAccounts.collection(namespace),
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } },
          ctx.signal,
        );
      } catch (err) {
        // 409: it exists (the cache lags); 403: the namespace began terminating; 404: it is gone.
        if (err instanceof ApiError && [403, 404, 409].includes(err.code)) return;
        throw err;
      }
    };
    await runWorkers(queue, 1, reconcile, ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
  }
}

export const serviceAccountController = (): Controller => new ServiceAccountController();
