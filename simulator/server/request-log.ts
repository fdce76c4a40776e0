// The request log (the real server's httplog, which 1.9 writes at --v=3): one line per answered request with
// the method and request URI, the latency, the status, the client's user agent and address, and the user the
// request was attributed to (authenticated, possibly impersonated; system:unsecured without authentication).
// With --use-service-account-credentials each controller of the daemon then shows as its own
// system:serviceaccount:kube-system:<name> (user, and user agent suffix). A watch is logged when it ends.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { attributedUserOf, UNSECURED_USER } from './authorization/filter.ts';

export interface RequestLogEntry {
  method: string;
  uri: string;
  status: number;
  latencyMs: number;
  user: string;
  groups: string[];
  userAgent: string;
  remote: string;
}

/** `authenticating`: whether the server authenticates (else every request is system:unsecured). */
export function requestLogEntry(request: FastifyRequest, reply: FastifyReply, authenticating: boolean): RequestLogEntry {
  // A request refused before authentication finished (401) has no user.
  const user = authenticating ? (attributedUserOf(request.raw) ?? { name: '', groups: [] }) : UNSECURED_USER;
  return {
    method: request.method,
    uri: request.raw.url ?? request.url,
    status: reply.statusCode,
    latencyMs: reply.elapsedTime,
    user: user.name,
    groups: [...(user.groups ?? [])],
    userAgent: String(request.headers['user-agent'] ?? ''),
    remote: `${request.socket.remoteAddress ?? ''}:${request.socket.remotePort ?? ''}`,
  };
}

/** Go's time.Duration text of a latency, as httplog prints it (e.g. 1.234567ms, 2.5s). */
function latencyText(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(6).replace(/\.?0+$/, '')}s`;
  if (ms >= 1) return `${ms.toFixed(6).replace(/\.?0+$/, '')}ms`;
  return `${Math.round(ms * 1000)}µs`;
}

/** `GET /api/v1/pods: (1.2ms) 200 [kube-controller-manager/v1.9.0 127.0.0.1:5555] user="..." groups=[...]` */
export function requestLogLine(e: RequestLogEntry): string {
  return `${e.method} ${e.uri}: (${latencyText(e.latencyMs)}) ${e.status} [${e.userAgent} ${e.remote}] user=${JSON.stringify(e.user)} groups=${JSON.stringify(e.groups)}`;
}
