// The streaming half of the kubectl client matrix (simulator/clients/kubectl-streams-*.test.ts): what a user does
// with the containers of a simulated cluster — exec (with and without -it, exit codes), attach (stdin echoed, the
// main process's repeated log line streamed), cp both ways,
// port-forward with an HTTP request through it, proxy to a service, logs -f of configured lines, top pod of a
// configured usage — and the refusals (unknown container, undeclared port). kubectl 1.32 negotiates its newer
// WebSocket protocol first, is refused as by a 1.9 server, and falls back to SPDY/3.1; kubectl 1.20 speaks SPDY.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { eventually } from './test-simulator.ts';
import { clientDir, requireClient, run, skipUnlessFound, type ClientDir, type ClientProbe, type RunResult } from './real-clients.ts';

type Json = Record<string, any>;
const NS = 'streams';

const MANIFESTS = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations:
        simulator.cluster.local/log: "configured line"
        simulator.cluster.local/log-repeat: "300ms tick {n}"
        simulator.cluster.local/cpu-usage: "250m"
        simulator.cluster.local/memory-usage: "64Mi"
    spec:
      containers:
      - name: nginx
        image: nginx:1.13
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Pod
metadata:
  name: box
spec:
  containers:
  - name: main
    image: busybox
    command: [sh]
    stdin: true
    tty: true
    workingDir: /work
    env: [{name: GREETING, value: hello}, {name: MY_POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A long-running kubectl (port-forward, proxy, logs -f): its output so far, and a stop. */
function background(bin: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; out: () => string; stop: () => void } {
  const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  return { child, out: () => text, stop: () => child.kill('SIGTERM') };
}

export function kubectlStreamsMatrix(label: string, probe: ClientProbe): void {
  describe(`kubectl ${label}: exec, attach, cp, port-forward, proxy, logs -f, top`, { skip: skipUnlessFound(probe) }, () => {
    let sim: RunningSimulator;
    let cd: ClientDir;
    let bin: string;
    let webPod: string;
    const k = (args: string[], input?: string): Promise<RunResult> => run(bin, ['-n', NS, ...args], { env: cd.env, input, timeoutMs: 30_000 });
    const ok = async (args: string[], input?: string): Promise<string> => {
      const r = await k(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      return r.stdout;
    };

    before(async () => {
      bin = requireClient(probe).path;
      // serviceaccount and its token: the ServiceAccount admission plugin (on where controllers run) admits a pod
      // only once its namespace's default account has a token, as on a real cluster.
      const controllers = ['deployment', 'replicaset', 'endpoint', 'serviceaccount', 'serviceaccount-token'];
      sim = await startSimulator({ controllers, nodes: { count: 1, startMs: 50, log: () => {} } });
      cd = clientDir(sim.url, NS);
      await ok(['create', 'namespace', NS]);
      await eventually('the default service account and its token', async () => {
        const r = await fetch(`${sim.url}/api/v1/namespaces/${NS}/serviceaccounts/default`);
        return r.ok && ((await r.json()) as Json).secrets?.length > 0;
      });
      const file = join(cd.dir, 'streams.yaml');
      writeFileSync(file, MANIFESTS);
      await ok(['apply', '-f', file]);
      await ok(['wait', '--for=condition=Ready', 'pod', '--all', '--timeout=60s']);
      webPod = (await ok(['get', 'pod', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
      await eventually('endpoints of web', async () => {
        const r = await fetch(`${sim.url}/api/v1/namespaces/${NS}/endpoints/web`);
        const ep = (await r.json()) as Json;
        return ep.subsets?.[0]?.addresses?.length > 0;
      });
    });
    after(async () => {
      await sim?.close();
      if (cd) rmSync(cd.dir, { recursive: true, force: true });
    });

    test('exec: output, environment, working directory and exit codes', async () => {
      assert.match(await ok(['exec', 'box', '--', 'ls', '/']), /^bin$/m);
      assert.equal(await ok(['exec', 'box', '--', 'sh', '-c', 'echo $GREETING $MY_POD $(pwd)']), 'hello box /work\n');
      const r = await k(['exec', 'box', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, 'out\n');
      assert.match(r.stderr, /^err$/m);
      assert.match(r.stderr, /command terminated with exit code 3/);
      const missing = await k(['exec', 'box', '--', 'nosuch']);
      assert.equal(missing.code, 126, missing.stderr);
      assert.match(missing.stdout, /executable file not found in \$PATH/);
    });

    test('exec -i: stdin reaches the command and its end ends it', async () => {
      assert.equal(await ok(['exec', '-i', 'box', '--', 'sh', '-c', 'cat > /tmp/in && wc -l < /tmp/in'], 'a\nb\nc\n'), '3\n');
    });

    test('exec -it: a terminal (shell prompt, echo) and its exit code', { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a terminal' }, async () => {
      const r = await run('/usr/bin/script', ['-qfec', `${bin} -n ${NS} exec -it box -- sh`, '/dev/null'], { env: cd.env, input: 'echo tty-$TERM\rexit 4\r', timeoutMs: 30_000 });
      assert.equal(r.code, 4, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /tty-xterm/);
      assert.match(r.stdout, /\/work # /);
      assert.match(r.stdout, /command terminated with exit code 4/);
    });

    test('attach -i: the main process answers what it reads', async () => {
      const r = await k(['attach', '-i', 'box'], 'ping\n');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ping$/m);
    });

    test('attach: the main process\'s repeated log line keeps coming to the attached client', async () => {
      const at = background(bin, ['-n', NS, 'attach', webPod], cd.env);
      try {
        const ticks = () => [...at.out().matchAll(/^tick (\d+)\r?$/gm)].map((m) => Number(m[1]));
        await eventually('two repeated lines while attached', async () => ticks().length >= 2, 20_000);
        const seen = ticks();
        assert.equal(seen[1], seen[0] + 1, at.out());
        assert.doesNotMatch(at.out(), /configured line/, 'what the container wrote before the attach is not sent again');
      } finally {
        at.stop();
      }
    });

    test('cp to the pod and back', async () => {
      const local = join(cd.dir, 'up.txt');
      writeFileSync(local, 'copied content\n');
      await ok(['cp', local, 'box:/tmp/up.txt']);
      assert.equal(await ok(['exec', 'box', '--', 'cat', '/tmp/up.txt']), 'copied content\n');
      await ok(['exec', 'box', '--', 'sh', '-c', 'mkdir -p /data/sub && echo deep > /data/sub/f']);
      const back = join(cd.dir, 'back');
      await ok(['cp', 'box:/data', back]);
      assert.equal(readFileSync(join(back, 'sub', 'f'), 'utf8'), 'deep\n');
    });

    test('port-forward, then an HTTP request through it', async () => {
      const port = await freePort();
      const pf = background(bin, ['-n', NS, 'port-forward', `pod/${webPod}`, `${port}:80`], cd.env);
      try {
        await eventually('port-forward listening', async () => pf.out().includes('Forwarding from'), 20_000);
        const res = await fetch(`http://127.0.0.1:${port}/through/forward?x=1`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as Json;
        assert.equal(body.pod, `${NS}/${webPod}`);
        assert.equal(body.container, 'nginx');
        assert.equal(body.port, 80);
        assert.equal(body.path, '/through/forward?x=1');
      } finally {
        pf.stop();
      }
    });

    test('port-forward to a port nothing listens on: the error reaches the client', async () => {
      const port = await freePort();
      const pf = background(bin, ['-n', NS, 'port-forward', `pod/${webPod}`, `${port}:81`], cd.env);
      try {
        await eventually('port-forward listening', async () => pf.out().includes('Forwarding from'), 20_000);
        await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text()).catch(() => undefined);
        await eventually('the forwarding error', async () => /error forwarding port 81/.test(pf.out()) || /connection refused/i.test(pf.out()), 10_000);
      } finally {
        pf.stop();
      }
    });

    test('proxy to a service, through its endpoints to the pod', async () => {
      const port = await freePort();
      const px = background(bin, ['proxy', `--port=${port}`], cd.env);
      try {
        await eventually('kubectl proxy serving', async () => px.out().includes('Starting to serve'), 20_000);
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/namespaces/${NS}/services/web:80/proxy/hello`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as Json;
        assert.equal(body.pod, `${NS}/${webPod}`);
        assert.equal(body.path, '/hello');
      } finally {
        px.stop();
      }
    });

    test('logs -f: the configured line, then the repeated one as it comes', async () => {
      const lf = background(bin, ['-n', NS, 'logs', '-f', webPod], cd.env);
      try {
        await eventually('configured and repeated lines', async () => /^configured line$/m.test(lf.out()) && /^tick \d+$/m.test(lf.out()), 20_000);
        const ticks = () => (lf.out().match(/^tick \d+$/gm) ?? []).length;
        const seen = ticks();
        await eventually('another tick while following', async () => ticks() > seen, 10_000);
      } finally {
        lf.stop();
      }
    });

    test('top pod: the configured usage', async () => {
      const out = await eventually('top pod', async () => {
        const r = await k(['top', 'pod', webPod]);
        return r.code === 0 && r.stdout;
      }, 20_000);
      assert.match(out, new RegExp(`^${webPod}\\s+250m\\s+64Mi\\s*$`, 'm'));
    });

    test('refusals: an unknown container, a pod without the container running', async () => {
      const r = await k(['exec', 'box', '-c', 'nope', '--', 'ls']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /container nope is not valid for pod box/);
    });
  });
}
