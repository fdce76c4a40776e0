// What steers the containers of simulated pods: annotations on the pod (or its template) and the cluster-wide
// file of `npx tsx simulator --container-config FILE` (YAML or JSON). An annotation wins over the file. Values
// that do not parse are ignored, like the other pod-behaviour annotations (../annotations.ts).
//
//   simulator.cluster.local/exec          scripted answers: a JSON/YAML list of
//                                          {command: [..] | "text with * wildcards", container?, stdout?, stderr?,
//                                           exitCode?, delaySeconds?}
//   simulator.cluster.local/files         files the container starts with: {"/path": "content", ...}
//   simulator.cluster.local/port-forward  ports answered by a local address instead of the responder:
//                                          "80=127.0.0.1:9000,443=localhost:9443"
//
// The file:  exec: [...]  (the same entries, with an optional `namespace` and `podSelector` of labels)
//            files: {...}   portForward: [{port, address, namespace?, podSelector?}]
//            logs: [{file, container?, namespace?, podSelector?}]  (only here: a pod cannot name host files)
//            usage: {cpu: "0s:10%,60s:90%", memory: "64Mi"}  (defaults of the metrics API, api/pod-usage.ts)

import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import type { KubeObject } from '../../api/meta.ts';

export const ANN_EXEC = 'simulator.cluster.local/exec';
export const ANN_FILES = 'simulator.cluster.local/files';
export const ANN_PORT_FORWARD = 'simulator.cluster.local/port-forward';

export interface ScriptedAnswer {
  command: string[] | string;
  container?: string;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  delaySeconds?: number;
  namespace?: string;
  podSelector?: Record<string, string>;
}

export interface PortForwardRule {
  port: number;
  address: string;
  namespace?: string;
  podSelector?: Record<string, string>;
}

export interface LogRule {
  /** A file on this host whose lines the container logged at its start (read on every request). */
  file: string;
  container?: string;
  namespace?: string;
  podSelector?: Record<string, string>;
}

export interface ContainerConfig {
  logs?: LogRule[];
  /** Cluster-wide usage when a pod says nothing: {cpu, memory}, each a quantity, a share or a schedule (../../api/pod-usage.ts). */
  usage?: { cpu?: string; memory?: string };
  exec?: ScriptedAnswer[];
  files?: Record<string, string>;
  portForward?: PortForwardRule[];
}

export function loadContainerConfig(path: string): ContainerConfig {
  const doc = yaml.load(readFileSync(path, 'utf8')) as ContainerConfig | null;
  if (doc !== null && (typeof doc !== 'object' || Array.isArray(doc))) throw new Error(`${path}: the container config must be a mapping`);
  return doc ?? {};
}

function parsed<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return yaml.load(text) as T;
  } catch {
    return undefined;
  }
}

function applies(rule: { namespace?: string; podSelector?: Record<string, string> }, pod: KubeObject): boolean {
  if (rule.namespace && rule.namespace !== pod.metadata.namespace) return false;
  return Object.entries(rule.podSelector ?? {}).every(([k, v]) => pod.metadata.labels?.[k] === v);
}

function glob(pattern: string, text: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 's');
  return re.test(text);
}

/** The scripted answer for a command, the pod's own before the file's. */
export function scriptedAnswer(pod: KubeObject, container: string, command: string[], config: ContainerConfig): ScriptedAnswer | undefined {
  const own = parsed<ScriptedAnswer[]>(pod.metadata.annotations?.[ANN_EXEC]);
  const candidates = [...(Array.isArray(own) ? own : []), ...(config.exec ?? []).filter((r) => applies(r, pod))];
  return candidates.find((a) => {
    if (!a || typeof a !== 'object') return false;
    if (a.container && a.container !== container) return false;
    if (Array.isArray(a.command)) return a.command.length === command.length && a.command.every((w, i) => w === command[i]);
    return typeof a.command === 'string' && glob(a.command, command.join(' '));
  });
}

export function initialFiles(pod: KubeObject, config: ContainerConfig): Record<string, string> {
  const own = parsed<Record<string, string>>(pod.metadata.annotations?.[ANN_FILES]);
  return { ...(config.files ?? {}), ...(own && typeof own === 'object' && !Array.isArray(own) ? own : {}) };
}

/** The local address a port of the pod is forwarded to, if one is configured. */
export function forwardAddress(pod: KubeObject, port: number, config: ContainerConfig): { host: string; port: number } | undefined {
  const own = pod.metadata.annotations?.[ANN_PORT_FORWARD];
  let address: string | undefined;
  for (const item of (own ?? '').split(',')) {
    const [p, a] = item.split('=').map((s) => s.trim());
    if (Number(p) === port && a) address = a;
  }
  address ??= (config.portForward ?? []).find((r) => r.port === port && applies(r, pod))?.address;
  if (!address) return undefined;
  const i = address.lastIndexOf(':');
  const n = Number(address.slice(i + 1));
  return i > 0 && n > 0 && n < 65536 ? { host: address.slice(0, i), port: n } : undefined;
}

/** The log file configured for a container, if any. */
export function logFileFor(pod: KubeObject, container: string, config: ContainerConfig): string | undefined {
  return (config.logs ?? []).find((r) => r && typeof r.file === 'string' && (!r.container || r.container === container) && applies(r, pod))?.file;
}
