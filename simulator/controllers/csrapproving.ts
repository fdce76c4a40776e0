// The CSR approving controller (1.9 csrapproving, sarapprove.go): approves kubelet client certificate requests
// and nothing else. A pending request whose content is a node client certificate (O=system:nodes, CN
// system:node:<name>, no SANs, exactly the usages key encipherment + digital signature + client auth) is
// approved when a SubjectAccessReview for its requester (spec.username, groups, extra, uid) allows `create` on
// certificatesigningrequests/selfnodeclient (the requester is the node itself: CN = username) or
// certificatesigningrequests/nodeclient. The approval goes through /approval with reason AutoApproved.
// A request it does not recognise, or whose review is denied, is left pending for someone else.

import type { KubeObject } from '../api/meta.ts';
import { APPROVED, conditionsOf, isApproved, isDenied, isNodeClientRequest, parseRequest } from '../api/kinds/certificates.ts';
import { ApiError } from '../client/api-client.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import type { Informer } from '../client/informer.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { RESOURCE } from '../client/resource-paths.ts';

interface Recognizer {
  subresource: string;
  message: string;
  matches(csr: KubeObject, usages: string[], parsed: ReturnType<typeof parseRequest>): boolean;
}

const RECOGNIZERS: Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    matches: (csr, usages, p) => isNodeClientRequest(usages, p) && (csr.spec as { username?: string }).username === p.commonName,
  },
  {
    subresource: 'nodeclient',
    message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
    matches: (_csr, usages, p) => isNodeClientRequest(usages, p),
  },
];

export class CSRApprovingController implements Controller {
  readonly name = 'csrapproving';
  readonly stats = { approved: 0, reviewsDenied: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    const csrs = ctx.informers.informerFor(RESOURCE.certificateSigningRequests.collection());
    const queue = new WorkQueue<string>({ name: 'csrapproving', metrics: ctx.metrics });
    const enqueue = (o: KubeObject) => queue.add(o.metadata.name!);
    csrs.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n) });
    if (!(await csrs.waitForSync(ctx.signal))) return;
    await runWorkers(queue, 5, (name) => this.sync(ctx, csrs, name), ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
  }

  private async allowed(ctx: ControllerContext, csr: KubeObject, subresource: string): Promise<boolean> {
    const spec = (csr.spec ?? {}) as { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: spec.username ?? '',
        uid: spec.uid,
        groups: spec.groups ?? [],
        extra: spec.extra,
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource },
      },
    } as unknown as KubeObject;
    const answer = await ctx.client.create(RESOURCE.subjectAccessReviews.collection(), review, ctx.signal);
    return (answer.status as { allowed?: boolean } | undefined)?.allowed === true;
  }

  private async sync(ctx: ControllerContext, csrs: Informer, name: string): Promise<void> {
    const csr = csrs.get(name);
    if (!csr || csr.metadata.deletionTimestamp) return;
    if ((csr.status as { certificate?: string } | undefined)?.certificate || isApproved(csr) || isDenied(csr)) return;
    let parsed;
    try {
      parsed = parseRequest(csr);
    } catch (e) {
      ctx.log(`unable to parse csr ${name}: ${(e as Error).message}`);
      return; // the API validates requests; an unparseable one is no node's, and waits for a human
    }
    const usages = ((csr.spec as { usages?: string[] } | undefined)?.usages ?? []) as string[];
    const tried: string[] = [];
    for (const r of RECOGNIZERS) {
      if (!r.matches(csr, usages, parsed)) continue;
      tried.push(r.subresource);
      if (!(await this.allowed(ctx, csr, r.subresource))) continue;
      const condition = { type: APPROVED, status: 'True', reason: 'AutoApproved', message: r.message, lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
      try {
        await ctx.client.update(RESOURCE.certificateSigningRequests.named(name, 'approval'), { ...csr, status: { ...(csr.status as object), conditions: [...conditionsOf(csr), condition] } } as KubeObject, ctx.signal);
        this.stats.approved++;
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return;
        throw err;
      }
      return;
    }
    if (tried.length) {
      this.stats.reviewsDenied++;
      ctx.log(`recognized csr ${name} as [${tried.join(' ')}] but subject access review was not approved`);
    }
  }
}

export const csrApprovingController = (): Controller => new CSRApprovingController();
