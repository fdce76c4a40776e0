// How to reach a target: its base URL plus credentials. Plain data (PEM text, not file handles) so the
// engine can hand it to the check processes as JSON.
import { Agent } from 'undici';

export interface TargetConnection {
  url: string;
  token?: string;
  /** PEM text of the CA bundle that signs the target's serving certificate. */
  caData?: string;
  certData?: string;
  keyData?: string;
  insecureSkipTlsVerify?: boolean;
  /**
   * Bearer token of a second identity (--as-user): a user without cluster-wide grants, which the auth suite
   * grants and denies things to. Never printed or written into reports.
   */
  asUserToken?: string;
  /** The client config file the connection came from (--kubeconfig), for the auth suite's proxy check. */
  kubeconfigFile?: string;
  /** True when the target is the simulator `npx tsx suites` started itself. */
  embedded?: boolean;
  /** Where the PEM came from, only to write reproducible curl lines. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export function createDispatcher(connection: TargetConnection): Agent {
  const connect: Record<string, unknown> = {};
  if (connection.caData) connect.ca = connection.caData;
  if (connection.certData) connect.cert = connection.certData;
  if (connection.keyData) connect.key = connection.keyData;
  if (connection.insecureSkipTlsVerify) connect.rejectUnauthorized = false;
  return new Agent({ connect, keepAliveTimeout: 4_000, connections: 32 });
}

/** Base URL without a trailing slash, validated; throws a one-line reason for anything unusable. */
export function normaliseTargetUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`target ${raw} is not a URL (expected e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`target ${raw} must use http or https`);
  if (url.search || url.hash) throw new Error(`target ${raw} must not carry a query or fragment`);
  return url.toString().replace(/\/+$/, '');
}
