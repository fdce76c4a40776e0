// Volumes: a part of daemon-controllers.suite.ts.
import { check } from '../harness/check.ts';
import { expectTrue, fail } from '../harness/expect.ts';
import { busyScaled, sleep, within } from '../harness/progress.ts';
import type { KubeObject } from '../../simulator/api/meta.ts';
import { type Http, namespaceFor, runningPod, withControllers, withEnv } from './env.ts';

// Volumes (spec 8.2): the persistentvolume-binder, pvc-protection loops of the daemon under test on the check's
// simulator; the check plays the kubelet (recycler pods are marked Succeeded by it).

const PV_PATH = '/api/v1/persistentvolumes';
const pvcPathIn = (ns: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const phaseOfObj = (o: KubeObject | undefined) => (o?.status as { phase?: string } | undefined)?.phase;
const specOfObj = (o: KubeObject | undefined) => (o?.spec ?? {}) as Record<string, unknown>;
const pvBody = (name: string, source: Record<string, unknown>, storage: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', ...source, ...extra },
});
const pvcBody = (name: string, storage: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName: '', ...extra },
});

async function created(api: Http, path: string, body: unknown, what: string): Promise<KubeObject> {
  const r = await api.send('POST', path, body);
  if (r.status !== 201) fail(`setup: creating ${what} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
  return r.body as KubeObject;
}

check(
  'daemon-controllers.volume-binding',
  {
    rows: ['controller.persistentvolume-binder', 'option.pvclaimbinder-sync-period', 'option.enable-dynamic-provisioning', 'option.enable-hostpath-provisioner'],
    title: 'persistentvolume-binder: a claim is bound to the smallest fitting volume both ways, a claim made before its volume is bound on the next --pvclaimbinder-sync-period, and a claim of a kubernetes.io/host-path class is provisioned with --enable-hostpath-provisioner',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'bind');
      const flags = ['--pvclaimbinder-sync-period=1s', '--enable-dynamic-provisioning=true', '--enable-hostpath-provisioner'];
      await withControllers(env, 'persistentvolume-binder', flags, 'persistentvolume-binder', async () => {
        await created(api, PV_PATH, pvBody(`${ns}-big`, { hostPath: { path: `/tmp/${ns}-big` } }, '10Gi'), 'a 10Gi volume');
        await created(api, PV_PATH, pvBody(`${ns}-fit`, { hostPath: { path: `/tmp/${ns}-fit` } }, '2Gi'), 'a 2Gi volume');
        await created(api, pvcPathIn(ns), pvcBody('first', '1500Mi'), 'a claim');
        const claim = async (n: string) => api.get(`${pvcPathIn(ns)}/${n}`);
        const bound = await within(busyScaled(40_000), async () => (phaseOfObj(await claim('first')) === 'Bound' ? true : undefined));
        expectTrue(bound, `a claim of 1500Mi became Bound within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await claim('first'))?.status)})`, ['controller.persistentvolume-binder']);
        const c = await claim('first');
        const pv = await api.get(`${PV_PATH}/${ns}-fit`);
        expectTrue(specOfObj(c).volumeName === `${ns}-fit`, `the claim went to the smallest fitting volume ${ns}-fit (got ${String(specOfObj(c).volumeName)})`, ['controller.persistentvolume-binder']);
        const ref = specOfObj(pv).claimRef as { name?: string; uid?: string } | undefined;
        expectTrue(ref?.name === 'first' && ref.uid === c?.metadata.uid, `the volume's claimRef names the claim and its uid (got ${JSON.stringify(ref)})`, ['controller.persistentvolume-binder']);
        const pvBound = await within(busyScaled(30_000), async () => (phaseOfObj(await api.get(`${PV_PATH}/${ns}-fit`)) === 'Bound' ? true : undefined));
        expectTrue(pvBound, `the volume became Bound within ${busyScaled(30_000) / 1000} s`, ['controller.persistentvolume-binder']);

        // A claim first, its volume later: bound by a resync (1 s) — 1.9 does not look for waiting claims when a volume appears.
        await created(api, pvcPathIn(ns), pvcBody('early', '20Gi'), 'a claim no volume fits yet');
        await sleep(500);
        await created(api, PV_PATH, pvBody(`${ns}-late`, { hostPath: { path: `/tmp/${ns}-late` } }, '20Gi'), 'a late volume');
        const late = await within(12_000, async () => (specOfObj(await claim('early')).volumeName === `${ns}-late` && phaseOfObj(await claim('early')) === 'Bound' ? true : undefined));
        expectTrue(late, `--pvclaimbinder-sync-period=1s: a claim made before its volume was bound to it within 12 s (the default period: 15 s) (got ${JSON.stringify((await claim('early'))?.status)})`, ['option.pvclaimbinder-sync-period']);

        // Dynamic provisioning through the host-path provisioner.
        const cls = await api.send('POST', '/apis/storage.k8s.io/v1/storageclasses', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `${ns}-hp` }, provisioner: 'kubernetes.io/host-path' });
        if (cls.status !== 201) fail(`setup: creating a StorageClass answered ${cls.status}: ${JSON.stringify(cls.body).slice(0, 200)}`);
        const dyn = await created(api, pvcPathIn(ns), pvcBody('dynamic', '1Gi', { storageClassName: `${ns}-hp` }), 'a claim of the host-path class');
        const provisioned = await within(busyScaled(40_000), async () => (phaseOfObj(await claim('dynamic')) === 'Bound' ? true : undefined));
        expectTrue(provisioned, `with --enable-dynamic-provisioning and --enable-hostpath-provisioner a claim of a kubernetes.io/host-path class became Bound within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await claim('dynamic'))?.status)})`, ['option.enable-hostpath-provisioner', 'option.enable-dynamic-provisioning']);
        const made = await api.get(`${PV_PATH}/${String(specOfObj(await claim('dynamic')).volumeName)}`);
        const path = String((specOfObj(made).hostPath as { path?: string } | undefined)?.path);
        expectTrue(made?.metadata.name === `pvc-${dyn.metadata.uid}` && specOfObj(made).storageClassName === `${ns}-hp` && specOfObj(made).persistentVolumeReclaimPolicy === 'Delete' && path.startsWith('/tmp/'),
          `the provisioned volume is pvc-<claim uid> of the class, reclaim policy Delete, a host path under /tmp (got ${JSON.stringify({ name: made?.metadata.name, spec: made?.spec })})`, ['option.enable-hostpath-provisioner']);
      });
    });
  },
);

check(
  'daemon-controllers.volume-recycling',
  {
    rows: ['option.pv-recycler-minimum-timeout-hostpath', 'option.pv-recycler-timeout-increment-hostpath', 'option.pv-recycler-minimum-timeout-nfs', 'option.pv-recycler-increment-timeout-nfs', 'controller.persistentvolume-binder'],
    title: 'persistentvolume-binder: a released Recycle volume gets a recycler pod whose activeDeadlineSeconds is max(minimum, increment per whole Gi) of its plugin\'s --pv-recycler-* options, and is Available again once the pod succeeds',
    timeoutSeconds: 180,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'recycle');
      const flags = ['--pv-recycler-minimum-timeout-hostpath=10', '--pv-recycler-timeout-increment-hostpath=7', '--pv-recycler-minimum-timeout-nfs=20', '--pv-recycler-increment-timeout-nfs=3', '--pvclaimbinder-sync-period=1s'];
      await withControllers(env, 'persistentvolume-binder', flags, 'persistentvolume-binder', async () => {
        const cases = [
          { name: `${ns}-hp1`, source: { hostPath: { path: `/tmp/${ns}-1` } }, storage: '1Gi', deadline: 10, rows: ['option.pv-recycler-minimum-timeout-hostpath'] },
          { name: `${ns}-hp5`, source: { hostPath: { path: `/tmp/${ns}-5` } }, storage: '5Gi', deadline: 35, rows: ['option.pv-recycler-timeout-increment-hostpath'] },
          { name: `${ns}-nfs1`, source: { nfs: { server: 'nfs.example.com', path: `/exports/${ns}-1` } }, storage: '1Gi', deadline: 20, rows: ['option.pv-recycler-minimum-timeout-nfs'] },
          { name: `${ns}-nfs20`, source: { nfs: { server: 'nfs.example.com', path: `/exports/${ns}-20` } }, storage: '20Gi', deadline: 60, rows: ['option.pv-recycler-increment-timeout-nfs'] },
        ];
        for (const c of cases) {
          await created(api, PV_PATH, pvBody(c.name, c.source, c.storage, { persistentVolumeReclaimPolicy: 'Recycle', claimRef: { namespace: ns, name: c.name } }), `volume ${c.name}`);
          await created(api, pvcPathIn(ns), pvcBody(c.name, '1Gi'), `claim ${c.name}`);
        }
        for (const c of cases) {
          const bound = await within(busyScaled(40_000), async () => (phaseOfObj(await api.get(`${pvcPathIn(ns)}/${c.name}`)) === 'Bound' ? true : undefined));
          expectTrue(bound, `the claim pre-bound by ${c.name} became Bound within ${busyScaled(40_000) / 1000} s`, ['controller.persistentvolume-binder']);
          await api.send('DELETE', `${pvcPathIn(ns)}/${c.name}`);
        }
        for (const c of cases) {
          // The recycler pod (1.9: recycler-for-<volume>, in the template's namespace) is looked for anywhere.
          const pod = await within(busyScaled(40_000), async () => (await api.list('/api/v1/pods')).find((p) => p.metadata.name === `recycler-for-${c.name}`));
          expectTrue(pod !== undefined, `a recycler pod recycler-for-${c.name} appeared within ${busyScaled(40_000) / 1000} s of its claim's deletion`, ['controller.persistentvolume-binder']);
          const got = specOfObj(pod).activeDeadlineSeconds;
          expectTrue(got === c.deadline, `the recycler of a ${c.storage} ${Object.keys(c.source)[0]} volume has activeDeadlineSeconds ${c.deadline} (got ${String(got)})`, c.rows);
          // The check is the kubelet: the scrub succeeded.
          await api.send('PATCH', `/api/v1/namespaces/${pod!.metadata.namespace}/pods/${pod!.metadata.name}/status`, { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
        }
        for (const c of cases) {
          const available = await within(busyScaled(40_000), async () => (phaseOfObj(await api.get(`${PV_PATH}/${c.name}`)) === 'Available' ? true : undefined));
          expectTrue(available, `volume ${c.name} is Available again within ${busyScaled(40_000) / 1000} s of its recycler's success (got ${String(phaseOfObj(await api.get(`${PV_PATH}/${c.name}`)))})`, ['controller.persistentvolume-binder']);
        }
      });
    });
  },
);

check(
  'daemon-controllers.pvc-protection',
  {
    rows: ['controller.pvc-protection', 'gate.PVCProtection'],
    title: 'pvc-protection (gate PVCProtection): claims carry the kubernetes.io/pvc-protection finalizer; a deleted claim stays while a running pod uses it and goes once the pod is gone',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'protect');
      const kubelets = env.kubelets();
      const node = `${ns}-node`;
      await kubelets.add(node);
      await withControllers(env, 'pvc-protection', ['--feature-gates=PVCProtection=true'], 'pvc-protection', async () => {
        await created(api, pvcPathIn(ns), pvcBody('kept', '1Gi'), 'a claim');
        const claim = () => api.get(`${pvcPathIn(ns)}/kept`);
        const finalized = await within(busyScaled(40_000), async () => ((await claim())?.metadata.finalizers?.includes('kubernetes.io/pvc-protection') ? true : undefined));
        expectTrue(finalized, `the claim got the kubernetes.io/pvc-protection finalizer within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await claim())?.metadata.finalizers)})`, ['controller.pvc-protection', 'gate.PVCProtection']);
        await runningPod(api, ns, 'user', node, { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'kept' } }] });
        await sleep(1_000);
        await api.send('DELETE', `${pvcPathIn(ns)}/kept`);
        await sleep(3_000);
        const held = await claim();
        expectTrue(held?.metadata.deletionTimestamp != null, `a claim used by a running pod is still there 3 s after its deletion, marked (got ${held ? JSON.stringify(held.metadata) : 'gone'})`, ['controller.pvc-protection']);
        await api.send('DELETE', `/api/v1/namespaces/${ns}/pods/user`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
        const gone = await within(busyScaled(40_000), async () => ((await claim()) === undefined ? true : undefined));
        expectTrue(gone, `once its pod is gone the claim is deleted within ${busyScaled(40_000) / 1000} s`, ['controller.pvc-protection']);
      });
    });
  },
);
