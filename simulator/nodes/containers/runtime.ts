// The containers of simulated pods (ContainerRuntime of ../../api/container-runtime.ts), handed to the API server
// by simulator/cluster.ts. Each container instance (pod uid, container name, container ID of its current start)
// has its own MemFs, created on first use with /etc/hostname, /etc/hosts, /tmp, /root, its working directory and
// the files configured for it; a restarted container starts over, as a real one does.
//
// exec: a scripted answer when one matches (config.ts); else, with `localExec`, a real process on the host in a
// per-container directory; else the built-in command (builtins.ts), with busybox's messages, or exit 126 with the
// runtime's message when there is no such command. attach: joins the main process, whose output reaches the
// client from then on (its repeated log line as each comes due) and which echoes what it reads on stdin when
// the container has `stdin: true`. connect: a declared containerPort
// (or one the image exposes, images.ts) is answered by the responder (responder.ts) or the configured address;
// any other port is refused as socat refuses it on a real node.

import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readSync, closeSync, fstatSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '../../api/meta.ts';
import type { ContainerRuntime, ContainerTarget, ProcessIO } from '../../api/container-runtime.ts';
import { MemFs, resolvePath } from './memfs.ts';
import { BUILTINS } from './builtins.ts';
import { type Input, type Output, type ShellState, type Stdio } from './shell.ts';
import { readableInput, ttyInput, ttyOutput } from './terminal.ts';
import { containerEnv, containerSpecOf } from './environment.ts';
import { forwardAddress, initialFiles, logFileFor, scriptedAnswer, type ContainerConfig } from './config.ts';
import { Responder } from './responder.ts';
import { imageDefaults } from './images.ts';
import { repeatedLine, repeatedText } from '../../api/container-log.ts';

export interface SimulatedContainersOptions {
  /** The cluster-wide configuration (`--container-config`). */
  config?: ContainerConfig;
  /**
   * Run exec'd commands as real processes on this host, each container in a directory of its own under this
   * path (`--local-exec DIR`). Off unless given.
   */
  localExecDir?: string;
  /** Most container filesystems kept (the least recently used go first). */
  maxContainers?: number;
}

interface Instance {
  fs: MemFs;
}

export class SimulatedContainers implements ContainerRuntime {
  private readonly instances = new Map<string, Instance>();
  private readonly responder = new Responder();
  private readonly running = new Set<() => void>();

  constructor(private readonly opts: SimulatedContainersOptions = {}) {}

  private get config(): ContainerConfig {
    return this.opts.config ?? {};
  }

  /** The container's filesystem, made on first use. */
  instance(pod: KubeObject, container: string): Instance {
    const key = instanceKey(pod, container);
    let inst = this.instances.get(key);
    if (inst) {
      this.instances.delete(key);
      this.instances.set(key, inst);
      return inst;
    }
    const fs = new MemFs();
    for (const d of ['/bin', '/etc', '/tmp', '/root', '/var/log', '/usr/bin']) fs.mkdir(d, { parents: true });
    const name = pod.metadata.name ?? '';
    const ip = ((pod.status ?? {}) as { podIP?: string }).podIP;
    fs.writeFile('/etc/hostname', Buffer.from(`${name}\n`));
    fs.writeFile('/etc/hosts', Buffer.from(`127.0.0.1\tlocalhost\n${ip ? `${ip}\t${name}\n` : ''}`));
    const workingDir = containerSpecOf(pod, container)?.workingDir;
    if (workingDir) fs.mkdir(resolvePath('/', workingDir), { parents: true });
    // The kubelet mounts an empty file at terminationMessagePath, so a process can write its message there.
    const files: Record<string, string> = { [terminationMessagePath(pod, container)]: '', ...initialFiles(pod, this.config) };
    for (const [path, content] of Object.entries(files)) {
      try {
        const abs = resolvePath('/', path);
        fs.mkdir(abs.slice(0, abs.lastIndexOf('/')) || '/', { parents: true });
        fs.writeFile(abs, Buffer.from(String(content)));
      } catch {
        // a path that cannot be a file (under another file) is left out
      }
    }
    inst = { fs };
    this.instances.set(key, inst);
    const max = this.opts.maxContainers ?? 10_000;
    while (this.instances.size > max) this.instances.delete(this.instances.keys().next().value!);
    return inst;
  }

  async exec(target: ContainerTarget, command: string[], io: ProcessIO): Promise<number> {
    const { pod, container } = target;
    const stdio = this.stdio(io);
    const answer = scriptedAnswer(pod, container, command, this.config);
    if (answer) {
      if (answer.delaySeconds) await delay(answer.delaySeconds * 1000, io.signal);
      if (answer.stdout) await stdio.stdout(answer.stdout);
      if (answer.stderr) await stdio.stderr(answer.stderr);
      return Number.isInteger(answer.exitCode) ? answer.exitCode! & 0xff : 0;
    }
    const env = await containerEnv(pod, container, target.lookup, io.tty);
    const workingDir = resolvePath('/', containerSpecOf(pod, container)?.workingDir ?? '/');
    if (this.opts.localExecDir !== undefined) return this.execLocal(target, command, env, io);
    const name = command[0].slice(command[0].lastIndexOf('/') + 1);
    const fn = BUILTINS[name];
    if (!fn) {
      await stdio.stdout(
        `OCI runtime exec failed: exec failed: container_linux.go:348: starting container process caused "exec: \\"${command[0]}\\": executable file not found in $PATH": unknown\n`,
      );
      return 126;
    }
    const sh: ShellState = {
      fs: this.instance(pod, container).fs,
      env,
      cwd: workingDir,
      status: 0,
      signal: io.signal,
      hostname: pod.metadata.name ?? '',
      tty: io.tty,
      startedAt: startedAt(pod, container),
    };
    sh.env.set('PWD', workingDir);
    return (await fn(command.slice(1), stdio, sh)) & 0xff;
  }

  async attach(target: ContainerTarget, io: ProcessIO): Promise<number | undefined> {
    const stdio = this.stdio(io);
    const stopOutput = this.mainOutput(target, stdio.stdout, io.signal);
    try {
      if (!io.stdin) {
        await new Promise<void>((r) => (io.signal.aborted ? r() : io.signal.addEventListener('abort', () => r(), { once: true })));
        return undefined;
      }
      // The main process echoes what it reads on stdin, until the client closes it (kubectl attach -i, then EOF);
      // a container without `stdin: true` has no stdin open, so what the client sends reaches nothing.
      const echoes = (containerSpecOf(target.pod, target.container) as { stdin?: boolean } | undefined)?.stdin === true;
      for (let c = await stdio.stdin.read(); c && !io.signal.aborted; c = await stdio.stdin.read()) if (echoes) await stdio.stdout(c);
      return undefined;
    } finally {
      stopOutput();
    }
  }

  /**
   * What the main process writes while a client is attached: its repeated log line (`log-repeat`,
   * ../../api/container-log.ts) each time one comes due, numbered as `kubectl logs` numbers it. The lines
   * written before the client attached are not sent again, as on a real node. Returns the stop.
   */
  private mainOutput(target: ContainerTarget, stdout: Output, signal: AbortSignal): () => void {
    const repeat = repeatedLine(target.pod, target.container);
    if (!repeat) return () => {};
    const start = startedAt(target.pod, target.container);
    let n = Math.floor((Date.now() - start) / repeat.periodMs) + 1;
    let timer: NodeJS.Timeout | undefined;
    const next = () => {
      timer = setTimeout(() => {
        if (signal.aborted) return;
        void stdout(`${repeatedText(repeat.line, n++)}\n`);
        next();
      }, Math.max(0, start + n * repeat.periodMs - Date.now()));
    };
    next();
    return () => clearTimeout(timer);
  }

  async connect(pod: KubeObject, port: number): Promise<Duplex> {
    const addr = forwardAddress(pod, port, this.config);
    if (addr) {
      return new Promise((resolve, reject) => {
        const s = net.connect(addr.port, addr.host);
        s.once('connect', () => {
          s.off('error', reject);
          resolve(s);
        });
        s.once('error', (e) => reject(new Error(`exit status 1: socat E connect(5, AF=2 ${addr.host}:${addr.port}, 16): ${e.message}`)));
      });
    }
    type Container = { name: string; image?: string; ports?: Array<{ containerPort: number; protocol?: string }> };
    const containers = ((pod.spec ?? {}) as { containers?: Container[] }).containers ?? [];
    const owner =
      containers.find((c) => (c.ports ?? []).some((p) => p.containerPort === port && (p.protocol ?? 'TCP') === 'TCP')) ??
      containers.find((c) => imageDefaults(c.image)?.ports.includes(port));
    if (!owner) throw new Error(`exit status 1: socat E connect(5, AF=2 127.0.0.1:${port}, 16): Connection refused`);
    return this.responder.connect({ namespace: pod.metadata.namespace ?? 'default', pod: pod.metadata.name ?? '', container: owner.name, port, index: imageDefaults(owner.image)?.index });
  }

  readFile(pod: KubeObject, container: string, path: string): Buffer | undefined {
    const inst = this.instances.get(instanceKey(pod, container));
    if (inst) {
      try {
        return inst.fs.readFile(resolvePath('/', path));
      } catch {
        return undefined;
      }
    }
    // Never exec'd into: the files it started with, without making a filesystem for it.
    const text = Object.entries(initialFiles(pod, this.config)).find(([p]) => resolvePath('/', p) === resolvePath('/', path))?.[1];
    return text === undefined ? undefined : Buffer.from(String(text));
  }

  logFile(pod: KubeObject, container: string): string | undefined {
    const path = logFileFor(pod, container, this.config);
    if (!path) return undefined;
    // The last MiB at most: a log file may grow without bound.
    try {
      const fd = openSync(path, 'r');
      try {
        const size = fstatSync(fd).size;
        const len = Math.min(size, 1024 * 1024);
        const buf = Buffer.alloc(len);
        readSync(fd, buf, 0, len, size - len);
        return buf.toString('utf8');
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      return `(log file ${path}: ${(e as Error).message})\n`;
    }
  }

  close(): void {
    for (const stop of this.running) stop();
    this.instances.clear();
    this.responder.close();
  }

  private stdio(io: ProcessIO): Stdio {
    const write = (w: NodeJS.WritableStream | undefined): Output => {
      if (!w) return async () => {};
      return (d) =>
        new Promise<void>((resolve) => {
          const b = typeof d === 'string' ? Buffer.from(d) : d;
          if (!b.length || io.signal.aborted || (w as { destroyed?: boolean }).destroyed) return resolve();
          w.write(b, () => resolve());
        });
    };
    let stdout = write(io.stdout);
    let stderr = io.tty ? stdout : write(io.stderr);
    if (io.tty) stdout = stderr = ttyOutput(stdout);
    let stdin: Input = readableInput(io.stdin);
    if (io.tty && io.stdin) stdin = ttyInput(stdin, stdout);
    return { stdin, stdout, stderr };
  }

  private execLocal(target: ContainerTarget, command: string[], env: Map<string, string>, io: ProcessIO): Promise<number> {
    const dir = join(this.opts.localExecDir!, target.pod.metadata.namespace ?? 'default', target.pod.metadata.name ?? '', target.container);
    mkdirSync(dir, { recursive: true });
    return new Promise((resolve) => {
      const child = spawn(command[0], command.slice(1), { cwd: dir, env: { ...Object.fromEntries(env), PATH: process.env.PATH ?? env.get('PATH') }, stdio: 'pipe' });
      const stop = () => child.kill('SIGKILL');
      this.running.add(stop);
      io.signal.addEventListener('abort', stop);
      if (io.stdin) io.stdin.pipe(child.stdin);
      else child.stdin.end();
      child.stdin.on('error', () => {});
      if (io.stdout) child.stdout.pipe(io.stdout, { end: false });
      if (io.stderr) child.stderr.pipe(io.tty ? io.stdout! : io.stderr, { end: false });
      else if (io.tty && io.stdout) child.stderr.pipe(io.stdout, { end: false });
      let settled = false;
      const done = (code: number) => {
        if (settled) return;
        settled = true;
        this.running.delete(stop);
        io.signal.removeEventListener('abort', stop);
        resolve(code);
      };
      child.on('error', (e: NodeJS.ErrnoException) => {
        void (io.stdout?.write(`OCI runtime exec failed: exec failed: starting container process caused "exec: \\"${command[0]}\\": ${e.code === 'ENOENT' ? 'executable file not found in $PATH' : e.message}": unknown\n`));
        done(126);
      });
      child.on('close', (code, signal) => done(code ?? (signal ? 128 + 9 : 1)));
    });
  }
}

/** One filesystem per container instance: pod uid, container, and the container ID of its current start. */
function instanceKey(pod: KubeObject, container: string): string {
  type Status = { name: string; containerID?: string; restartCount?: number };
  const status = ((pod.status ?? {}) as { containerStatuses?: Status[] }).containerStatuses?.find((s) => s.name === container);
  return `${pod.metadata.uid}/${container}/${status?.containerID ?? status?.restartCount ?? 0}`;
}

/** The container's terminationMessagePath (1.9 default /dev/termination-log). */
function terminationMessagePath(pod: KubeObject, container: string): string {
  return resolvePath('/', (containerSpecOf(pod, container) as { terminationMessagePath?: string } | undefined)?.terminationMessagePath || '/dev/termination-log');
}

function startedAt(pod: KubeObject, container: string): number {
  type Status = { name: string; state?: { running?: { startedAt?: string } } };
  const st = ((pod.status ?? {}) as { containerStatuses?: Status[] }).containerStatuses?.find((s) => s.name === container);
  const t = Date.parse(st?.state?.running?.startedAt ?? '');
  return Number.isFinite(t) ? t : Date.now();
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
