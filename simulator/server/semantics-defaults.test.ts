// Defaults on create and update, visible on GET, list and watch (spec 2, 8.1; wire-facts 5). Test names
// carry the spec-table row ids they cover; expected values are read from the same rows.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldRow } from '../../spec-tables/index.ts';
import { type Harness, type Json, cronJob, deployment, harness, job, pod, podTemplate } from '../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('defaults');
});
after(() => h.close());

const def = (type: string, field: string) => fieldRow(type, field)!.default;
const APPS = () => `/apis/apps/v1/namespaces/${ns}/deployments`;
const EXT = () => `/apis/extensions/v1beta1/namespaces/${ns}/deployments`;

describe('Deployment apps/v1 defaults', () => {
  test('field.DeploymentSpec.replicas: default from the row, visible on create, GET, list and watch', async () => {
    const created = await h.create(APPS(), deployment('rep'));
    assert.equal(created.spec.replicas, def('DeploymentSpec', 'replicas'));
    const got = await h.call('GET', `${APPS()}/rep`);
    assert.equal(got.body.spec.replicas, def('DeploymentSpec', 'replicas'));
    const list = await h.call('GET', APPS());
    assert.equal(list.body.items.find((i: Json) => i.metadata.name === 'rep').spec.replicas, def('DeploymentSpec', 'replicas'));
    const events = await h.watch(`${APPS()}?fieldSelector=metadata.name%3Drep&resourceVersion=0`, 1);
    assert.equal(events[0]?.object.spec.replicas, def('DeploymentSpec', 'replicas'));
  });

  test('field.DeploymentSpec.replicas / field.DeploymentSpec.revisionHistoryLimit: explicit 0 stays 0 (rule.fields.explicit-zero-kept)', async () => {
    const created = await h.create(APPS(), deployment('zero', { replicas: 0, revisionHistoryLimit: 0 }));
    assert.equal(created.spec.replicas, 0);
    assert.equal(created.spec.revisionHistoryLimit, 0);
  });

  test('field.DeploymentSpec.revisionHistoryLimit and field.DeploymentSpec.progressDeadlineSeconds: row defaults', async () => {
    const d = await h.create(APPS(), deployment('limits'));
    assert.equal(d.spec.revisionHistoryLimit, def('DeploymentSpec', 'revisionHistoryLimit'));
    assert.equal(d.spec.progressDeadlineSeconds, def('DeploymentSpec', 'progressDeadlineSeconds'));
  });

  test('field.DeploymentSpec.minReadySeconds: default 0 is implicit (omitted, as the real server omits zero ints); explicit values kept', async () => {
    assert.equal(def('DeploymentSpec', 'minReadySeconds'), 0);
    const d = await h.create(APPS(), deployment('minready'));
    assert.equal(d.spec.minReadySeconds, undefined);
    const e = await h.create(APPS(), deployment('minready5', { minReadySeconds: 5 }));
    assert.equal(e.spec.minReadySeconds, 5);
  });

  test('field.DeploymentStrategy.type, field.RollingUpdateDeployment.maxSurge, field.RollingUpdateDeployment.maxUnavailable: RollingUpdate 25%/25%', async () => {
    const d = await h.create(APPS(), deployment('strat'));
    assert.deepEqual(d.spec.strategy, {
      type: def('DeploymentStrategy', 'type'),
      rollingUpdate: { maxUnavailable: def('RollingUpdateDeployment', 'maxUnavailable'), maxSurge: def('RollingUpdateDeployment', 'maxSurge') },
    });
  });

  test('field.DeploymentStrategy.rollingUpdate: Recreate gets no rollingUpdate; a partial rollingUpdate gets the missing half', async () => {
    const r = await h.create(APPS(), deployment('recreate', { strategy: { type: 'Recreate' } }));
    assert.deepEqual(r.spec.strategy, { type: 'Recreate' });
    const p = await h.create(APPS(), deployment('partial', { strategy: { rollingUpdate: { maxSurge: 3 } } }));
    assert.deepEqual(p.spec.strategy.rollingUpdate, { maxSurge: 3, maxUnavailable: def('RollingUpdateDeployment', 'maxUnavailable') });
  });

  test('field.DeploymentSpec.replicas: defaults apply on update too (PUT without replicas)', async () => {
    const d = await h.create(APPS(), deployment('upd', { replicas: 4 }));
    delete d.spec.replicas;
    const r = await h.call('PUT', `${APPS()}/upd`, d);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.spec.replicas, def('DeploymentSpec', 'replicas'));
  });
});

describe('Deployment extensions/v1beta1 keeps its own defaults (wire-facts 5)', () => {
  test('field.DeploymentSpec.selector: selector and labels from template labels, maxUnavailable/maxSurge 1, no history/deadline defaults', async () => {
    const d = await h.create(EXT(), { metadata: { name: 'ext' }, spec: { template: podTemplate({ app: 'e' }) } });
    assert.deepEqual(d.spec.selector, { matchLabels: { app: 'e' } });
    assert.deepEqual(d.metadata.labels, { app: 'e' });
    assert.equal(d.spec.replicas, 1);
    assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } });
    assert.equal(d.spec.revisionHistoryLimit, undefined);
    assert.equal(d.spec.progressDeadlineSeconds, undefined);
    const back = await h.call('GET', `${EXT()}/ext`);
    assert.deepEqual(back.body.spec, d.spec, 'reads back through extensions with its own defaults');
    const apps = await h.call('GET', `${APPS()}/ext`);
    assert.equal(apps.body.apiVersion, 'apps/v1');
    assert.equal(apps.body.spec.revisionHistoryLimit, undefined, 'apps/v1 shows what extensions stored');
    assert.deepEqual(apps.body.spec.strategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 1 });
  });
});

describe('ReplicaSet, DaemonSet, ReplicationController defaults', () => {
  test('ReplicaSet apps/v1 replicas 1; extensions/v1beta1 selector and labels from template', async () => {
    const rs = await h.create(`/apis/apps/v1/namespaces/${ns}/replicasets`, { metadata: { name: 'rs' }, spec: { selector: { matchLabels: { app: 'x' } }, template: podTemplate() } });
    assert.equal(rs.spec.replicas, 1);
    const ers = await h.create(`/apis/extensions/v1beta1/namespaces/${ns}/replicasets`, { metadata: { name: 'ers' }, spec: { template: podTemplate({ app: 'r' }) } });
    assert.deepEqual(ers.spec.selector, { matchLabels: { app: 'r' } });
    assert.deepEqual(ers.metadata.labels, { app: 'r' });
  });

  test('DaemonSet apps/v1: RollingUpdate maxUnavailable 1, revisionHistoryLimit 10, template generation 1', async () => {
    const ds = await h.create(`/apis/apps/v1/namespaces/${ns}/daemonsets`, { metadata: { name: 'ds' }, spec: { selector: { matchLabels: { app: 'x' } }, template: podTemplate() } });
    assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } });
    assert.equal(ds.spec.revisionHistoryLimit, 10);
    assert.equal(ds.metadata.annotations['deprecated.daemonset.template.generation'], '1');
  });

  test('DaemonSet extensions/v1beta1: OnDelete, templateGeneration 1, selector from template', async () => {
    const ds = await h.create(`/apis/extensions/v1beta1/namespaces/${ns}/daemonsets`, { metadata: { name: 'eds' }, spec: { template: podTemplate({ app: 'd' }) } });
    assert.deepEqual(ds.spec.updateStrategy, { type: 'OnDelete' });
    assert.equal(ds.spec.templateGeneration, 1);
    assert.deepEqual(ds.spec.selector, { matchLabels: { app: 'd' } });
  });

  test('ReplicationController: replicas 1, selector and labels from template labels', async () => {
    const rc = await h.create(`/api/v1/namespaces/${ns}/replicationcontrollers`, { metadata: { name: 'rc' }, spec: { template: podTemplate({ app: 'rc' }) } });
    assert.equal(rc.spec.replicas, 1);
    assert.deepEqual(rc.spec.selector, { app: 'rc' });
    assert.deepEqual(rc.metadata.labels, { app: 'rc' });
  });
});

describe('Job and CronJob defaults', () => {
  test('field.JobSpec.backoffLimit: row default; completions and parallelism 1 when both unset', async () => {
    const j = await h.create(`/apis/batch/v1/namespaces/${ns}/jobs`, job('j1'));
    assert.equal(j.spec.backoffLimit, def('JobSpec', 'backoffLimit'));
    assert.equal(j.spec.completions, 1);
    assert.equal(j.spec.parallelism, 1);
  });

  test('field.JobSpec.completions / field.JobSpec.parallelism: only parallelism defaults when completions is set; completions stays unset when parallelism is set', async () => {
    const a = await h.create(`/apis/batch/v1/namespaces/${ns}/jobs`, job('j2', { completions: 5 }));
    assert.equal(a.spec.completions, 5);
    assert.equal(a.spec.parallelism, 1);
    const b = await h.create(`/apis/batch/v1/namespaces/${ns}/jobs`, job('j3', { parallelism: 3 }));
    assert.equal(b.spec.completions, undefined);
    assert.equal(b.spec.parallelism, 3);
  });

  test('field.JobSpec.selector / field.JobSpec.manualSelector: generated controller-uid selector and template labels (rule.fields.job-manual-selector)', async () => {
    const j = await h.create(`/apis/batch/v1/namespaces/${ns}/jobs`, job('gen', { template: { metadata: { labels: { app: 'j' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } }));
    const uid = j.metadata.uid;
    assert.deepEqual(j.spec.selector, { matchLabels: { 'controller-uid': uid } });
    assert.deepEqual(j.spec.template.metadata.labels, { app: 'j', 'controller-uid': uid, 'job-name': 'gen' });
    assert.deepEqual(j.metadata.labels, { app: 'j', 'controller-uid': uid, 'job-name': 'gen' }, 'job labels from template labels');
  });

  test('field.JobSpec.manualSelector: with manualSelector true nothing is generated', async () => {
    const j = await h.create(`/apis/batch/v1/namespaces/${ns}/jobs`, job('manual', {
      manualSelector: true, selector: { matchLabels: { app: 'm' } },
      template: { metadata: { labels: { app: 'm' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
    }));
    assert.deepEqual(j.spec.selector, { matchLabels: { app: 'm' } });
    assert.deepEqual(j.spec.template.metadata.labels, { app: 'm' });
    assert.deepEqual(j.metadata.labels, { app: 'm' });
  });

  test('field.CronJobSpec.concurrencyPolicy, field.CronJobSpec.suspend, field.CronJobSpec.successfulJobsHistoryLimit, field.CronJobSpec.failedJobsHistoryLimit: row defaults', async () => {
    const c = await h.create(`/apis/batch/v1beta1/namespaces/${ns}/cronjobs`, cronJob('cj'));
    for (const f of ['concurrencyPolicy', 'suspend', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) assert.equal(c.spec[f], def('CronJobSpec', f), f);
    const explicit = await h.create(`/apis/batch/v1beta1/namespaces/${ns}/cronjobs`, cronJob('cj2', { successfulJobsHistoryLimit: 0, suspend: true, concurrencyPolicy: 'Forbid' }));
    assert.equal(explicit.spec.successfulJobsHistoryLimit, 0);
    assert.equal(explicit.spec.suspend, true);
    assert.equal(explicit.spec.concurrencyPolicy, 'Forbid');
    assert.equal(explicit.spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst', 'pod template inside the job template is defaulted');
  });
});

describe('Container and PodSpec defaults (every pod template and pod)', () => {
  const paths: Array<[string, () => string, Json, (o: Json) => Json]> = [
    ['apps/v1 Deployment', () => APPS(), deployment('c-dep'), (o) => o.spec.template.spec],
    ['extensions/v1beta1 Deployment', () => EXT(), { metadata: { name: 'c-edep' }, spec: { template: podTemplate() } }, (o) => o.spec.template.spec],
    ['batch/v1 Job', () => `/apis/batch/v1/namespaces/${ns}/jobs`, job('c-job'), (o) => o.spec.template.spec],
    ['batch/v1beta1 CronJob', () => `/apis/batch/v1beta1/namespaces/${ns}/cronjobs`, cronJob('c-cj'), (o) => o.spec.jobTemplate.spec.template.spec],
    ['v1 Pod', () => `/api/v1/namespaces/${ns}/pods`, pod('c-pod'), (o) => o.spec],
  ];
  for (const [kind, path, body, specOf] of paths) {
    test(`field.Container.terminationMessagePath, field.Container.terminationMessagePolicy, field.Container.imagePullPolicy: ${kind}`, async () => {
      const b = structuredClone(body);
      const spec = specOf(b);
      spec.initContainers = [{ name: 'init', image: 'busybox' }];
      spec.containers[0].ports = [{ containerPort: 80 }];
      const o = await h.create(path(), b);
      const s = specOf(o);
      for (const c of [s.containers[0], s.initContainers[0]]) {
        assert.equal(c.terminationMessagePath, def('Container', 'terminationMessagePath'));
        assert.equal(c.terminationMessagePolicy, def('Container', 'terminationMessagePolicy'));
        assert.equal(c.stdin, undefined, 'false defaults stay implicit');
      }
      assert.equal(s.containers[0].imagePullPolicy, 'IfNotPresent', 'nginx:1.13 is tagged');
      assert.equal(s.initContainers[0].imagePullPolicy, 'Always', 'busybox has no tag');
      assert.equal(s.containers[0].ports[0].protocol, 'TCP');
      assert.equal(s.dnsPolicy, 'ClusterFirst');
      assert.equal(s.schedulerName, 'default-scheduler');
      assert.equal(s.terminationGracePeriodSeconds, 30);
      assert.deepEqual(s.securityContext, {});
      if (kind !== 'batch/v1 Job' && kind !== 'batch/v1beta1 CronJob') assert.equal(s.restartPolicy, 'Always');
    });
  }

  test('field.Container.imagePullPolicy (defaultRule.image-tag): latest, untagged, digest, tagged, registry port', async () => {
    const cases: Array<[string, string]> = [
      ['nginx:latest', 'Always'], ['nginx', 'Always'], ['registry:5000/nginx', 'Always'], ['registry:5000/nginx:1.2', 'IfNotPresent'],
      ['nginx@sha256:' + 'a'.repeat(64), 'IfNotPresent'], ['nginx:1.13', 'IfNotPresent'],
    ];
    const p = await h.create(`/api/v1/namespaces/${ns}/pods`, pod('pulls', { containers: cases.map(([image], i) => ({ name: `c${i}`, image })) }));
    cases.forEach(([image, want], i) => assert.equal(p.spec.containers[i].imagePullPolicy, want, image));
    const explicit = await h.create(`/api/v1/namespaces/${ns}/pods`, pod('pull-explicit', { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Never' }] }));
    assert.equal(explicit.spec.containers[0].imagePullPolicy, 'Never');
  });
});

describe('Service, Secret, Namespace defaults', () => {
  test('Service: type ClusterIP, sessionAffinity None, port protocol TCP, targetPort from port', async () => {
    const s = await h.create(`/api/v1/namespaces/${ns}/services`, { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }, { name: 'b', port: 81, targetPort: 8081 }].map((p, i) => (i === 0 ? { ...p, name: 'a' } : p)) } });
    assert.equal(s.spec.type, 'ClusterIP');
    assert.equal(s.spec.sessionAffinity, 'None');
    assert.deepEqual(s.spec.ports, [{ port: 80, name: 'a', protocol: 'TCP', targetPort: 80 }, { name: 'b', port: 81, targetPort: 8081, protocol: 'TCP' }]);
  });

  test('Secret: type Opaque; stringData merged into data', async () => {
    const s = await h.create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'sec' }, stringData: { a: 'hello' } });
    assert.equal(s.type, 'Opaque');
    assert.deepEqual(s.data, { a: Buffer.from('hello').toString('base64') });
    assert.equal(s.stringData, undefined);
  });

  test('Namespace: finalizers [kubernetes] and phase Active', async () => {
    const n = await h.create('/api/v1/namespaces', { metadata: { name: 'def-ns' } });
    assert.deepEqual(n.spec.finalizers, ['kubernetes']);
    assert.equal(n.status.phase, 'Active');
  });
});
