// The bootstrap signer (1.9 bootstrapsigner): the ConfigMap kube-public/cluster-info carries, next to its
// `kubeconfig`, one `jws-kubeconfig-<token-id>` per bootstrap token that may sign (bootstrap-tokens.ts): a JWS
// in compact form with a detached payload ("<header>..<signature>"), HS256 keyed with the token secret over the
// kubeconfig text, header {"alg":"HS256","kid":"<token-id>"}. Signatures of tokens that are gone, expired or no
// longer allowed to sign are removed; the ConfigMap is written only when something changed. Any change to the
// ConfigMap or to a token in kube-system re-signs.

import { createHmac } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { isBootstrapToken, signingToken } from './kit/bootstrap-tokens.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const JWS_PREFIX = 'jws-kubeconfig-';
const TOKEN_NAMESPACE = 'kube-system';

/** JWS compact serialization with the payload detached (RFC 7515 appendix F). */
export function detachedJws(payload: string, tokenId: string, tokenSecret: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: tokenId })).toString('base64url');
  const input = `${header}.${Buffer.from(payload, 'utf8').toString('base64url')}`;
  const sig = createHmac('sha256', Buffer.from(tokenSecret, 'utf8')).update(input).digest('base64url');
  return `${header}..${sig}`;
}

export class BootstrapSigner implements Controller {
  readonly name = 'bootstrapsigner';
  readonly stats = { signed: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    const configMaps = ctx.informers.informerFor(RESOURCE.configMaps.collection(CLUSTER_INFO_NAMESPACE));
    const secrets = ctx.informers.informerFor(RESOURCE.secrets.collection(TOKEN_NAMESPACE));
    const queue = new WorkQueue<string>({ name: 'bootstrap_signer', metrics: ctx.metrics });
    const onCM = (cm: KubeObject) => {
      if (cm.metadata.name === CLUSTER_INFO_NAME) queue.add(CLUSTER_INFO_NAME);
    };
    const onSecret = (s: KubeObject) => {
      if (isBootstrapToken(s)) queue.add(CLUSTER_INFO_NAME);
    };
    configMaps.addEventHandler({ onAdd: onCM, onUpdate: (_o, cm) => onCM(cm) });
    secrets.addEventHandler({ onAdd: onSecret, onUpdate: (_o, s) => onSecret(s), onDelete: onSecret });
    if (!(await configMaps.waitForSync(ctx.signal)) || !(await secrets.waitForSync(ctx.signal))) return;
    let wakeAt = Infinity;
    const sign = async () => {
      const cm = configMaps.get(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}`);
      if (!cm || cm.metadata.deletionTimestamp) return;
      const data = ((cm as { data?: Record<string, string> }).data ?? {}) as Record<string, string>;
      const content = data.kubeconfig;
      if (content === undefined) return;
      const next: Record<string, string> = {};
      for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_PREFIX)) next[k] = v;
      const now = Date.now();
      let soonest = Infinity;
      for (const s of secrets.list()) {
        const token = signingToken(s, now);
        if (!token) continue;
        next[`${JWS_PREFIX}${token.id}`] = detachedJws(content, token.id, token.secret);
        const exp = Date.parse(Buffer.from(((s as { data?: Record<string, string> }).data ?? {}).expiration ?? '', 'base64').toString());
        if (Number.isFinite(exp)) soonest = Math.min(soonest, exp);
      }
      // A signature must go when its token expires, even if nothing else changes.
      // One timer at a time: only an earlier expiry (or a timer already past) schedules another.
      if (Number.isFinite(soonest) && (soonest + 1000 < wakeAt || wakeAt <= now)) {
        const delay = Math.min(2 ** 31 - 1, Math.max(0, soonest - now) + 1000);
        wakeAt = now + delay;
        queue.addAfter(CLUSTER_INFO_NAME, delay);
      }
      const same = Object.keys(next).length === Object.keys(data).length && Object.entries(next).every(([k, v]) => data[k] === v);
      if (same) return;
      try {
        await ctx.client.update(RESOURCE.configMaps.object(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME), { ...cm, data: next } as KubeObject, ctx.signal);
        this.stats.signed++;
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return;
        throw err; // 409: requeued with backoff; the cache then holds the newer version
      }
    };
    await runWorkers(queue, 1, sign, ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
  }
}

export const bootstrapSignerController = (): Controller => new BootstrapSigner();
