// The token cleaner (1.9 tokencleaner): deletes bootstrap token Secrets in kube-system whose `expiration` has
// passed (or does not parse), with a uid precondition so that a re-created Secret of the same name survives.
// The 1.9 loop looked only when a Secret changed (no resync); here a token that is not yet expired is also
// looked at again when it expires (the behaviour the real controller gained in 1.10), so that expiry alone
// removes it.

import type { KubeObject } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { expirationOf, isBootstrapToken, isExpired } from './kit/bootstrap-tokens.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const TOKEN_NAMESPACE = 'kube-system';
/** A timer cannot wait longer than about 24.8 days; later expiries are looked at again then. */
const MAX_WAIT_MS = 2 ** 31 - 1;

export class TokenCleaner implements Controller {
  readonly name = 'tokencleaner';
  readonly stats = { deleted: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    const secrets = ctx.informers.informerFor(RESOURCE.secrets.collection(TOKEN_NAMESPACE));
    const queue = new WorkQueue<string>({ name: 'token_cleaner', metrics: ctx.metrics });
    const enqueue = (s: KubeObject) => {
      if (isBootstrapToken(s)) queue.add(s.metadata.name!);
    };
    secrets.addEventHandler({ onAdd: enqueue, onUpdate: (_o, s) => enqueue(s) });
    if (!(await secrets.waitForSync(ctx.signal))) return;
    const reconcile = async (name: string) => {
      const s = secrets.get(`${TOKEN_NAMESPACE}/${name}`);
      if (!s || !isBootstrapToken(s) || s.metadata.deletionTimestamp) return;
      if (!isExpired(s)) {
        const exp = expirationOf(s);
        if (exp !== undefined) queue.addAfter(name, Math.min(MAX_WAIT_MS, Math.max(0, exp - Date.now()) + 1000));
        return;
      }
      try {
        await ctx.client.delete(RESOURCE.secrets.object(TOKEN_NAMESPACE, name), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: s.metadata.uid } }, ctx.signal);
        this.stats.deleted++;
        ctx.log(`deleted expired bootstrap token secret ${TOKEN_NAMESPACE}/${name}`);
      } catch (err) {
        if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
      }
    };
    await runWorkers(queue, 1, reconcile, ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
  }
}

export const tokenCleanerController = (): Controller => new TokenCleaner();
