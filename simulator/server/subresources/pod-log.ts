// pods/log, and pods/exec|attach|portforward, for simulated nodes. The simulated kubelets run no processes, so a
// container's output is simulated from the pod itself (../../api/container-log.ts): each container start
// (status.containerStatuses: the current instance's state.running|terminated.startedAt, the previous one's
// lastState.terminated) writes the lines of the pod's `simulator.cluster.local/log` annotation or configured
// file, or by default one line naming the container and its image, then its `log-repeat` line every period.
// The real options apply: container, follow, previous, sinceSeconds, sinceTime, tailLines, timestamps,
// limitBytes, and the real errors: 400 for a missing or unknown container name, a container that has not
// started, or no previous instance. (exec, attach and portforward: streams/.)

import type { FastifyReply } from 'fastify';
import type { KubeObject } from '../../api/meta.ts';
import { badRequest, invalid, invalidValue, notFound, type FieldError } from '../errors.ts';
import type { ResourceRequest, ServerContext } from '../context.ts';
import { canonicalTime } from '../shape-check.ts';
import { queryBool, queryInt } from '../query-params.ts';
import { getStored } from '../registry/storage.ts';
import { annotationFor, containerLogLines, LOG_ANNOTATION, type LogLine } from '../../api/container-log.ts';

const PODS = { group: '', resource: 'pods' };

interface ContainerSpec {
  name: string;
  image?: string;
}
interface Instance {
  startedAt: string;
  running: boolean;
  /** When it ended (ms), for a terminated instance. */
  finishedAt?: number;
}
type State = { running?: { startedAt?: string }; terminated?: { startedAt?: string; finishedAt?: string }; waiting?: { reason?: string } };
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
    return { startedAt: t.startedAt, running: false, finishedAt: finished(t.finishedAt) };
  }
  const startedAt = st?.state?.running?.startedAt ?? st?.state?.terminated?.startedAt;
  if (!startedAt) {
    if (!((pod.spec ?? {}) as { nodeName?: string }).nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
    const reason = st?.state?.waiting?.reason ?? 'ContainerCreating';
    throw badRequest(`container "${c.name}" in pod "${name}" is waiting to start: ${reason}`);
  }
  return { startedAt, running: !!st?.state?.running, finishedAt: st?.state?.running ? undefined : finished(st?.state?.terminated?.finishedAt) };
}

function finished(t: string | undefined): number | undefined {
  const ms = Date.parse(t ?? '');
  return Number.isFinite(ms) ? ms : undefined;
}

/** What one instance of the container wrote until `now` (or its end): ../../api/container-log.ts. */
function linesOf(ctx: ServerContext, pod: KubeObject, c: ContainerSpec, inst: Instance, now: number): LogLine[] {
  const file = annotationFor(pod, LOG_ANNOTATION, c.name) === undefined ? ctx.containers?.logFile?.(pod, c.name) : undefined;
  const end = inst.finishedAt !== undefined ? Math.min(now, inst.finishedAt) : now;
  return containerLogLines(pod, c, Date.parse(inst.startedAt), end, file);
}

function render(lines: LogLine[], opts: LogOptions, now: number): string {
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
  const all = linesOf(ctx, pod, c, inst, ctx.now().getTime());
  let sent = all.length;
  let text = render(all, opts, ctx.now().getTime());
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
  // follow: the stream stays open while this instance runs, and lines written meanwhile (log-repeat) follow as
  // they come due; it ends when the container stops, is replaced, or the pod goes (as the kubelet's follow ends
  // with the container), when limitBytes are sent, or when the client leaves.
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
      if (!st || st.state?.running?.startedAt !== inst.startedAt) return end();
      const lines = linesOf(ctx, pod, c, inst, ctx.now().getTime());
      if (lines.length > sent) {
        const more = cut(render(lines.slice(sent), { ...opts, tailLines: undefined, sinceSeconds: undefined, sinceTime: undefined }, ctx.now().getTime()));
        sent = lines.length;
        if (more) res.write(more);
        if (budget <= 0) end();
      }
    }, end);
  }, 250);
  timer.unref();
  res.on('close', end);
}
