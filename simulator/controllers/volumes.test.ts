// The volume controllers through the API: persistentvolume-binder (binding, host-path provisioning, reclaim by
// Delete and Recycle with the recycler pod's deadline for two sizes and two option values, the sync period,
// dynamic provisioning on/off, the host-path provisioner on/off), pvc-protection, persistentvolume-expander,
// attachdetach (VolumeAttachments, node volumesAttached/volumesInUse, pods start only once attached, the
// reconcile sync period and its switch), the recycler template options (exit 2) and the FlexVolume folder.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, phaseOf, recordWatch, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import { startDaemon, type DaemonHandle } from './daemon/daemon.ts';
import { prepareOptions } from './config/command-line.ts';
import { UsageError } from './config/options.ts';
import { loadSpecTables } from '../../spec-tables/index.ts';
import { recyclerDeadlineSeconds } from './config/volume-plugins.ts';
import { volumeAttachmentName } from './attachdetach.ts';

type Obj = Record<string, unknown>;
const PVS = '/api/v1/persistentvolumes';
const CLASSES = '/apis/storage.k8s.io/v1/storageclasses';
// CSI attach is alpha in 1.9: VolumeAttachments at storage.k8s.io/v1alpha1, served only with --runtime-config.
const VAS = '/apis/storage.k8s.io/v1alpha1/volumeattachments';
const pvcs = (ns: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const spec = (o: KubeObject | undefined) => (o?.spec ?? {}) as Obj;
const status = (o: KubeObject | undefined) => (o?.status ?? {}) as Obj;
const tmp = mkdtempSync(join(tmpdir(), 'volumes-test-'));

const claim = (name: string, opts: { storage?: string; className?: string; volumeName?: string; modes?: string[] } = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: {
    accessModes: opts.modes ?? ['ReadWriteOnce'],
    resources: { requests: { storage: opts.storage ?? '1Gi' } },
    ...(opts.className !== undefined ? { storageClassName: opts.className } : {}),
    ...(opts.volumeName ? { volumeName: opts.volumeName } : {}),
  },
});
const volume = (name: string, source: Obj, opts: { storage?: string; policy?: string; claimRef?: Obj; className?: string } = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: {
    capacity: { storage: opts.storage ?? '1Gi' },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: opts.policy ?? 'Retain',
    ...(opts.className ? { storageClassName: opts.className } : {}),
    ...(opts.claimRef ? { claimRef: opts.claimRef } : {}),
    ...source,
  },
});
const podWith = (name: string, volumes: Obj[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image: 'nginx:1.13' }], volumes } });
const claimVolume = (claimName: string) => ({ name: 'data', persistentVolumeClaim: { claimName } });

async function events(api: Api, ns: string, name: string): Promise<Array<{ reason: string; message: string }>> {
  return (await api.list(`/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=${name}`)) as unknown as Array<{ reason: string; message: string }>;
}

test('recycler deadline: max(minimum, increment per whole Gi), as CalculateTimeoutForVolume', () => {
  assert.equal(recyclerDeadlineSeconds(60, 30, '1Gi'), 60);
  assert.equal(recyclerDeadlineSeconds(60, 30, '5Gi'), 150);
  assert.equal(recyclerDeadlineSeconds(60, 30, '2.5Gi'), 60);
  assert.equal(recyclerDeadlineSeconds(10, 30, '2.5Gi'), 60);
  assert.equal(recyclerDeadlineSeconds(300, 30, '500Mi'), 300);
  assert.equal(recyclerDeadlineSeconds(0, 7, '3000M'), 14); // 3e9 bytes = 2.79 Gi -> 2
});

test('--pv-recycler-pod-template-filepath-*: a missing, empty, malformed or volume-less template is exit 2 naming the option', () => {
  const tables = loadSpecTables();
  const file = (name: string, text: string) => {
    const p = join(tmp, name);
    writeFileSync(p, text);
    return p;
  };
  const cases: Array<[string, RegExp]> = [
    [join(tmp, 'missing.yaml'), /ENOENT/],
    [file('empty.yaml', '\n'), /file was empty/],
    [file('bad.yaml', 'kind: Pod\nspec: [unclosed'), /failed decoding file/],
    [file('svc.yaml', 'kind: Service\nspec: {}\n'), /is not a Pod/],
    [file('novol.yaml', 'kind: Pod\nspec:\n  containers: [{name: a, image: b}]\n'), /does not contain any volume/],
  ];
  for (const opt of ['--pv-recycler-pod-template-filepath-hostpath', '--pv-recycler-pod-template-filepath-nfs']) {
    for (const [path, re] of cases) {
      assert.throws(
        () => prepareOptions([`${opt}=${path}`], tables),
        (e: unknown) => e instanceof UsageError && e.exitCode === 2 && e.message.includes(`"${opt}"`) && re.test(e.message),
        `${opt}=${path}`,
      );
    }
    assert.doesNotThrow(() => prepareOptions([`${opt}=${file('ok.yaml', 'kind: Pod\nspec:\n  volumes: [{name: vol}]\n  containers: [{name: a, image: b}]\n')}`], tables));
  }
});

describe('persistentvolume-binder with the host-path provisioner, pvc-protection and the expander', () => {
  let env: WorkloadEnv;
  let api: Api;
  const flexDir = join(tmp, 'flex');
  before(async () => {
    mkdirSync(join(flexDir, 'example.com~lvm'), { recursive: true });
    mkdirSync(join(flexDir, 'acme~nas'), { recursive: true });
    writeFileSync(join(flexDir, 'not-a-plugin'), '');
    env = await startWorkloadEnv({
      controllers: ['persistentvolume-binder', 'pvc-protection', 'persistentvolume-expander', 'attachdetach'],
      flags: ['--enable-hostpath-provisioner', '--pvclaimbinder-sync-period=1s', '--feature-gates=PVCProtection=true,ExpandPersistentVolumes=true', `--flex-volume-plugin-dir=${flexDir}`],
      nodes: { count: 2 },
    });
    api = new Api(env.url);
    await api.create(CLASSES, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'hp' }, provisioner: 'kubernetes.io/host-path', allowVolumeExpansion: true });
    await api.create(CLASSES, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fixed' }, provisioner: 'kubernetes.io/host-path' });
  });
  after(async () => env?.close());

  test('a claim of the host-path class is provisioned and bound; a pod using it runs; deleting the pod then the claim releases and deletes the volume', async () => {
    const ns = await api.namespace('vol');
    const pvWatch = await recordWatch(env.url, PVS);
    try {
      const c = await api.create(pvcs(ns), claim('data', { className: 'hp' }));
      const bound = await eventually('claim Bound', async () => {
        const got = await api.get(`${pvcs(ns)}/data`);
        return phaseOf(got!) === 'Bound' ? got : undefined;
      });
      const pvName = `pvc-${c.metadata.uid}`;
      assert.equal(spec(bound).volumeName, pvName);
      assert.equal(bound!.metadata.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
      assert.deepEqual(status(bound).capacity, { storage: '1Gi' });
      assert.deepEqual(status(bound).accessModes, ['ReadWriteOnce']);
      assert.ok(bound!.metadata.finalizers?.includes('kubernetes.io/pvc-protection'), 'pvc-protection finalizer');
      const pv = await eventually('volume Bound', async () => {
        const got = await api.get(`${PVS}/${pvName}`);
        return phaseOf(got!) === 'Bound' ? got : undefined;
      });
      assert.match(String((spec(pv).hostPath as Obj).path), /^\/tmp\/hostpath_pv\/[0-9a-f-]{36}$/);
      assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'kubernetes.io/host-path');
      assert.equal(spec(pv).persistentVolumeReclaimPolicy, 'Delete');
      assert.equal(spec(pv).storageClassName, 'hp');
      assert.equal((spec(pv).claimRef as Obj).uid, c.metadata.uid);
      // Events are written after the objects, asynchronously (event-recorder.ts): polled, not read once.
      await eventually('ProvisioningSucceeded event', async () => (await events(api, ns, 'data')).some((e) => e.reason === 'ProvisioningSucceeded'));

      await api.create(pods(ns), podWith('user', [claimVolume('data')]));
      await eventually('pod Running', async () => phaseOf((await api.get(`${pods(ns)}/user`))!) === 'Running');

      // pvc-protection: the claim stays (marked) while the pod uses it.
      assert.equal(await api.delete(`${pvcs(ns)}/data`), 200);
      await new Promise((r) => setTimeout(r, 1500));
      const held = await api.get(`${pvcs(ns)}/data`);
      assert.ok(held?.metadata.deletionTimestamp, 'the claim is marked for deletion');
      assert.equal(phaseOf((await api.get(`${PVS}/${pvName}`))!), 'Bound');

      assert.equal(await api.delete(`${pods(ns)}/user`), 200);
      await eventually('claim gone', async () => (await api.get(`${pvcs(ns)}/data`)) === undefined);
      await eventually('volume deleted', async () => (await api.get(`${PVS}/${pvName}`)) === undefined);
      // The watch may trail the GETs: wait for its DELETED before reading the phases it saw.
      const ofVolume = () => pvWatch.events.filter((e) => e.object.metadata.name === pvName);
      await eventually('DELETED on the watch', async () => ofVolume().some((e) => e.type === 'DELETED'));
      const phases = ofVolume().map((e) => `${e.type}:${phaseOf(e.object) ?? ''}`);
      assert.ok(phases.includes('MODIFIED:Released'), phases.join(' '));
      assert.equal(phases.at(-1)?.split(':')[0], 'DELETED');
    } finally {
      pvWatch.stop();
    }
  });

  test('Recycle: the released volume is scrubbed by a recycler pod with the default deadline, then Available and unbound', async () => {
    const ns = await api.namespace('vol');
    const podWatch = await recordWatch(env.url, '/api/v1/namespaces/default/pods');
    try {
      const c = await api.create(pvcs(ns), claim('scratch', { className: 'hp', storage: '5Gi' }));
      const pvName = `pvc-${c.metadata.uid}`;
      await eventually('claim Bound', async () => phaseOf((await api.get(`${pvcs(ns)}/scratch`))!) === 'Bound');
      await api.patch(`${PVS}/${pvName}`, { spec: { persistentVolumeReclaimPolicy: 'Recycle' } });
      await api.create(pods(ns), podWith('user', [claimVolume('scratch')]));
      await eventually('pod Running', async () => phaseOf((await api.get(`${pods(ns)}/user`))!) === 'Running');
      assert.equal(await api.delete(`${pods(ns)}/user`), 200);
      await eventually('pod gone', async () => (await api.get(`${pods(ns)}/user`)) === undefined);
      assert.equal(await api.delete(`${pvcs(ns)}/scratch`), 200);
      const pv = await eventually('volume Available again', async () => {
        const got = await api.get(`${PVS}/${pvName}`);
        return phaseOf(got!) === 'Available' ? got : undefined;
      }, 30_000);
      assert.equal(spec(pv).claimRef, undefined, 'a binding the controller made is removed');
      // The watch may trail the GETs: its events are waited for, not read once.
      const recycler = await eventually('a recycler pod was made', async () =>
        podWatch.events.find((e) => e.type === 'ADDED' && e.object.metadata.name === `recycler-for-${pvName}`),
      );
      assert.equal(spec(recycler.object).activeDeadlineSeconds, 150); // max(60, 30 * 5)
      assert.equal(spec(recycler.object).restartPolicy, 'Never');
      assert.deepEqual((spec(recycler.object).volumes as Obj[])[0], { name: 'vol', hostPath: { path: (spec(pv).hostPath as Obj).path } });
      await eventually('the recycler pod is deleted afterwards', async () =>
        podWatch.events.some((e) => e.type === 'DELETED' && e.object.metadata.name === `recycler-for-${pvName}`),
      );
    } finally {
      podWatch.stop();
    }
  });

  test('--pvclaimbinder-sync-period 1s: a claim made before its volume is bound on the next resync', async () => {
    const ns = await api.namespace('vol');
    await api.create(pvcs(ns), claim('late', { className: '' }));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(phaseOf((await api.get(`${pvcs(ns)}/late`))!), 'Pending');
    await api.create(PVS, volume(`late-${ns}`, { hostPath: { path: `/tmp/late-${ns}` } }));
    await eventually('bound by a resync', async () => phaseOf((await api.get(`${pvcs(ns)}/late`))!) === 'Bound', 10_000);
    assert.equal(spec(await api.get(`${pvcs(ns)}/late`)).volumeName, `late-${ns}`);
  });

  test('matching: smallest fitting volume of the class, access modes and selector; pre-bound pairs both ways', async () => {
    const ns = await api.namespace('vol');
    const hp = (n: string) => ({ hostPath: { path: `/tmp/${n}` } });
    await api.create(PVS, { ...volume(`big-${ns}`, hp('big'), { storage: '10Gi', className: 'manual' }), metadata: { name: `big-${ns}`, labels: { tier: 'gold' } } });
    await api.create(PVS, { ...volume(`small-${ns}`, hp('small'), { storage: '2Gi', className: 'manual' }), metadata: { name: `small-${ns}`, labels: { tier: 'gold' } } });
    await api.create(PVS, volume(`tiny-${ns}`, hp('tiny'), { storage: '1Gi', className: 'manual' }));
    await api.create(PVS, volume(`rwx-${ns}`, hp('rwx'), { storage: '3Gi', className: 'other' }));
    await api.create(PVS, volume(`reserved-${ns}`, hp('reserved'), { storage: '1Gi', claimRef: { namespace: ns, name: 'wants-reserved' } }));
    await api.create(PVS, volume(`named-${ns}`, hp('named'), { storage: '1Gi' }));
    const c1 = { ...claim('gold', { storage: '1500Mi', className: 'manual' }) };
    (c1.spec as Obj).selector = { matchLabels: { tier: 'gold' } };
    await api.create(pvcs(ns), c1);
    await api.create(pvcs(ns), claim('wants-reserved', { className: '' }));
    await api.create(pvcs(ns), claim('by-name', { className: '', volumeName: `named-${ns}` }));
    const volOf = (n: string) => eventually(`claim ${n} Bound`, async () => {
      const got = await api.get(`${pvcs(ns)}/${n}`);
      return phaseOf(got!) === 'Bound' ? String(spec(got).volumeName) : undefined;
    });
    assert.equal(await volOf('gold'), `small-${ns}`);
    assert.equal(await volOf('wants-reserved'), `reserved-${ns}`);
    assert.equal(await volOf('by-name'), `named-${ns}`);
    const named = await api.get(`${PVS}/named-${ns}`);
    assert.equal((spec(named).claimRef as Obj).name, 'by-name');
    await eventually('named volume Bound', async () => phaseOf((await api.get(`${PVS}/named-${ns}`))!) === 'Bound');
    assert.equal(phaseOf((await api.get(`${PVS}/tiny-${ns}`))!), 'Available');
    // Retain: the released volume keeps its data and its claimRef.
    await api.delete(`${pvcs(ns)}/wants-reserved`);
    const released = await eventually('Released', async () => {
      const got = await api.get(`${PVS}/reserved-${ns}`);
      return phaseOf(got!) === 'Released' ? got : undefined;
    });
    assert.equal((spec(released).claimRef as Obj).name, 'wants-reserved');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(phaseOf((await api.get(`${PVS}/reserved-${ns}`))!), 'Released');
  });

  test('Delete of a volume outside /tmp fails (host-path deleter), a claim whose volume is deleted is Lost', async () => {
    const ns = await api.namespace('vol');
    await api.create(PVS, volume(`etc-${ns}`, { hostPath: { path: '/etc/data' } }, { policy: 'Delete', claimRef: { namespace: ns, name: 'c' } }));
    await api.create(pvcs(ns), claim('c', { className: '' }));
    await eventually('bound', async () => phaseOf((await api.get(`${pvcs(ns)}/c`))!) === 'Bound');
    await api.delete(`${pvcs(ns)}/c`);
    const failed = await eventually('Failed', async () => {
      const got = await api.get(`${PVS}/etc-${ns}`);
      return phaseOf(got!) === 'Failed' ? got : undefined;
    });
    assert.match(String(status(failed).message), /host_path deleter only supports \/tmp\/\.\+ but received provided \/etc\/data/);
    await api.create(PVS, volume(`gone-${ns}`, { hostPath: { path: '/tmp/gone' } }, { claimRef: { namespace: ns, name: 'lost' } }));
    await api.create(pvcs(ns), claim('lost', { className: '' }));
    await eventually('bound', async () => phaseOf((await api.get(`${pvcs(ns)}/lost`))!) === 'Bound');
    await api.delete(`${PVS}/gone-${ns}`);
    await eventually('Lost', async () => phaseOf((await api.get(`${pvcs(ns)}/lost`))!) === 'Lost');
  });

  test('persistentvolume-expander: a bound claim of an expandable class grows its volume; another class is refused', async () => {
    const ns = await api.namespace('vol');
    // A class of its own: the recycled volume of the Recycle test is Available in class hp.
    await api.create(CLASSES, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `grow-${ns}` }, provisioner: 'kubernetes.io/host-path', allowVolumeExpansion: true });
    const c = await api.create(pvcs(ns), claim('grow', { className: `grow-${ns}` }));
    await eventually('bound', async () => phaseOf((await api.get(`${pvcs(ns)}/grow`))!) === 'Bound');
    await api.patch(`${pvcs(ns)}/grow`, { spec: { resources: { requests: { storage: '3Gi' } } } });
    await eventually('volume resized', async () => (spec(await api.get(`${PVS}/pvc-${c.metadata.uid}`)).capacity as Obj).storage === '3Gi');
    await eventually('claim capacity updated', async () => (status(await api.get(`${pvcs(ns)}/grow`)).capacity as Obj).storage === '3Gi');
    const shrink = await api.req('PATCH', `${pvcs(ns)}/grow`, { spec: { resources: { requests: { storage: '1Gi' } } } }, 'application/merge-patch+json');
    assert.equal(shrink.status, 422);

    const f = await api.create(pvcs(ns), claim('fixed', { className: 'fixed' }));
    await eventually('bound', async () => phaseOf((await api.get(`${pvcs(ns)}/fixed`))!) === 'Bound');
    await api.patch(`${pvcs(ns)}/fixed`, { spec: { resources: { requests: { storage: '2Gi' } } } });
    await eventually('VolumeResizeFailed', async () => (await events(api, ns, 'fixed')).some((e) => e.reason === 'VolumeResizeFailed'));
    assert.equal((spec(await api.get(`${PVS}/pvc-${f.metadata.uid}`)).capacity as Obj).storage, '1Gi');
    assert.equal((status(await api.get(`${pvcs(ns)}/fixed`)).capacity as Obj).storage, '1Gi');
  });

  test('--flex-volume-plugin-dir: each <vendor>~<driver> folder is a driver, in /configz', async () => {
    const configz = (await (await fetch(`${env.daemon.url}/configz`)).json()) as { volumePlugins: { flexVolume: { dir: string; drivers: string[] } } };
    assert.deepEqual(configz.volumePlugins.flexVolume, { dir: flexDir, drivers: ['acme/nas', 'example.com/lvm'] });
    mkdirSync(join(flexDir, 'new~one'));
    const again = (await (await fetch(`${env.daemon.url}/configz`)).json()) as typeof configz;
    assert.deepEqual(again.volumePlugins.flexVolume.drivers, ['acme/nas', 'example.com/lvm', 'new/one']);
  });
});

describe('recycler deadlines under other options, a template file, and provisioning switched off', () => {
  let env: WorkloadEnv;
  let api: Api;
  const template = join(tmp, 'recycler.yaml');
  before(async () => {
    writeFileSync(template, ['apiVersion: v1', 'kind: Pod', 'metadata:', '  namespace: default', 'spec:', '  restartPolicy: Never', '  volumes:', '  - name: scrub-me', '  containers:', '  - name: scrubber', '    image: example.com/scrubber:2', '    volumeMounts: [{name: scrub-me, mountPath: /scrub}]', ''].join('\n'));
    env = await startWorkloadEnv({
      controllers: ['persistentvolume-binder'],
      flags: [
        '--pvclaimbinder-sync-period=1h', '--enable-dynamic-provisioning=false', '--enable-hostpath-provisioner',
        '--pv-recycler-minimum-timeout-hostpath=10', '--pv-recycler-timeout-increment-hostpath=7',
        '--pv-recycler-minimum-timeout-nfs=20', '--pv-recycler-increment-timeout-nfs=3', `--pv-recycler-pod-template-filepath-hostpath=${template}`,
      ],
    });
    api = new Api(env.url);
  });
  after(async () => env?.close());

  /** Binds a claim to a new Recycle volume, deletes the claim and answers the recycler pod. */
  async function recycled(ns: string, name: string, source: Obj, storage: string): Promise<KubeObject> {
    const watch = await recordWatch(env.url, '/api/v1/namespaces/default/pods');
    try {
      await api.create(PVS, volume(name, source, { storage, policy: 'Recycle', claimRef: { namespace: ns, name } }));
      await api.create(pvcs(ns), claim(name, { className: '' }));
      await eventually(`${name} bound`, async () => phaseOf((await api.get(`${pvcs(ns)}/${name}`))!) === 'Bound');
      await api.delete(`${pvcs(ns)}/${name}`);
      const pv = await eventually(`${name} Available`, async () => {
        const got = await api.get(`${PVS}/${name}`);
        return phaseOf(got!) === 'Available' ? got : undefined;
      }, 30_000);
      // A binding made by a user keeps the claim's name (its uid goes).
      assert.deepEqual({ name: (spec(pv).claimRef as Obj).name, uid: (spec(pv).claimRef as Obj).uid }, { name, uid: undefined });
      return eventually('recycler seen', async () => watch.events.find((e) => e.type === 'ADDED' && e.object.metadata.name === `recycler-for-${name}`)?.object);
    } finally {
      watch.stop();
    }
  }

  test('activeDeadlineSeconds follows --pv-recycler-minimum-timeout-* and --pv-recycler-(increment-)timeout-* per whole Gi', async () => {
    const ns = await api.namespace('rec');
    const small = await recycled(ns, `hp-small-${ns}`, { hostPath: { path: '/tmp/a' } }, '1Gi');
    const large = await recycled(ns, `hp-large-${ns}`, { hostPath: { path: '/tmp/b' } }, '5Gi');
    const nfsSmall = await recycled(ns, `nfs-small-${ns}`, { nfs: { server: 'nfs.example.com', path: '/exports/a' } }, '1Gi');
    const nfsLarge = await recycled(ns, `nfs-large-${ns}`, { nfs: { server: 'nfs.example.com', path: '/exports/b' } }, '20Gi');
    assert.equal(spec(small).activeDeadlineSeconds, 10); // max(10, 7 * 1)
    assert.equal(spec(large).activeDeadlineSeconds, 35); // max(10, 7 * 5)
    assert.equal(spec(nfsSmall).activeDeadlineSeconds, 20); // max(20, 3 * 1)
    assert.equal(spec(nfsLarge).activeDeadlineSeconds, 60); // max(20, 3 * 20)
    // The host-path recycler comes from the template file; NFS from the built-in one.
    assert.equal((spec(small).containers as Obj[])[0].image, 'example.com/scrubber:2');
    assert.deepEqual((spec(small).volumes as Obj[])[0], { name: 'scrub-me', hostPath: { path: '/tmp/a' } });
    assert.equal((spec(nfsLarge).containers as Obj[])[0].image, 'busybox:1.27');
    assert.deepEqual((spec(nfsLarge).volumes as Obj[])[0], { name: 'vol', nfs: { server: 'nfs.example.com', path: '/exports/b' } });
  });

  test('--pvclaimbinder-sync-period 1h: a claim made before its volume stays Pending (no resync yet)', async () => {
    const ns = await api.namespace('rec');
    await api.create(pvcs(ns), claim('late', { className: '' }));
    await new Promise((r) => setTimeout(r, 300));
    await api.create(PVS, volume(`late-${ns}`, { hostPath: { path: '/tmp/late' } }));
    await eventually('volume Available', async () => phaseOf((await api.get(`${PVS}/late-${ns}`))!) === 'Available');
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal(phaseOf((await api.get(`${pvcs(ns)}/late`))!), 'Pending');
  });

  test('--enable-dynamic-provisioning=false: nothing is provisioned; with it on and --enable-hostpath-provisioner off: ProvisioningFailed, external provisioners awaited', async () => {
    const ns = await api.namespace('rec');
    await api.create(CLASSES, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `hp-${ns}` }, provisioner: 'kubernetes.io/host-path' });
    await api.create(CLASSES, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `ext-${ns}` }, provisioner: 'example.com/nfs' });
    await api.create(pvcs(ns), claim('dyn', { className: `hp-${ns}` }));
    await api.create(pvcs(ns), claim('ext', { className: `ext-${ns}` }));
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(phaseOf((await api.get(`${pvcs(ns)}/dyn`))!), 'Pending');
    assert.equal((await api.list(PVS)).filter((v) => (spec(v).claimRef as Obj | undefined)?.namespace === ns).length, 0);
    assert.equal((await api.get(`${pvcs(ns)}/ext`))?.metadata.annotations?.['volume.beta.kubernetes.io/storage-provisioner'], undefined);

    // The same claims under a second daemon with dynamic provisioning on and the host-path provisioner off (the
    // first one, with provisioning off, keeps running: it does nothing to these claims).
    let other: DaemonHandle | undefined;
    try {
      other = await startDaemon(['--master', env.url, '--leader-elect=false', '--port', '0', '--address', '127.0.0.1', '--controllers', 'persistentvolume-binder', '--x-api-content-type', 'application/json'], { log: () => {} });
      await eventually('ProvisioningFailed', async () => (await events(api, ns, 'dyn')).some((e) => e.reason === 'ProvisioningFailed' && /Provisioning in volume plugin "kubernetes.io\/host-path" is disabled/.test(e.message)));
      await eventually('external provisioner annotation', async () => (await api.get(`${pvcs(ns)}/ext`))?.metadata.annotations?.['volume.beta.kubernetes.io/storage-provisioner'] === 'example.com/nfs');
      // The binder updates the claim, then posts the event (asynchronously): seeing the annotation does not mean
      // the event is written yet.
      await eventually('ExternalProvisioning event', async () => (await events(api, ns, 'ext')).some((e) => e.reason === 'ExternalProvisioning'));
      assert.equal(phaseOf((await api.get(`${pvcs(ns)}/dyn`))!), 'Pending');
    } finally {
      await other?.close();
    }
  });
});

describe('attachdetach: VolumeAttachments, node volumesAttached/volumesInUse, pods wait for their volumes', () => {
  let env: WorkloadEnv;
  let api: Api;
  let daemon: DaemonHandle | undefined;
  const daemonWith = (flags: string[]) =>
    startDaemon(['--master', env.url, '--leader-elect=false', '--port', '0', '--address', '127.0.0.1', '--controllers', 'attachdetach', '--x-api-content-type', 'application/json', ...flags], { log: () => {} });
  before(async () => {
    env = await startWorkloadEnv({ controllers: ['persistentvolume-binder'], nodes: { count: 1 }, runtimeConfig: ['storage.k8s.io/v1alpha1=true'] });
    api = new Api(env.url);
  });
  after(async () => {
    await daemon?.close();
    await env?.close();
  });

  test('a pod with a CSI claim and a GCE disk starts only once both are attached; the reconcile sync re-attaches; detach after the pod', async () => {
    const ns = await api.namespace('att');
    const node = env.nodes.nodeNames[0];
    const pvName = `csi-${ns}`;
    await api.create(PVS, volume(pvName, { csi: { driver: 'csi.example.com', volumeHandle: `h-${ns}` } }, { claimRef: { namespace: ns, name: 'disk' } }));
    await api.create(pvcs(ns), claim('disk', { className: '' }));
    await eventually('claim Bound', async () => phaseOf((await api.get(`${pvcs(ns)}/disk`))!) === 'Bound');
    await api.create(pods(ns), podWith('db', [claimVolume('disk'), { name: 'pd', gcePersistentDisk: { pdName: `pd-${ns}` } }]));
    await api.create(pods(ns), podWith('plain', [{ name: 'tmp', emptyDir: {} }]));
    await eventually('plain pod Running', async () => phaseOf((await api.get(`${pods(ns)}/plain`))!) === 'Running');
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(phaseOf((await api.get(`${pods(ns)}/db`))!), 'Pending', 'no attach/detach controller yet: the pod waits');

    daemon = await daemonWith(['--attach-detach-reconcile-sync-period=2s']);
    await eventually('pod Running', async () => phaseOf((await api.get(`${pods(ns)}/db`))!) === 'Running');
    const csiName = `kubernetes.io/csi/csi.example.com^h-${ns}`;
    const n = await api.get(`/api/v1/nodes/${node}`);
    assert.deepEqual(status(n).volumesAttached, [
      { name: csiName, devicePath: '' },
      { name: `kubernetes.io/gce-pd/pd-${ns}`, devicePath: `/dev/disk/by-id/google-pd-${ns}` },
    ]);
    await eventually('volumesInUse', async () => JSON.stringify(status(await api.get(`/api/v1/nodes/${node}`)).volumesInUse) === JSON.stringify([csiName, `kubernetes.io/gce-pd/pd-${ns}`]));
    const vaName = volumeAttachmentName(`h-${ns}`, 'csi.example.com', node);
    const va = await api.get(`${VAS}/${vaName}`);
    assert.deepEqual(spec(va), { attacher: 'csi.example.com', source: { persistentVolumeName: pvName }, nodeName: node });
    assert.equal(status(va).attached, true);

    // Detached behind the controller's back: the sync (every 2 s) finds out and the reconciler attaches again.
    assert.equal(await api.delete(`${VAS}/${vaName}`), 200);
    await eventually('VolumeAttachment made again', async () => status(await api.get(`${VAS}/${vaName}`)).attached === true, 15_000);

    // --disable-attach-detach-reconcile-sync: no verification, so a removed attachment stays removed.
    await daemon.close();
    daemon = await daemonWith(['--disable-attach-detach-reconcile-sync']);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await api.delete(`${VAS}/${vaName}`), 200);
    await new Promise((r) => setTimeout(r, 5000));
    assert.equal(await api.get(`${VAS}/${vaName}`), undefined);

    // The pod goes: the kubelet stops using the volumes, the controller detaches them.
    await daemon.close();
    daemon = await daemonWith(['--attach-detach-reconcile-sync-period=2s']);
    await eventually('VolumeAttachment back', async () => status(await api.get(`${VAS}/${vaName}`)).attached === true, 15_000);
    assert.equal(await api.delete(`${pods(ns)}/db`), 200);
    await eventually('detached', async () => {
      const got = status(await api.get(`/api/v1/nodes/${node}`));
      return got.volumesAttached === undefined && got.volumesInUse === undefined;
    });
    await eventually('VolumeAttachment deleted', async () => (await api.get(`${VAS}/${vaName}`)) === undefined);
  });
});
