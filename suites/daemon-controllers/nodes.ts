// Nodes, networking and the cloud: a part of daemon-controllers.suite.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { check } from '../harness/check.ts';
import { expectTrue } from '../harness/expect.ts';
import { DaemonProcess, freePort, runToExit } from '../daemon/daemon-process.ts';
import { busyScaled, sleep, within } from '../harness/progress.ts';
import type { KubeObject } from '../../simulator/api/meta.ts';
import { conditionOfNode, type Env, FakeKubelets, type Http, namespaceFor, nowText, readyOf, runningPod, seenAt, START_TIMEOUT_MS, tail, withControllers, withEnv } from './env.ts';

// ---------------------------------------------------------------------------------------------------------
// Nodes, networking and the cloud (spec 8.2): the node, ttl, service and route loops of the daemon under
// test, observed through the API of the simulator the check starts. The check itself plays the kubelets: it
// creates Nodes, posts their heartbeats (Ready=True, lastHeartbeatTime now) and stops them, so the checks do
// not depend on this project's simulated nodes and apply to any daemon.

const evictedAt = async (api: Http, ns: string, pod: string, ms: number) => (await eviction(api, ns, pod, ms)).seen;

/**
 * When the check first saw the pod being deleted (epoch ms, undefined: not within ms), and the deletionTimestamp
 * the server wrote (epoch ms of whole seconds, minus the pod's grace period, which is the same for every pod of
 * a check): the moment of the DELETE by the server's clock, a witness that a stall of this process cannot move.
 */
async function eviction(api: Http, ns: string, pod: string, ms: number): Promise<{ seen?: number; written?: number }> {
  let written: number | undefined;
  const seen = await seenAt(ms, async () => {
    const p = await api.get(`/api/v1/namespaces/${ns}/pods/${pod}`);
    if (p?.metadata.deletionTimestamp) {
      const grace = (p.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds ?? 0;
      written = Date.parse(p.metadata.deletionTimestamp) - grace * 1000;
    }
    return p === undefined || p.metadata.deletionTimestamp != null;
  });
  return { seen, written: Number.isFinite(written) ? written : undefined };
}

/**
 * Whether evictions happened at a rate: by the check's sightings (rate within [min, max] nodes/s over the span
 * from first to last) or by the deletionTimestamps the server wrote (whole seconds: a span of s seconds is
 * written as s-1 to s+1). Either witness will do: a stall of this process squeezes or stretches the sightings,
 * and a daemon that gets a fraction of a core may send a DELETE late and the next one on time, but a daemon that
 * evicts all at once (or at the default rate) shows that in both.
 */
function evictionRate(
  times: Array<{ seen?: number; written?: number }>,
  min: number,
  max: number,
): { ok: boolean; text: string } {
  const spanOf = (xs: Array<number | undefined>) =>
    xs.every((x) => x !== undefined) ? Math.max(...(xs as number[])) - Math.min(...(xs as number[])) : undefined;
  const gaps = times.length - 1;
  const seenSpan = spanOf(times.map((t) => t.seen));
  const writtenSpan = spanOf(times.map((t) => t.written));
  const seenRate = seenSpan === undefined ? undefined : gaps / (seenSpan / 1000);
  // A span s is written as s-1..s+1 whole seconds: a rate in [min, max] writes a span in [gaps/max - 1, gaps/min + 1].
  const writtenOk = writtenSpan !== undefined && writtenSpan / 1000 >= gaps / max - 1 && writtenSpan / 1000 <= gaps / min + 1;
  const seenOk = seenRate !== undefined && seenRate >= min && seenRate <= max;
  const text = `${seenRate === undefined ? 'not all seen' : `${seenRate.toFixed(2)} nodes/s as seen`}, deletionTimestamps ${writtenSpan === undefined ? 'not all seen' : `${writtenSpan / 1000} s apart`}`;
  return { ok: seenOk || writtenOk, text };
}

check(
  'daemon-controllers.node-lifecycle',
  {
    rows: [
      'controller.node',
      'option.node-monitor-period',
      'option.node-monitor-grace-period',
      'option.node-startup-grace-period',
      'option.pod-eviction-timeout',
    ],
    title:
      'node: a node without heartbeats goes Unknown after the grace period (one never heard of after the startup grace), its pods unready, then evicted after the eviction timeout; markings follow the monitor period',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubelets = env.kubelets();
      for (const n of ['nl-a', 'nl-b', 'nl-c']) await kubelets.add(n);
      const ns = await namespaceFor(api, 'nodelife');
      await runningPod(api, ns, 'p', 'nl-a');
      // A grace period of 16 heartbeats (a healthy node stays Ready through a stall of this process); the
      // eviction timeout beyond it, so that the eviction is not the marking's.
      const grace = 4_000;
      const startup = 2_000;
      const timeout = 6_000;
      const flags = [
        '--node-monitor-period=200ms',
        `--node-monitor-grace-period=${grace}ms`,
        `--node-startup-grace-period=${startup}ms`,
        `--pod-eviction-timeout=${timeout}ms`,
        // Evictions are rate-limited per zone, one node per token, a node without pods too: at the default 0.1 nodes
        // per second nl-silent (Unknown first, after the startup grace) took the token and the pod of nl-a waited
        // 10 s more for the next, 16-23 s after its last heartbeat. Here only the timeout is judged (the rate has
        // checks of its own).
        '--node-eviction-rate=10',
      ];
      await withControllers(env, 'node', flags, 'node lifecycle', async () => {
        const t0 = Date.now();
        kubelets.stop('nl-a');
        await kubelets.add('nl-silent', {}, false);
        // Upper bounds stretched on a busy machine (the daemon under test gets a fraction of a core), never as far as
        // the defaults (40 s, 1 min, 5 min).
        const late = {
          grace: grace + Math.min(30_000, busyScaled(15_000)),
          startup: startup + Math.min(45_000, busyScaled(15_000)),
          timeout: timeout + busyScaled(15_000),
        };
        const [unknown, never, evicted] = await Promise.all([
          seenAt(late.grace + 5_000, async () => readyOf(await api.get('/api/v1/nodes/nl-a'))?.status === 'Unknown'),
          seenAt(late.startup + 5_000, async () => readyOf(await api.get('/api/v1/nodes/nl-silent'))?.status === 'Unknown'),
          evictedAt(api, ns, 'p', late.timeout + 5_000),
        ]);
        // Measured from the last heartbeat with a new time that the check sent (the controller cannot have seen
        // one later), not from the stop: this process may have stalled before it. A node that never posted
        // status counts from its creation (after t0; creationTimestamp has whole seconds). The upper bounds allow
        // a loaded machine many seconds and still tell the values set from the defaults (40 s, 1 min, 5 min).
        const last = kubelets.lastChange('nl-a') ?? t0;
        const after = (at: number | undefined, from: number) => (at === undefined ? 'never' : `${at - from} ms`);
        expectTrue(
          unknown !== undefined && unknown - last >= grace - 300 && unknown - last <= late.grace,
          `with --node-monitor-grace-period=${grace}ms a node whose heartbeats stopped went Unknown ${after(unknown, last)} after its last new heartbeat`,
          ['option.node-monitor-grace-period', 'controller.node'],
        );
        expectTrue(
          never !== undefined && never - t0 >= startup - 1_200 && never - t0 <= late.startup,
          `with --node-startup-grace-period=${startup}ms a node that never posted status went Unknown ${after(never, t0)} after its creation`,
          ['option.node-startup-grace-period'],
        );
        const pod = await api.get(`/api/v1/namespaces/${ns}/pods/p`);
        const podReady = ((pod?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).find(
          (c) => c.type === 'Ready',
        );
        expectTrue(pod === undefined || podReady?.status === 'False', `the failed node's pod is not Ready (Ready=${podReady?.status})`, ['controller.node']);
        expectTrue(
          evicted !== undefined && evicted - last >= timeout - 300 && evicted - last <= late.timeout,
          `with --pod-eviction-timeout=${timeout}ms the pod of the failed node was evicted ${after(evicted, last)} after the node's last new heartbeat`,
          ['option.pod-eviction-timeout'],
        );
        expectTrue(readyOf(await api.get('/api/v1/nodes/nl-b'))?.status === 'True', 'a node with heartbeats stays Ready', ['controller.node']);
        // Two failures 2.5 s apart are marked as far apart as their last heartbeats with a 200ms period (the
        // default 5 s would put them on the same pass or 5 s apart, 2.5 s off). Each marking is seen by a poll of
        // its own; on a loaded machine a stall of this process may delay one sighting, so the Ready conditions'
        // transition times the controller wrote (whole seconds) are a second witness of the same gap. A daemon
        // that gets a fraction of a core may still notice one of the two seconds late: then the check measures
        // again on two fresh nodes (up to 3 pairs within a time budget). A 5 s period is off on every pair.
        const gapOf = async (bName: string, cName: string) => {
          kubelets.stop(bName);
          const b = seenAt(grace + busyScaled(20_000), async () => readyOf(await api.get(`/api/v1/nodes/${bName}`))?.status === 'Unknown');
          await sleep(2_500);
          kubelets.stop(cName);
          const c = await seenAt(grace + busyScaled(20_000), async () => readyOf(await api.get(`/api/v1/nodes/${cName}`))?.status === 'Unknown');
          const bAt = await b;
          const expected = (kubelets.lastChange(cName) ?? 0) - (kubelets.lastChange(bName) ?? 0);
          const seenGap = bAt !== undefined && c !== undefined ? c - bAt : undefined;
          const transition = async (n: string) => Date.parse((readyOf(await api.get(`/api/v1/nodes/${n}`)) as { lastTransitionTime?: string } | undefined)?.lastTransitionTime ?? '');
          const writtenGap = (await transition(cName)) - (await transition(bName));
          // Seen: within 1.2 s; written (whole seconds, so up to 1 s off): less than 1 s off. A 5 s period marks
          // 0 or 5 s apart where the heartbeats were 2-3 s apart: at least 2 s off seen, more than 1 s written.
          const near = (gap: number | undefined, slack: number) => gap !== undefined && Number.isFinite(gap) && Math.abs(gap - expected) < slack;
          return {
            ok: near(seenGap, 1_200) || near(writtenGap, 1_000),
            text: `last heartbeats ${expected} ms apart, marked Unknown ${seenGap === undefined ? 'not both' : `${seenGap} ms apart`} (transition times ${writtenGap} ms apart)`,
          };
        };
        const attempts = [await gapOf('nl-b', 'nl-c')];
        const budgetEnds = Date.now() + busyScaled(40_000);
        for (let i = 1; i < 3 && !attempts.some((a) => a.ok) && Date.now() < budgetEnds; i++) {
          const [bName, cName] = [`nl-b${i}`, `nl-c${i}`];
          await kubelets.add(bName);
          await kubelets.add(cName);
          // Both seen Ready with heartbeats changing before they stop.
          await within(busyScaled(10_000), async () =>
            (await Promise.all([bName, cName].map(async (n) => readyOf(await api.get(`/api/v1/nodes/${n}`))?.status === 'True'))).every(Boolean) || undefined,
          );
          await sleep(1_500);
          attempts.push(await gapOf(bName, cName));
        }
        expectTrue(
          attempts.some((a) => a.ok),
          `with --node-monitor-period=200ms pairs of nodes whose heartbeats stopped 2.5 s apart were marked Unknown as far apart as their last heartbeats on none of ${attempts.length} tries: ${attempts.map((a) => a.text).join('; ')}`,
          ['option.node-monitor-period'],
        );
      });
    });
  },
);

/**
 * Has the kubelets of `failed` of the nodes (one pod each) report NotReady at once under a daemon with these flags;
 * eviction times after that (undefined: not within waitMs). NotReady rather than silence: all of them turn at the
 * moment the check chooses, where stopped heartbeats would be noticed up to a second apart (whole-second heartbeat
 * times) or more on a loaded machine, and a zone would be judged with some of them still Ready. A grace period of
 * 40 s (the default) keeps every node with heartbeats Ready through a stall of this process.
 */
async function evictionRun(
  env: Env,
  api: Http,
  kubelets: FakeKubelets,
  names: { all: string[]; failed: string[] },
  flags: string[],
  waitMs: number,
  what: string,
): Promise<Array<{ seen?: number; written?: number }>> {
  const ns = await namespaceFor(api, 'evict');
  for (const n of names.all) await runningPod(api, ns, `p-${n}`, n);
  // The nodes fail before the daemon starts: its first pass sees all of them NotReady at once, and the zone's
  // state is judged on all of them. Failed while it runs, a daemon on a loaded machine may see one failure
  // seconds before the others and, rightly, evict it with the zone still Normal: a race the check would lose.
  await Promise.all(names.failed.map((n) => kubelets.setReady(n, false)));
  return withControllers(env, 'node', ['--node-monitor-period=100ms', '--node-monitor-grace-period=40s', '--pod-eviction-timeout=2500ms', ...flags], what, async () => {
    const t0 = Date.now();
    const times = await Promise.all(names.failed.map((n) => eviction(api, ns, `p-${n}`, waitMs)));
    return times.map((t) => ({ seen: t.seen === undefined ? undefined : t.seen - t0, written: t.written === undefined ? undefined : t.written - t0 }));
  });
}

check(
  'daemon-controllers.node-eviction-rate',
  {
    rows: ['controller.node', 'option.node-eviction-rate'],
    title: 'node: 3 failed nodes of 8 are evicted at --node-eviction-rate nodes per second',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubelets = env.kubelets();
      const all = Array.from({ length: 8 }, (_, i) => `er-${i}`);
      for (const n of all) await kubelets.add(n);
      const times = await evictionRun(
        env,
        api,
        kubelets,
        { all, failed: ['er-1', 'er-3', 'er-5'] },
        ['--node-eviction-rate=0.5'],
        busyScaled(40_000),
        '--node-eviction-rate=0.5',
      );
      const seen = times.map((t) => t.seen);
      expectTrue(seen.every((t) => t !== undefined), `every failed node's pod was evicted (${seen.join(', ')} ms)`, ['controller.node']);
      // A loaded machine only ever spaces evictions further apart; the default (0.1) would be 0.1 at most.
      const rate = evictionRate(times, 0.2, 0.8);
      expectTrue(
        rate.ok,
        `with --node-eviction-rate=0.5, 3 nodes were evicted at ${rate.text} (seen ${seen.join(', ')} ms after the daemon was up)`,
        ['option.node-eviction-rate'],
      );
    });
  },
);

check(
  'daemon-controllers.node-zone-disruption',
  {
    rows: ['controller.node', 'option.unhealthy-zone-threshold', 'option.large-cluster-size-threshold', 'option.secondary-node-eviction-rate'],
    title:
      'node: a zone with 3 of 4 nodes failed evicts nothing at or below --large-cluster-size-threshold, at --secondary-node-eviction-rate above it, normally when --unhealthy-zone-threshold is not reached',
    timeoutSeconds: 180,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const zone = { 'failure-domain.beta.kubernetes.io/region': 'r', 'failure-domain.beta.kubernetes.io/zone': 'r-a' };
      // Each run gets fresh nodes (the earlier ones stay failed and are left out of the new zone by a new zone label).
      const run = async (tag: string, flags: string[], waitMs: number) => {
        const kubelets = env.kubelets();
        try {
          const all = [0, 1, 2, 3].map((i) => `zd-${tag}-${i}`);
          for (const n of all) await kubelets.add(n, { ...zone, 'failure-domain.beta.kubernetes.io/zone': `r-${tag}` });
          return await evictionRun(env, api, kubelets, { all, failed: all.slice(0, 3) }, flags, waitMs, flags.join(' '));
        } finally {
          kubelets.close(); // the next run's daemon sees no heartbeats of these
        }
      };
      // (The pod eviction timeout is 2.5 s: 9 s without an eviction is a zone judged disrupted, however busy.)
      const small = (await run('small', ['--node-eviction-rate=100'], 9_000)).map((t) => t.seen);
      expectTrue(
        small.every((t) => t === undefined),
        `3 of 4 nodes failed in a zone of 4 (<= --large-cluster-size-threshold 50): nothing evicted (got ${small.join(', ')})`,
        ['option.large-cluster-size-threshold', 'option.unhealthy-zone-threshold'],
      );
      const secondary = await run('large', ['--node-eviction-rate=100', '--large-cluster-size-threshold=3', '--secondary-node-eviction-rate=0.5'], busyScaled(20_000));
      const seen = secondary.map((t) => t.seen);
      // Slower on a loaded machine, never faster; the default secondary rate (0.01) evicts one in 100 s, the normal one (100) all at once.
      const rate = evictionRate(secondary, 0.15, 0.8);
      expectTrue(
        seen.every((t) => t !== undefined) && rate.ok,
        `--large-cluster-size-threshold=3 --secondary-node-eviction-rate=0.5: evicted at ${rate.text} (seen ${seen.join(', ')} ms after the daemon was up)`,
        ['option.large-cluster-size-threshold', 'option.secondary-node-eviction-rate'],
      );
      const normal = (await run('normal', ['--node-eviction-rate=100', '--unhealthy-zone-threshold=0.9'], busyScaled(12_000))).map((t) => t.seen);
      expectTrue(
        normal.every((t) => t !== undefined),
        `--unhealthy-zone-threshold=0.9 (3 of 4 is below it): evicted at the normal rate (${normal.join(', ')} ms)`,
        ['option.unhealthy-zone-threshold'],
      );
    });
  },
);

check(
  'daemon-controllers.node-ipam-and-ttl',
  {
    rows: [
      'controller.node',
      'controller.ttl',
      'option.allocate-node-cidrs',
      'option.cluster-cidr',
      'option.node-cidr-mask-size',
      'option.service-cluster-ip-range',
      'option.cidr-allocator-type',
    ],
    title:
      'node IPAM gives distinct /--node-cidr-mask-size blocks of --cluster-cidr outside --service-cluster-ip-range, CIDRNotAvailable when full; ttl annotates nodes',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      // 10.123.4.0/24 in /26 blocks = 4; the service range 10.123.4.0/25 takes two: 2 blocks for 3 nodes.
      const flags = [
        '--allocate-node-cidrs',
        '--cluster-cidr=10.123.4.0/24',
        '--node-cidr-mask-size=26',
        '--service-cluster-ip-range=10.123.4.0/25',
        '--cidr-allocator-type=RangeAllocator',
      ];
      await withControllers(env, 'node,ttl', flags, 'node IPAM', async ({ p }) => {
        const kubelets = env.kubelets();
        for (const n of ['ip-0', 'ip-1', 'ip-2']) await kubelets.add(n);
        const cidrs = await within(busyScaled(30_000), async () => {
          const got = (await api.list('/api/v1/nodes')).map((n) => (n.spec as { podCIDR?: string } | undefined)?.podCIDR).filter(Boolean) as string[];
          return got.length >= 2 ? got.sort() : undefined;
        });
        expectTrue(
          JSON.stringify(cidrs) === JSON.stringify(['10.123.4.128/26', '10.123.4.192/26']),
          `the nodes got ${JSON.stringify(cidrs)}, expected the two /26 blocks of 10.123.4.0/24 outside 10.123.4.0/25${cidrs ? '' : ` (daemon output: ${tail(`${p.stdout}\n${p.stderr}`, 1200)})`}`,
          ['option.allocate-node-cidrs', 'option.cluster-cidr', 'option.node-cidr-mask-size', 'option.service-cluster-ip-range', 'option.cidr-allocator-type'],
        );
        const full = await within(
          30_000,
          async () =>
            ((await api.list('/api/v1/namespaces/default/events')) as Array<KubeObject & { reason?: string; involvedObject?: { kind?: string } }>).some(
              (e) => e.reason === 'CIDRNotAvailable' && e.involvedObject?.kind === 'Node',
            ) || undefined,
        );
        expectTrue(full === true, 'the third node got a CIDRNotAvailable event (no block left)', ['option.node-cidr-mask-size', 'controller.node']);
        const ttl = await within(busyScaled(30_000), async () =>
          (await api.list('/api/v1/nodes')).every((n) => n.metadata.annotations?.['node.alpha.kubernetes.io/ttl'] === '0') ? true : undefined,
        );
        expectTrue(ttl === true, 'ttl: every node of a 3-node cluster has node.alpha.kubernetes.io/ttl "0"', ['controller.ttl']);
      });
    });
  },
);

type LbEvent = KubeObject & { reason?: string; count?: number; firstTimestamp?: string; lastTimestamp?: string; involvedObject?: { name?: string } };

/** The Events of a namespace about its Services (the service controller's), each the latest state of one. */
async function serviceEvents(api: Http, ns: string): Promise<LbEvent[]> {
  return ((await api.list(`/api/v1/namespaces/${ns}/events`)) as LbEvent[]).filter((e) => (e as { involvedObject?: { kind?: string } }).involvedObject?.kind === 'Service');
}

check(
  'daemon-controllers.cloud',
  {
    rows: [
      'controller.service', 'controller.route', 'option.cloud-provider', 'option.cloud-config', 'option.service-sync-period', 'option.concurrent-service-syncs',
      'option.route-reconciliation-period', 'option.configure-cloud-routes', 'option.cloud-a-container-registry-config', 'option.cloud-b-json-key', 'auth.daemon.cloud-credentials',
    ],
    title: 'the simulated cloud: LoadBalancer ingress from the --cloud-config pool (synced each --service-sync-period, --concurrent-service-syncs at once), routes (NetworkUnavailable=False) only with --configure-cloud-routes, bad cloud files and unknown providers refused',
    timeoutSeconds: 180,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const json = join(env.dir, 'key.json');
      writeFileSync(json, '{"type": "service_account"}\n');
      const badJson = join(env.dir, 'bad.json');
      writeFileSync(badJson, '{not json\n');
      const badConfig = join(env.dir, 'bad-cloud.yaml');
      writeFileSync(badConfig, 'loadBalancerPool: 17\n');
      // Refusals first: unknown provider, malformed --cloud-config, malformed credential files.
      const refusals: Array<{ args: string[]; names: RegExp; row: string[] }> = [
        { args: ['--cloud-provider=no-such-cloud'], names: /unknown cloud provider/, row: ['option.cloud-provider'] },
        { args: ['--cloud-provider=simulated', `--cloud-config=${badConfig}`], names: /--cloud-config/, row: ['option.cloud-config'] },
        {
          args: [`--cloud-a-container-registry-config=${badJson}`],
          names: /--cloud-a-container-registry-config/,
          row: ['option.cloud-a-container-registry-config', 'auth.daemon.cloud-credentials'],
        },
        {
          args: [`--cloud-b-json-key=${join(env.dir, 'absent.json')}`],
          names: /--cloud-b-json-key/,
          row: ['option.cloud-b-json-key', 'auth.daemon.cloud-credentials'],
        },
      ];
      const pool = join(env.dir, 'cloud.yaml');
      writeFileSync(pool, 'loadBalancerPool: [203.0.113.50, 203.0.113.51, 203.0.113.52]\nloadBalancerProvisionSeconds: 1\n');
      // A daemon without the simulated cloud (a real one) cannot show its cloud loops here: skipped, saying so.
      // The probe and the refusals are separate processes, started side by side.
      const probing = (async () => {
        const probe = new DaemonProcess(
          env.command,
          [
            `--master=${env.masterUrl}`,
            '--leader-elect=false',
            '--address=127.0.0.1',
            `--port=${await freePort()}`,
            '--controllers=ttl',
            '--cloud-provider=simulated',
            `--cloud-config=${pool}`,
          ],
          env.cwd,
        );
        try {
          await within(START_TIMEOUT_MS, async () => (probe.exit !== undefined || /cloud provider/.test(`${probe.stdout}${probe.stderr}`) ? true : undefined));
          return /unknown cloud provider/.test(`${probe.stdout}\n${probe.stderr}`);
        } finally {
          await probe.stop();
        }
      })();
      const refused = await Promise.all(
        refusals.map((r) => runToExit(env.command, [`--master=${env.masterUrl}`, '--leader-elect=false', '--port=0', ...r.args], env.cwd, START_TIMEOUT_MS)),
      );
      const noCloud = await probing;
      refusals.forEach((r, i) => {
        const res = refused[i];
        expectTrue(
          res.code !== 0 && r.names.test(`${res.stdout}\n${res.stderr}`),
          `${r.args.join(' ')}: the daemon ${res.code === 0 ? 'exited 0' : `exited ${res.code ?? res.signal}`} ${r.names.test(`${res.stdout}\n${res.stderr}`) ? 'naming the problem' : `without naming ${r.names}: ${tail(res.stderr || res.stdout, 200)}`}`,
          r.row,
        );
      });
      if (noCloud) ctx.skip('the daemon under test has no "simulated" cloud provider, so its cloud loops cannot be observed here');
      const kubelets = env.kubelets();
      for (const n of ['cl-0', 'cl-1']) await kubelets.add(n);
      const flags = [
        '--cloud-provider=simulated',
        `--cloud-config=${pool}`,
        '--allocate-node-cidrs',
        '--cluster-cidr=10.124.0.0/16',
        '--route-reconciliation-period=300ms',
        '--service-sync-period=500ms',
        '--concurrent-service-syncs=3',
        `--cloud-a-container-registry-config=${json}`,
        `--cloud-b-json-key=${json}`,
      ];
      const ns = await namespaceFor(api, 'lb');
      const svc = (name: string) => ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: name } },
      });
      const ingress = (s: KubeObject | undefined) =>
        (s?.status as { loadBalancer?: { ingress?: Array<{ ip?: string }> } } | undefined)?.loadBalancer?.ingress?.[0]?.ip;
      // The three Services exist before the daemon starts: its first list hands all of them to its workers at
      // once, so how many it provisions side by side does not depend on how fast this process could create them.
      for (const n of ['a', 'b', 'c']) await api.send('POST', `/api/v1/namespaces/${ns}/services`, svc(n));
      await withControllers(env, 'node,service,route', flags, 'the simulated cloud', async () => {
        const lbsReady = within(busyScaled(30_000), async () => {
          const ips = (await api.list(`/api/v1/namespaces/${ns}/services`)).map(ingress);
          return ips.length === 3 && ips.every(Boolean) ? (ips as string[]).sort() : undefined;
        });
        const routed = await within(busyScaled(30_000), async () =>
          (
            await Promise.all(
              ['cl-0', 'cl-1'].map(async (n) => conditionOfNode(await api.get(`/api/v1/nodes/${n}`), 'NetworkUnavailable')?.reason === 'RouteCreated'),
            )
          ).every(Boolean)
            ? true
            : undefined,
        );
        expectTrue(routed === true, 'route: both nodes got NetworkUnavailable=False (RouteCreated) once their pod ranges were routed', [
          'controller.route',
          'option.route-reconciliation-period',
          'option.configure-cloud-routes',
          'option.cloud-provider',
          'option.cloud-a-container-registry-config',
          'option.cloud-b-json-key',
          'auth.daemon.cloud-credentials',
        ]);
        const ips = await lbsReady;
        expectTrue(
          JSON.stringify(ips) === JSON.stringify(['203.0.113.50', '203.0.113.51', '203.0.113.52']),
          `LoadBalancer Services got the pool's addresses: ${JSON.stringify(ips ?? (await api.list(`/api/v1/namespaces/${ns}/services`)).map(ingress))}`,
          ['controller.service', 'option.cloud-config'],
        );
        // Side by side or one after the other, by the daemon's own clock: the service controller's events
        // CreatingLoadBalancer (when a worker starts a Service) and CreatedLoadBalancer (when its 1 s of
        // provisioning is over), whole seconds. Three workers start all three before the first is done: the last
        // start is stamped no later than the first end. One worker starts c 2 s after a, 1 s after a ended.
        const lbEvents = await serviceEvents(api, ns);
        const stamp = (reason: string) => lbEvents.filter((e) => e.reason === reason).map((e) => Date.parse(e.firstTimestamp ?? ''));
        const starts = stamp('CreatingLoadBalancer');
        const ends = stamp('CreatedLoadBalancer');
        expectTrue(
          starts.length === 3 && ends.length === 3 && [...starts, ...ends].every(Number.isFinite) && Math.max(...starts) <= Math.min(...ends),
          `--concurrent-service-syncs=3: 3 load balancers of 1 s each were started at ${starts.map((t) => new Date(t).toISOString().slice(11, 19)).join(', ')} and done at ${ends.map((t) => new Date(t).toISOString().slice(11, 19)).join(', ')} (events CreatingLoadBalancer / CreatedLoadBalancer; side by side: every start no later than the first end)`,
          ['option.concurrent-service-syncs'],
        );
        // The pool is empty: d waits, and the daemon tries it again every --service-sync-period (500 ms) after
        // each failed attempt (1 s of provisioning), not after a back-off of 5 s, then 10 s: its
        // CreatingLoadBalancerFailed event, by the daemon's clock, counts 3 attempts within a few seconds (the
        // back-off: 17 s). Then a goes and d gets the freed address.
        await api.send('POST', `/api/v1/namespaces/${ns}/services`, svc('d'));
        const failedOf = async () => (await serviceEvents(api, ns)).find((e) => e.involvedObject?.name === 'd' && e.reason === 'CreatingLoadBalancerFailed');
        const retried = await within(busyScaled(15_000), async () => ((((await failedOf())?.count ?? 0) >= 3 ? await failedOf() : undefined)));
        const retrySpan = retried ? (Date.parse(retried.lastTimestamp ?? '') - Date.parse(retried.firstTimestamp ?? '')) / 1000 : undefined;
        expectTrue(
          retried !== undefined && retrySpan !== undefined && retrySpan <= 10,
          `--service-sync-period=500ms: a Service waiting for a free address was tried ${retried ? `${retried.count} times within ${retrySpan} s` : `${(await failedOf())?.count ?? 0} times within ${busyScaled(15_000) / 1000} s`} (event CreatingLoadBalancerFailed; a back-off alone: 3 tries take 17 s)`,
          ['option.service-sync-period'],
        );
        const freed = ingress(await api.get(`/api/v1/namespaces/${ns}/services/a`));
        await api.send('DELETE', `/api/v1/namespaces/${ns}/services/a`);
        const got = await seenAt(busyScaled(10_000), async () => ingress(await api.get(`/api/v1/namespaces/${ns}/services/d`)) === freed);
        expectTrue(got !== undefined, `a waiting Service got the address freed by a deleted one (${freed}) within ${busyScaled(10_000) / 1000} s`, [
          'controller.service',
          'option.service-sync-period',
        ]);
      });
      // --configure-cloud-routes=false: new nodes get ranges but no route (no NetworkUnavailable condition).
      for (const n of ['cr-0']) await kubelets.add(n);
      // (The route controller may say it does not start: the 1.9 daemon skips it then.)
      const noRoutes = [
        '--cloud-provider=simulated',
        `--cloud-config=${pool}`,
        '--allocate-node-cidrs',
        '--cluster-cidr=10.125.0.0/16',
        '--route-reconciliation-period=300ms',
        '--configure-cloud-routes=false',
      ];
      await withControllers(env, 'node,route', noRoutes, '--configure-cloud-routes=false', async () => {
        const ranged = await within(busyScaled(30_000), async () => ((await api.get('/api/v1/nodes/cr-0'))?.spec as { podCIDR?: string } | undefined)?.podCIDR);
        await sleep(1_500);
        const cond = conditionOfNode(await api.get('/api/v1/nodes/cr-0'), 'NetworkUnavailable');
        expectTrue(
          ranged !== undefined && cond === undefined,
          `--configure-cloud-routes=false: the node got a range (${ranged}) and no route (NetworkUnavailable ${JSON.stringify(cond)})`,
          ['option.configure-cloud-routes'],
        );
      }, { mayNotStart: ['route'] });
    });
  },
);

check(
  'daemon-controllers.taint-manager',
  {
    rows: ['controller.node', 'option.enable-taint-manager', 'gate.TaintBasedEvictions', 'gate.TaintNodesByCondition'],
    title: 'node: --enable-taint-manager evicts pods not tolerating a NoExecute taint (not when off); TaintBasedEvictions taints a failed node unreachable; TaintNodesByCondition taints by conditions',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubelets = env.kubelets();
      const taintsOf = async (n: string) =>
        ((await api.get(`/api/v1/nodes/${n}`))?.spec as { taints?: Array<{ key: string; effect: string }> } | undefined)?.taints ?? [];
      const gone = async (ns: string, p: string) => {
        const pod = await api.get(`/api/v1/namespaces/${ns}/pods/${p}`);
        return pod === undefined || pod.metadata.deletionTimestamp != null;
      };
      const tolerateForever = { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }] };
      for (const n of ['tm-a', 'tm-d']) await kubelets.add(n);
      await kubelets.add('tm-c', {}, false);
      const ns = await namespaceFor(api, 'taints');
      await runningPod(api, ns, 'plain', 'tm-a');
      await runningPod(api, ns, 'tolerant', 'tm-a', tolerateForever);
      await runningPod(api, ns, 'on-d', 'tm-d');
      const flags = [
        '--enable-taint-manager=true',
        '--feature-gates=TaintBasedEvictions=true,TaintNodesByCondition=true',
        '--node-monitor-period=200ms',
        // Long enough that no node with heartbeats goes Unknown in a stall of this process (its taint would evict "tolerant").
        '--node-monitor-grace-period=8s',
        '--pod-eviction-timeout=1h',
      ];
      await withControllers(env, 'node', flags, 'taint manager on', async () => {
        await api.send(
          'PATCH',
          '/api/v1/nodes/tm-a',
          { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] } },
          'application/merge-patch+json',
        );
        const evicted = await within(busyScaled(30_000), async () => ((await gone(ns, 'plain')) ? true : undefined));
        expectTrue(evicted === true, '--enable-taint-manager=true: a pod not tolerating a NoExecute taint of its node was evicted', [
          'option.enable-taint-manager',
          'controller.node',
        ]);
        expectTrue(!(await gone(ns, 'tolerant')), 'a pod tolerating the taint (no tolerationSeconds) stays', ['option.enable-taint-manager']);
        const ts = nowText();
        await api.send(
          'PATCH',
          '/api/v1/nodes/tm-c/status',
          {
            status: {
              conditions: [
                { type: 'MemoryPressure', status: 'True', reason: 'Check', message: 'set by the check', lastHeartbeatTime: ts, lastTransitionTime: ts },
              ],
            },
          },
          'application/strategic-merge-patch+json',
        );
        const pressure = await within(busyScaled(30_000), async () =>
          (await taintsOf('tm-c')).some((t) => t.key === 'node.kubernetes.io/memory-pressure' && t.effect === 'NoSchedule') ? true : undefined,
        );
        expectTrue(pressure === true, 'TaintNodesByCondition: MemoryPressure=True gave the node the node.kubernetes.io/memory-pressure:NoSchedule taint', [
          'gate.TaintNodesByCondition',
        ]);
        kubelets.stop('tm-d');
        const unreachable = await within(busyScaled(30_000), async () =>
          (await taintsOf('tm-d')).some((t) => t.key === 'node.alpha.kubernetes.io/unreachable' && t.effect === 'NoExecute') ? true : undefined,
        );
        const dEvicted = await within(busyScaled(30_000), async () => ((await gone(ns, 'on-d')) ? true : undefined));
        expectTrue(
          unreachable === true && dEvicted === true,
          `TaintBasedEvictions: the failed node got the unreachable:NoExecute taint (${unreachable === true}) and its pod was evicted by it despite a 1 h eviction timeout (${dEvicted === true})`,
          ['gate.TaintBasedEvictions'],
        );
      });
      await kubelets.add('tm-e');
      await runningPod(api, ns, 'kept', 'tm-e');
      await withControllers(env, 'node', ['--enable-taint-manager=false', '--node-monitor-period=200ms'], 'taint manager off', async () => {
        await api.send(
          'PATCH',
          '/api/v1/nodes/tm-e',
          { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] } },
          'application/merge-patch+json',
        );
        await sleep(3_000);
        expectTrue(!(await gone(ns, 'kept')), '--enable-taint-manager=false: a pod not tolerating a NoExecute taint stays', ['option.enable-taint-manager']);
      });
    });
  },
);
