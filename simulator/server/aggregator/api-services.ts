// The aggregator's loops of 1.9 in the API server: the APIServices of the server's own group versions written at
// start (automanaged "onstart", spec.service null: Local, always available), and the availability controller:
// an APIService naming a Service is Available when its Service exists, listens on 443, has Endpoints with an
// address, and answers a GET of /apis/<group>/<version> within 5 s (any status: 1.9 only needs a connection).
// Its condition is written to status; an available one joins /apis and its group's discovery, and every request
// under /apis/<group>/<version> is proxied to it (proxy.ts), an unavailable one answers 503. Checked again when
// the APIService, its Service or its Endpoints change, and every `checkIntervalMs`.

import type { Agent } from 'undici';
import { undici } from './undici-on-use.ts';
import type { KubeObject } from '../../api/meta.ts';
import { apiGroups, STORAGE_REFS } from '../../api/registry.ts';
import { StoreError, type StoreEvent, type WatchHandle } from '../../storage/store.ts';
import type { AggregatedApis, AggregatedBackend, ServerContext } from '../context.ts';
import { createStored, deleteStored, getStored, listStored, updateStored, watchStored } from '../registry/storage.ts';
import { hostOfUrl, resolveService } from '../service-resolver.ts';
import { localPriority } from './priorities.ts';

export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
const API_SERVICES = STORAGE_REFS.apiServices;
/** 1.9's discovery check timeout. */
const CHECK_TIMEOUT_MS = 5000;

interface ApiServiceSpec {
  service?: { namespace?: string; name?: string } | null;
  group?: string;
  version?: string;
  caBundle?: string;
  insecureSkipTLSVerify?: boolean;
  groupPriorityMinimum?: number;
  versionPriority?: number;
}
interface Condition { type: string; status: string; lastTransitionTime?: string; reason: string; message: string }

const LOCAL: Omit<Condition, 'type' | 'lastTransitionTime'> = { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

function timestamp(ctx: ServerContext): string {
  return ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The APIService 1.9 registers for one of the server's own group versions: "onstart" for the built-in ones,
 * "true" (kept in step for as long as the server runs) for those of custom resources.
 */
function localApiService(ctx: ServerContext, group: string, version: string, managed: 'onstart' | 'true'): KubeObject {
  const name = `${version}.${group}`;
  return {
    kind: 'APIService',
    apiVersion: 'apiregistration.k8s.io/v1beta1',
    metadata: {
      name, uid: crypto.randomUUID(), creationTimestamp: timestamp(ctx), labels: { [AUTOMANAGED_LABEL]: managed },
      selfLink: `/apis/apiregistration.k8s.io/v1beta1/apiservices/${name}`,
    },
    spec: { service: null, group, version, insecureSkipTLSVerify: false, ...localPriority(group, version) },
    status: { conditions: [{ type: 'Available', lastTransitionTime: timestamp(ctx), ...LOCAL }] },
  };
}

export interface ApiServiceControllerOptions {
  /** How often every aggregated APIService is checked again (1.9 resyncs its informers every 30 s). */
  checkIntervalMs?: number;
}

export class ApiServiceController implements AggregatedApis {
  private readonly backends = new Map<string, AggregatedBackend>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly watches: WatchHandle[] = [];
  private timer?: NodeJS.Timeout;
  private closed = false;
  private started = false;
  private customSync: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: ServerContext, private readonly opts: ApiServiceControllerOptions = {}) {}

  backendOf(group: string, version: string): AggregatedBackend | undefined {
    return this.backends.get(`${group}/${version}`);
  }

  available(): AggregatedBackend[] {
    return [...this.backends.values()].filter((b) => b.available);
  }

  async start(): Promise<void> {
    await this.registerLocal();
    this.started = true;
    await this.syncCustomResources();
    await this.follow();
    this.timer = setInterval(() => {
      for (const b of this.backends.values()) this.enqueue(b.name);
    }, this.opts.checkIntervalMs ?? 30_000);
    this.timer.unref();
  }

  /** Every change seen so far acted on (tests). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all(this.pending.values());
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const w of this.watches.splice(0)) w.stop();
    for (const b of this.backends.values()) void b.dispatcher.close();
    this.backends.clear();
  }

  /** A custom resource started or stopped being served: its group version's APIService follows (after start). */
  customResourcesChanged(): void {
    if (!this.started || this.closed) return;
    this.customSync = this.customSync.then(() => this.syncCustomResources()).catch(() => {});
  }

  /**
   * 1.9's CRD registration: an APIService (automanaged "true", priorities 1000 and 100) for each group version
   * custom resources are served at, removed when none is served there any more.
   */
  private async syncCustomResources(): Promise<void> {
    const wanted = new Map<string, KubeObject>();
    for (const d of this.ctx.registry.defs) {
      if (!d.customResourceDefinition) continue;
      const obj = localApiService(this.ctx, d.group, d.version, 'true');
      wanted.set(obj.metadata.name!, obj);
    }
    for (const [name, obj] of wanted) {
      if (await getStored(this.ctx, API_SERVICES, undefined, name)) continue;
      await createStored(this.ctx, API_SERVICES, undefined, name, obj).catch(() => {});
    }
    for (const item of (await listStored(this.ctx, API_SERVICES, undefined)).items) {
      const name = item.value.metadata.name!;
      if (item.value.metadata.labels?.[AUTOMANAGED_LABEL] !== 'true' || wanted.has(name)) continue;
      await deleteStored(this.ctx, API_SERVICES, undefined, name, item.modRevision).catch(() => {});
    }
  }

  /**
   * 1.9's autoregistration "onstart": each served group version's APIService, reset to the server's own; none for
   * apiregistration.k8s.io, which the aggregator serves and lists first itself.
   */
  private async registerLocal(): Promise<void> {
    const builtIn = this.ctx.registry.defs.filter((d) => !d.customResourceDefinition);
    const groups = apiGroups(builtIn).filter((g) => g.name !== 'apiregistration.k8s.io');
    const gvs: Array<[string, string]> = [['', 'v1'], ...groups.flatMap((g) => g.versions.map((v): [string, string] => [g.name, v]))];
    for (const [group, version] of gvs) {
      const want = localApiService(this.ctx, group, version, 'onstart');
      const name = want.metadata.name!;
      const cur = await getStored(this.ctx, API_SERVICES, undefined, name);
      if (!cur) {
        await createStored(this.ctx, API_SERVICES, undefined, name, want).catch((e: unknown) => {
          if (!(e instanceof StoreError && e.code === 'KeyExists')) throw e;
        });
      } else if (cur.value.metadata.labels?.[AUTOMANAGED_LABEL] === 'onstart' && JSON.stringify(cur.value.spec) !== JSON.stringify(want.spec)) {
        await updateStored(this.ctx, API_SERVICES, undefined, name, (c) => (c ? ({ ...c.value, spec: want.spec } as KubeObject) : undefined)).catch(() => {});
      }
    }
  }

  private async follow(): Promise<void> {
    const snap = await listStored(this.ctx, API_SERVICES, undefined);
    for (const item of snap.items) this.enqueue(item.value.metadata.name!);
    await this.idle();
    const restart = (reason: StoreError | undefined) => {
      if (this.closed || !(reason instanceof StoreError) || reason.code === 'Closed') return;
      for (const w of this.watches.splice(0)) w.stop();
      void this.follow().catch(() => {});
    };
    this.watches.push(watchStored(this.ctx, API_SERVICES, undefined, {
      fromRevision: snap.revision,
      onEvent: (ev: StoreEvent) => this.enqueue(ev.object.metadata.name!),
      onClose: restart,
    }));
    // A backend's Service or Endpoints changed: its APIServices are checked again.
    for (const ref of [STORAGE_REFS.services, STORAGE_REFS.endpoints]) {
      this.watches.push(watchStored(this.ctx, ref, undefined, {
        onEvent: (ev: StoreEvent) => {
          const m = ev.object.metadata;
          for (const b of this.backends.values()) if (b.service.namespace === m.namespace && b.service.name === m.name) this.enqueue(b.name);
        },
        onClose: restart,
      }));
    }
  }

  /** One reconcile per APIService at a time; a change meanwhile runs it once more after. */
  private enqueue(name: string): void {
    if (this.closed) return;
    const before = this.pending.get(name) ?? Promise.resolve();
    const next = before.then(() => this.reconcile(name)).catch(() => {});
    this.pending.set(name, next);
    void next.then(() => {
      if (this.pending.get(name) === next) this.pending.delete(name);
    });
  }

  private forget(name: string): void {
    for (const [gv, b] of this.backends) {
      if (b.name !== name) continue;
      this.backends.delete(gv);
      void b.dispatcher.close();
    }
  }

  private async reconcile(name: string): Promise<void> {
    if (this.closed) return;
    const cur = await getStored(this.ctx, API_SERVICES, undefined, name);
    const spec = (cur?.value.spec ?? {}) as ApiServiceSpec;
    if (!cur || cur.value.metadata.deletionTimestamp || !spec.service) {
      this.forget(name);
      if (cur && !cur.value.metadata.deletionTimestamp) await this.writeCondition(name, LOCAL);
      return;
    }
    const backend = this.backendFor(name, spec);
    const condition = await this.check(backend);
    if (this.closed) return;
    backend.available = condition.status === 'True';
    const gv = `${backend.group}/${backend.version}`;
    const old = this.backends.get(gv);
    if (old !== backend) {
      if (old && old.name !== name) return; // another APIService cannot name the same group version (names are <version>.<group>)
      this.forget(name);
      this.backends.set(gv, backend);
    }
    await this.writeCondition(name, condition);
  }

  /** The backend of this spec: the one already known when nothing that reaches it changed. */
  private backendFor(name: string, spec: ApiServiceSpec): AggregatedBackend {
    const gv = `${spec.group ?? ''}/${spec.version ?? ''}`;
    const service = { namespace: spec.service?.namespace ?? '', name: spec.service?.name ?? '' };
    const known = this.backends.get(gv);
    const same = known && known.name === name && known.service.namespace === service.namespace && known.service.name === service.name &&
      known.caBundle === spec.caBundle && known.insecureSkipTLSVerify === Boolean(spec.insecureSkipTLSVerify);
    if (known && same) {
      known.groupPriorityMinimum = spec.groupPriorityMinimum ?? 0;
      known.versionPriority = spec.versionPriority ?? 0;
      return known;
    }
    const ca = spec.caBundle ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined;
    return {
      name, group: spec.group ?? '', version: spec.version ?? '', service, caBundle: spec.caBundle, insecureSkipTLSVerify: Boolean(spec.insecureSkipTLSVerify),
      groupPriorityMinimum: spec.groupPriorityMinimum ?? 0, versionPriority: spec.versionPriority ?? 0, available: false,
      // The backend's certificate must name the Service (<name>.<namespace>.svc), as 1.9's proxy asks for.
      dispatcher: new (undici().Agent)({
        connect: { servername: `${service.name}.${service.namespace}.svc`, ...(spec.insecureSkipTLSVerify ? { rejectUnauthorized: false } : ca ? { ca } : {}) },
      }),
      resolve: async () => {
        const at = await resolveService(this.ctx, service.namespace, service.name, 443);
        return at.ok ? `https://${hostOfUrl(at.host)}:${at.port}` : undefined;
      },
    };
  }

  private async check(b: AggregatedBackend): Promise<Omit<Condition, 'type' | 'lastTransitionTime'>> {
    const at = await resolveService(this.ctx, b.service.namespace, b.service.name, 443);
    if (!at.ok) return { status: 'False', reason: at.reason, message: at.message };
    const url = `https://${hostOfUrl(at.host)}:${at.port}/apis/${b.group}/${b.version}`;
    // 1.9's check skips certificate verification and takes any answer: it asks whether discovery can be reached.
    const { Agent: Insecure, request } = undici();
    const insecure: Agent = new Insecure({ connect: { rejectUnauthorized: false, timeout: CHECK_TIMEOUT_MS } });
    try {
      const limits = { headersTimeout: CHECK_TIMEOUT_MS, bodyTimeout: CHECK_TIMEOUT_MS, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) };
      const res = await request(url, { dispatcher: insecure, ...limits });
      await res.body.dump();
      return { status: 'True', reason: 'Passed', message: 'all checks passed' };
    } catch (err) {
      return { status: 'False', reason: 'FailedDiscoveryCheck', message: `no response from ${url}: ${(err as Error).message}` };
    } finally {
      void insecure.close();
    }
  }

  private async writeCondition(name: string, c: Omit<Condition, 'type' | 'lastTransitionTime'>): Promise<void> {
    await updateStored(this.ctx, API_SERVICES, undefined, name, (cur) => {
      if (!cur || cur.value.metadata.deletionTimestamp) return undefined;
      const status = (cur.value.status ?? {}) as { conditions?: Condition[] };
      const old = (status.conditions ?? []).find((x) => x.type === 'Available');
      if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return undefined;
      const lastTransitionTime = old && old.status === c.status ? old.lastTransitionTime : timestamp(this.ctx);
      const next: Condition = { type: 'Available', status: c.status, lastTransitionTime, reason: c.reason, message: c.message };
      return { ...cur.value, status: { ...status, conditions: [...(status.conditions ?? []).filter((x) => x.type !== 'Available'), next] } } as KubeObject;
    }).catch(() => {});
  }
}
