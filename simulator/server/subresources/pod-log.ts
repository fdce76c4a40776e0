// pods/log, and pods/exec|attach|portforward, for simulated nodes. The simulated kubelets run no processes, so a
// container's output is simulated from the pod itself: each container start (status.containerStatuses: the
// current instance's state.running|terminated.startedAt, the previous one's lastState.terminated) writes the
// lines of the pod's annotation `simulator.cluster.local/log` ("\n" separates lines; a pod template's annotation
// reaches its pods), or by default one line naming the container and its image, stamped with the start time.
// The real options apply: container, follow, previous, sinceSeconds, sinceTime, tailLines, timestamps,
// limitBytes, and the real errors: 400 for a missing or unknown container name, a container that has not
// started, or no previous instance. exec, attach and portforward answer a 400 Status saying the node is
// simulated (never a NotFound that would read as a missing pod).

import type { FastifyReply } from 'fastify';
import type { KubeObject } from '../../api/meta.ts';
import { badRequest, invalid, invalidValue, notFound, type FieldError } from '../errors.ts';
import type { ResourceRequest, ServerContext } from '../context.ts';
import { canonicalTime } from '../shape-check.ts';
import { queryBool, queryInt } from '../query-params.ts';
import { getStored } from '../registry/storage.ts';

export const LOG_ANNOTATION = 'simulator.cluster.local/log';

const PODS = { group: '', resource: 'pods' };

interface ContainerSpec {
  name: string;
  image?: string;
}
interface Instance {
  startedAt: string;
  running: boolean;
}
type State = { running?: { startedAt?: string }; terminated?: { startedAt?: string }; waiting?: { reason?: string } };
interface ContainerStatus {
  name: string;
  state?: State;
  lastState?: State;
}

interface LogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: number;
  tailLines?: number;
  limitBytes?: number;
}

function readOptions(req: ResourceRequest): LogOptions {
  const q = req.query;
  const opts: LogOptions = {
    container: q.container || undefined,
    follow: queryBool(q.follow) ?? false,
    previous: queryBool(q.previous) ?? false,
    timestamps: queryBool(q.timestamps) ?? false,
    sinceSeconds: queryInt('sinceSeconds', q.sinceSeconds),
    tailLines: queryInt('tailLines', q.tailLines),
    limitBytes: queryInt('limitBytes', q.limitBytes),
  };
  const errs: FieldError[] = [];
  if (q.sinceTime) {
    const t = canonicalTime(q.sinceTime);
    if (t === undefined) throw badRequest(`invalid value for sinceTime: ${JSON.stringify(q.sinceTime)} is not an RFC 3339 time`);
    opts.sinceTime = Date.parse(t);
  }
  if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) errs.push(invalidValue('sinceSeconds', opts.sinceSeconds, 'must be greater than 0'));
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined)
    errs.push(invalidValue('sinceSeconds', opts.sinceSeconds, 'at most one of sinceTime or sinceSeconds may be specified'));
  if (opts.tailLines !== undefined && opts.tailLines < 0) errs.push(invalidValue('tailLines', opts.tailLines, 'must be greater than or equal to 0'));
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) errs.push(invalidValue('limitBytes', opts.limitBytes, 'must be greater than 0'));
  if (errs.length) throw invalid('PodLogOptions', '', '', errs);
  return opts;
}

/** The container the request is about (the only one when none is named). */
function pickContainer(pod: KubeObject, wanted: string | undefined): ContainerSpec {
  const name = pod.metadata.name!;
  const containers = (((pod.spec ?? {}) as { containers?: ContainerSpec[] }).containers ?? []).filter((c) => c && typeof c.name === 'string');
  if (!wanted) {
    if (containers.length === 1) return containers[0];
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`);
  }
  const c = containers.find((x) => x.name === wanted);
  if (!c) throw badRequest(`container ${wanted} is not valid for pod ${name}`);
  return c;
}

/** The instance of the container whose output is asked for: the current one, or the previous (terminated) one. */
function instanceOf(pod: KubeObject, c: ContainerSpec, previous: boolean): Instance {
  const name = pod.metadata.name!;
  const statuses = (((pod.status ?? {}) as { containerStatuses?: ContainerStatus[] }).containerStatuses ?? []);
  const st = statuses.find((s) => s.name === c.name);
  if (previous) {
    const t = st?.lastState?.terminated;
    if (!t?.startedAt) throw badRequest(`previous terminated container "${c.name}" in pod "${name}" not found`);
    return { startedAt: t.startedAt, running: false };
  }
  const startedAt = st?.state?.running?.startedAt ?? st?.state?.terminated?.startedAt;
  if (!startedAt) {
    if (!((pod.spec ?? {}) as { nodeName?: string }).nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
    const reason = st?.state?.waiting?.reason ?? 'ContainerCreating';
    throw badRequest(`container "${c.name}" in pod "${name}" is waiting to start: ${reason}`);
  }
  return { startedAt, running: !!st?.state?.running };
}

/** What one instance of the container wrote: the annotation's lines (or the default line), at its start time. */
function linesOf(pod: KubeObject, c: ContainerSpec, inst: Instance): Array<{ at: number; text: string }> {
  const annotation = pod.metadata.annotations?.[LOG_ANNOTATION];
  const texts =
    annotation !== undefined
      ? annotation.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1)
      : [`container ${c.name} started (image ${c.image ?? ''})`];
  const at = Date.parse(inst.startedAt);
  return texts.map((text) => ({ at, text }));
}

function render(lines: Array<{ at: number; text: string }>, opts: LogOptions, now: number): string {
  let out = lines;
  const since = opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : opts.sinceTime;
  if (since !== undefined) out = out.filter((l) => l.at >= since);
  if (opts.tailLines !== undefined) out = opts.tailLines === 0 ? [] : out.slice(-opts.tailLines);
  // The kubelet's timestamps: RFC 3339 with nanoseconds, UTC.
  return out.map((l) => `${opts.timestamps ? `${new Date(l.at).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z')} ` : ''}${l.text}\n`).join('');
}

export async function servePodLog(ctx: ServerContext, req: ResourceRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  const opts = readOptions(req);
  const cur = await getStored(ctx, req.def, req.namespace, req.name!);
  if (!cur) throw notFound(PODS, req.name!);
  const pod = cur.value;
  const c = pickContainer(pod, opts.container);
  const inst = instanceOf(pod, c, opts.previous);
  let text = render(linesOf(pod, c, inst), opts, ctx.now().getTime());
  let budget = opts.limitBytes ?? Infinity;
  const cut = (s: string): string => {
    const b = Buffer.from(s);
    if (b.length <= budget) {
      budget -= b.length;
      return s;
    }
    const part = b.subarray(0, Math.max(0, budget)).toString();
    budget = 0;
    return part;
  };
  text = cut(text);
  if (!opts.follow || !inst.running || budget <= 0) {
    return reply.code(200).header('Content-Type', 'text/plain').send(Buffer.from(text));
  }
  // follow: the stream stays open while this instance runs; it ends when the container stops, is replaced, or
  // the pod goes (as the kubelet's follow ends with the container), or when the client leaves.
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  res.write(text);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    untrack();
    if (!res.writableEnded) res.end();
  };
  const untrack = ctx.hub.track(end);
  const timer = setInterval(() => {
    void getStored(ctx, req.def, req.namespace, req.name!).then((now) => {
      const st =
        now && now.value.metadata.uid === pod.metadata.uid
          ? (((now.value.status ?? {}) as { containerStatuses?: ContainerStatus[] }).containerStatuses ?? []).find((s) => s.name === c.name)
          : undefined;
      if (!st || st.state?.running?.startedAt !== inst.startedAt) end();
    }, end);
  }, 250);
  timer.unref();
  res.on('close', end);
}

/** exec, attach, portforward: the pod exists, but its node is simulated and runs no containers. */
export async function refuseStreaming(ctx: ServerContext, req: ResourceRequest, what: 'exec' | 'attach' | 'portforward'): Promise<never> {
  const cur = await getStored(ctx, req.def, req.namespace, req.name!);
  if (!cur) throw notFound(PODS, req.name!);
  const node = ((cur.value.spec ?? {}) as { nodeName?: string }).nodeName;
  throw badRequest(`${what} is not available for pod ${req.name}: ${node ? `node ${node}` : 'its node'} is simulated and runs no containers`);
}
