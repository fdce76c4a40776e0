// Starts a throw-away single-member etcd for tests and benchmarks: free ports, a temp data dir, killed and
// removed by stop(). Tests must not depend on a system etcd service (CI runs without systemd), so each test file
// starts its own.
//
// When no etcd binary is installed the etcd tests must fail loudly (a silently skipped backend is an untested
// backend), unless SKIP_ETCD_TESTS=1 says the caller knows: `etcdTestSkipReason()` returns the reason to give
// `describe(..., { skip })` in that case only.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './ports.ts';

export interface EtcdTestServer {
  /** Client URL, e.g. http://127.0.0.1:43210 */
  url: string;
  /** Kills etcd (SIGKILL: no goodbye to clients) and starts it again on the same ports and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The etcd binary on PATH (or ETCD_BIN), or undefined. */
export function findEtcd(): string | undefined {
  const candidates = process.env.ETCD_BIN
    ? [process.env.ETCD_BIN]
    : [...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'etcd')), '/usr/bin/etcd'];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return undefined;
}

const MISSING =
  'etcd is not installed (no etcd on PATH, no /usr/bin/etcd): install it (apt-get install -y etcd-server) ' +
  'or set SKIP_ETCD_TESTS=1 to skip the etcd backend tests';

/** A skip reason when etcd is missing and SKIP_ETCD_TESTS=1; false otherwise (the tests then run, or fail). */
export function etcdTestSkipReason(): string | false {
  if (findEtcd() !== undefined) return false;
  return process.env.SKIP_ETCD_TESTS === '1' ? `SKIP_ETCD_TESTS=1: ${MISSING}` : false;
}

/** Go's GOARCH for this machine: etcd 3.4 refuses to start on arches it does not "support" unless told. */
function goArch(): string {
  const map: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };
  return map[process.arch] ?? process.arch;
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`etcd exited with code ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok && ((await res.json()) as { health?: string }).health === 'true') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`etcd did not become healthy within ${timeoutMs} ms:\n${log()}`);
}

export async function startEtcd(opts: { extraArgs?: string[]; timeoutMs?: number } = {}): Promise<EtcdTestServer> {
  const bin = findEtcd();
  if (bin === undefined) throw new Error(MISSING);
  let lastError: unknown;
  // Ports are picked by binding and releasing them, so another process can take one in between: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const dataDir = mkdtempSync(join(tmpdir(), 'etcd-test-'));
    const url = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Only set for arches etcd 3.4 calls unsupported: elsewhere etcd warns about an unknown ETCD_ variable.
    if (!['amd64', 'ppc64le'].includes(goArch())) env.ETCD_UNSUPPORTED_ARCH = goArch();
    const args = [
      '--name', 'default',
      '--data-dir', dataDir,
      '--listen-client-urls', url,
      '--advertise-client-urls', url,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `default=${peer}`,
      ...(opts.extraArgs ?? []),
    ];
    let log = '';
    let child: ChildProcess;
    const spawnEtcd = () => {
      child = spawn(bin, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (d: Buffer) => {
        log = (log + d.toString()).slice(-8000); // the tail is what explains a failed start
      });
    };
    const kill = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    };
    const stop = async () => {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    };
    const timeoutMs = opts.timeoutMs ?? 15_000;
    const restart = async () => {
      await kill();
      spawnEtcd();
      await waitHealthy(url, child, () => log, timeoutMs);
    };
    spawnEtcd();
    try {
      await waitHealthy(url, child!, () => log, timeoutMs);
      return { url, restart, stop };
    } catch (e) {
      lastError = e;
      await stop();
    }
  }
  throw lastError;
}
