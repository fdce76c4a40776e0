// pods/exec, pods/attach and pods/portforward: the checks the real API server makes before it proxies the
// upgrade to the kubelet (the pod exists, the container is one of its own, the pod is bound to a node and its
// container runs), then the kubelet's part: the protocol switch (channels.ts, portforward.ts) and the container
// runtime of the simulated nodes (runtime.ts). Errors before the switch are Status objects like every answer;
// the ones the kubelet itself writes (protocol negotiation) are its plain text.

import type { FastifyReply } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '../../api/meta.ts';
import { badRequest, notFound } from '../errors.ts';
import { getStored, STORAGE_REFS } from '../registry/storage.ts';
import type { ResourceRequest, ServerContext } from '../context.ts';
import { takeUpgrade, type Upgrade } from './upgrade.ts';
import { isSpdy, isWebSocket, jsonObjects, refuseUpgrade, spdyChannels, webSocketChannels, type Channels, type Wanted } from './channels.ts';
import { streamLimits, type StreamLimits } from './limits.ts';
import type { ContainerRuntime, ContainerTarget, ProcessIO, TerminalSize } from '../../api/container-runtime.ts';
import { servePortForward } from './portforward.ts';

const PODS = { group: '', resource: 'pods' };

const limitsOf = new WeakMap<ServerContext, StreamLimits>();
export function limitsFor(ctx: ServerContext): StreamLimits {
  let l = limitsOf.get(ctx);
  if (!l) limitsOf.set(ctx, (l = streamLimits(ctx.settings.streamLimits?.total, ctx.settings.streamLimits?.perConnection)));
  return l;
}

/** Every value of a query parameter (command=sh&command=-c&command=...), from the raw URL. */
export function queryAll(raw: IncomingMessage, name: string): string[] {
  const url = new URL(raw.url ?? '/', 'http://x');
  return url.searchParams.getAll(name);
}

/** The real parameter codec's booleans: true, 1 and the like; absent is false. */
function flag(raw: IncomingMessage, name: string): boolean {
  const v = queryAll(raw, name)[0];
  return v !== undefined && ['true', '1', 't', 'T', 'TRUE', 'True'].includes(v);
}

interface ContainerSpec {
  name: string;
}

/** The container the request names (the only one when none is named), with the API server's messages. */
export function pickContainer(pod: KubeObject, wanted: string | undefined): string {
  const name = pod.metadata.name!;
  const containers = (((pod.spec ?? {}) as { containers?: ContainerSpec[] }).containers ?? []).filter((c) => c && typeof c.name === 'string');
  if (!wanted) {
    if (containers.length === 1) return containers[0].name;
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`);
  }
  if (!containers.some((c) => c.name === wanted)) throw badRequest(`container ${wanted} is not valid for pod ${name}`);
  return wanted;
}

/** The kubelet's refusal of a container that does not run (waiting, terminated) or a pod that has ended. */
function requireRunning(pod: KubeObject, container: string): void {
  const phase = ((pod.status ?? {}) as { phase?: string }).phase;
  const statuses = ((pod.status ?? {}) as { containerStatuses?: Array<{ name: string; state?: { running?: unknown } }> }).containerStatuses ?? [];
  const st = statuses.find((s) => s.name === container);
  if (phase === 'Succeeded' || phase === 'Failed' || !st?.state?.running) {
    throw badRequest(`container not found ("${container}")`);
  }
}

export async function serveStreaming(ctx: ServerContext, req: ResourceRequest, reply: FastifyReply, sub: 'exec' | 'attach' | 'portforward'): Promise<undefined> {
  const raw = reply.request.raw;
  const cur = await getStored(ctx, req.def, req.namespace, req.name!);
  if (!cur) throw notFound(PODS, req.name!);
  const pod = cur.value;
  const node = ((pod.spec ?? {}) as { nodeName?: string }).nodeName;
  const runtime = ctx.containers;
  if (sub === 'portforward') {
    if (!node) throw badRequest(`pod ${req.name} does not have a host assigned`);
    if (!runtime) throw badRequest(`portforward is not available for pod ${req.name}: node ${node} is simulated and runs no containers`);
    const up = upgradeOf(raw);
    servePortForward(raw, up, pod, runtime, limitsFor(ctx));
    reply.hijack();
    return undefined;
  }
  const container = pickContainer(pod, queryAll(raw, 'container')[0]);
  if (!node) throw badRequest(`pod ${req.name} does not have a host assigned`);
  if (!runtime) throw badRequest(`${sub} is not available for pod ${req.name}: node ${node} is simulated and runs no containers`);
  const command = queryAll(raw, 'command');
  if (sub === 'exec' && command.length === 0) throw badRequest('you must specify at least one command for the container');
  const wanted: Wanted = { stdin: flag(raw, 'stdin'), stdout: flag(raw, 'stdout'), stderr: flag(raw, 'stderr'), tty: flag(raw, 'tty') };
  if (!wanted.stdin && !wanted.stdout && !wanted.stderr) throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
  requireRunning(pod, container);
  const up = upgradeOf(raw);
  reply.hijack();
  const target: ContainerTarget = { pod, container, lookup: (resource, namespace, name) => lookup(ctx, resource, namespace, name) };
  void runRemoteCommand(raw, up, wanted, limitsFor(ctx), (io) => (sub === 'exec' ? runtime.exec(target, command, io) : runtime.attach(target, io)), command);
  return undefined;
}

/** The connection of an upgrade request; a plain request is refused as the kubelet refuses it. */
function upgradeOf(raw: IncomingMessage): Upgrade {
  const up = takeUpgrade(raw);
  if (!up || (!isSpdy(raw) && !isWebSocket(raw))) throw badRequest('Upgrade request required');
  return up;
}

async function lookup(ctx: ServerContext, resource: 'configmaps' | 'secrets', namespace: string, name: string): Promise<KubeObject | undefined> {
  return (await getStored(ctx, resource === 'secrets' ? STORAGE_REFS.secrets : STORAGE_REFS.configMaps, namespace, name))?.value;
}

async function runRemoteCommand(
  raw: IncomingMessage,
  up: Upgrade,
  wanted: Wanted,
  limits: StreamLimits,
  run: (io: ProcessIO) => Promise<number | undefined>,
  command: string[],
): Promise<void> {
  let ch: Channels | undefined;
  try {
    ch = await (isSpdy(raw) ? spdyChannels(raw, up, wanted, limits) : webSocketChannels(raw, up, wanted, limits));
  } catch {
    up.socket.destroy();
    return;
  }
  if (!ch) return;
  const channels = ch;
  const resizeListeners: Array<(s: TerminalSize) => void> = [];
  channels.resize?.on(
    'data',
    jsonObjects((v) => {
      const s = v as Partial<TerminalSize>;
      if (typeof s.Width === 'number' && typeof s.Height === 'number') for (const fn of resizeListeners) fn({ Width: s.Width, Height: s.Height });
    }),
  );
  const io: ProcessIO = {
    stdin: channels.stdin,
    stdout: channels.stdout,
    stderr: channels.stderr,
    tty: wanted.tty,
    onResize: (fn) => resizeListeners.push(fn),
    signal: channels.signal,
  };
  let code: number | undefined;
  try {
    code = await run(io);
  } catch (e) {
    if (channels.signal.aborted) return;
    await channels.finish({ status: 'Failure', message: (e as Error).message, reason: 'InternalError' }).catch(() => channels.abort());
    return;
  }
  if (channels.signal.aborted) return;
  await Promise.all([drain(channels.stdout), drain(channels.stderr)]);
  const status =
    code === undefined || code === 0
      ? ({ status: 'Success' } as const)
      : ({
          status: 'Failure',
          reason: 'NonZeroExitCode',
          message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
          exitCode: code,
        } as const);
  await channels.finish(status).catch(() => channels.abort());
}

/** Waits until what was written to an output channel went out. */
function drain(w: NodeJS.WritableStream | undefined): Promise<void> {
  const s = w as (NodeJS.WritableStream & { writableLength?: number; destroyed?: boolean }) | undefined;
  if (!s || s.destroyed || !s.writableLength) return Promise.resolve();
  return new Promise((r) => {
    s.once('drain', () => r());
    s.once('close', () => r());
  });
}

export { refuseUpgrade };
export type { ContainerRuntime };
