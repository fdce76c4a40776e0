// Protobuf against JSON for a list of 500 Deployments (the size of one kubectl chunk): time to encode
// and decode, and bytes on the wire, printed as protobuf/JSON ratios.
//
// Run: npx tsx simulator/bench/protobuf.bench.ts

import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { decodeObject, encodeObject } from '../codec/protobuf.ts';

const ITEMS = 500;

/** A Deployment the size of a typical real one (~2 KB of JSON), strings unique to it. */
function deployment(i: number): Record<string, unknown> {
  const app = `app-${i}`;
  return {
    metadata: {
      name: `web-${i}`,
      namespace: `ns-${i % 7}`,
      selfLink: `/apis/apps/v1/namespaces/ns-${i % 7}/deployments/web-${i}`,
      uid: `6a1f0c52-1b0a-11e8-9a5e-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100000 + i),
      generation: 3,
      creationTimestamp: '2018-02-26T10:00:00Z',
      labels: { app, tier: 'frontend' },
      annotations: { 'deployment.kubernetes.io/revision': '3' },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app } },
      template: {
        metadata: { creationTimestamp: null, labels: { app, tier: 'frontend' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: `registry.example.com/web:${i}`,
              args: ['--port=8080', `--instance=${i}`],
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              env: [
                { name: 'MODE', value: 'production' },
                { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
              ],
              resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '128Mi' } },
              livenessProbe: {
                httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
                initialDelaySeconds: 10,
                timeoutSeconds: 1,
                periodSeconds: 10,
                successThreshold: 1,
                failureThreshold: 3,
              },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
            },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 3,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: '2018-02-26T10:00:05Z',
          lastTransitionTime: '2018-02-26T10:00:05Z',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
      ],
    },
  };
}

/** Median milliseconds of fn over enough repetitions to take about `budgetMs`. */
function time(fn: () => unknown, budgetMs = 400): number {
  for (let i = 0; i < 3; i++) fn(); // warm up the JIT and the converter caches
  const samples: number[] = [];
  const until = performance.now() + budgetMs;
  while (samples.length < 5 || (performance.now() < until && samples.length < 200)) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

export async function run(log: (line: string) => void = console.log): Promise<void> {
  const list = {
    apiVersion: 'apps/v1',
    kind: 'DeploymentList',
    metadata: { resourceVersion: '200000' },
    items: Array.from({ length: ITEMS }, (_, i) => deployment(i)),
  };
  const jsonBytes = Buffer.from(JSON.stringify(list));
  const pbBytes = encodeObject(list);

  const jsonEncode = time(() => Buffer.from(JSON.stringify(list)));
  const pbEncode = time(() => encodeObject(list));
  const jsonDecode = time(() => JSON.parse(jsonBytes.toString('utf8')));
  const pbDecode = time(() => decodeObject(pbBytes));

  const ratio = (pb: number, json: number): string => (pb / json).toFixed(2);
  log(`protobuf vs JSON, DeploymentList of ${ITEMS} items`);
  log(`  bytes:  protobuf ${pbBytes.length}  json ${jsonBytes.length}  ratio ${ratio(pbBytes.length, jsonBytes.length)}`);
  log(`  encode: protobuf ${pbEncode.toFixed(2)} ms  json ${jsonEncode.toFixed(2)} ms  ratio ${ratio(pbEncode, jsonEncode)}`);
  log(`  decode: protobuf ${pbDecode.toFixed(2)} ms  json ${jsonDecode.toFixed(2)} ms  ratio ${ratio(pbDecode, jsonDecode)}`);
  log(`  per object: encode ${((pbEncode / ITEMS) * 1000).toFixed(1)} µs, decode ${((pbDecode / ITEMS) * 1000).toFixed(1)} µs`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await run();
}
