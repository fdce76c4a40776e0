// The client config file format (kubeconfig: clusters, users, contexts, current-context), read and written.
// A codec, like the wire formats here: it turns a document into the connection it describes (server, CA,
// client certificate and key, token) and back, and judges nothing about an API. Relative file paths inside the
// file are read relative to the file, as client-go and kubectl do. Used by the daemon and the nodes through
// client/kubeconfig.ts (with the --xconfig/--master rule), by the simulator to write its config, and by the
// suites' --kubeconfig.

import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import yaml from 'js-yaml';
import type { ClientConfigFields } from './kubeconfig-fields.ts';

export interface ClientConfig {
  /** Base URL of the API, without a trailing slash. */
  server: string;
  token?: string;
  username?: string;
  password?: string;
  /** PEM bytes. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTLSVerify?: boolean;
  /** The context's namespace, if any. */
  namespace?: string;
  /** Absolute paths of the files the PEM came from (absent for inline *-data), e.g. to write curl lines. */
  files?: { ca?: string; cert?: string; key?: string };
}

/** How files named by the config are read (tests pass their own). */
export type ReadFile = (path: string) => Buffer;

export class ClientConfigError extends Error {}

type Named<T> = { name?: unknown } & { [k: string]: T | unknown };

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ClientConfigError(`${what} must be a string`);
  return v;
}

function findNamed(list: unknown, name: string, field: string, file: string): Record<string, unknown> {
  if (!Array.isArray(list)) throw new ClientConfigError(`${file}: "${field}s" must be a list`);
  const hit = (list as Named<unknown>[]).find((e) => isRecord(e) && e.name === name);
  if (!hit) throw new ClientConfigError(`${file}: no ${field} named ${JSON.stringify(name)}`);
  const body = (hit as Record<string, unknown>)[field];
  if (body !== undefined && !isRecord(body)) throw new ClientConfigError(`${file}: ${field} ${JSON.stringify(name)} must be a mapping`);
  return (body as Record<string, unknown>) ?? {};
}

function readBytes(base: string, path: string, what: string, read: ReadFile): Buffer {
  const full = isAbsolute(path) ? path : resolve(base, path);
  try {
    return read(full);
  } catch (err) {
    throw new ClientConfigError(`cannot read ${what} ${full}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function fileOrData(base: string, entry: Record<string, unknown>, fileKey: string, dataKey: string, read: ReadFile): { bytes?: Buffer; file?: string } {
  const data = str(entry[dataKey], dataKey);
  if (data !== undefined) return { bytes: Buffer.from(data, 'base64') };
  const file = str(entry[fileKey], fileKey);
  if (file === undefined) return {};
  return { bytes: readBytes(base, file, fileKey, read), file: isAbsolute(file) ? file : resolve(base, file) };
}

export function normalizeServer(server: string): string {
  let s = server.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) s = `http://${s}`; // client-go treats a bare host:port as http
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new ClientConfigError(`invalid API server address ${JSON.stringify(server)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClientConfigError(`API server address must be http or https: ${JSON.stringify(server)}`);
  return url.href.replace(/\/+$/, '');
}

/**
 * Parses a kubeconfig document (already read) with file paths relative to `baseDir`; `contextName` picks a
 * context other than the current one.
 */
export function parseKubeconfig(text: string, file: string, baseDir: string, contextName?: string, read: ReadFile = (p) => readFileSync(p)): ClientConfig {
  let doc: unknown;
  try {
    doc = yaml.load(text, { filename: file });
  } catch (err) {
    throw new ClientConfigError(`${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isRecord(doc)) throw new ClientConfigError(`${file} does not hold a client configuration mapping`);
  const ctxName = contextName ?? str(doc['current-context'], 'current-context');
  if (!ctxName) throw new ClientConfigError(`${file} has no current-context`);
  const context = findNamed(doc.contexts, ctxName, 'context', file);
  const clusterName = str(context.cluster, 'context.cluster');
  if (!clusterName) throw new ClientConfigError(`${file}: context ${JSON.stringify(ctxName)} names no cluster`);
  const cluster = findNamed(doc.clusters, clusterName, 'cluster', file);
  const userName = str(context.user, 'context.user');
  const user = userName ? findNamed(doc.users, userName, 'user', file) : {};
  const server = str(cluster.server, 'cluster.server');
  if (!server) throw new ClientConfigError(`${file}: cluster ${JSON.stringify(clusterName)} has no server`);
  const tokenFile = str(user.tokenFile, 'user.tokenFile');
  const ca = fileOrData(baseDir, cluster, 'certificate-authority', 'certificate-authority-data', read);
  const cert = fileOrData(baseDir, user, 'client-certificate', 'client-certificate-data', read);
  const key = fileOrData(baseDir, user, 'client-key', 'client-key-data', read);
  const cfg: ClientConfig = {
    server: normalizeServer(server),
    token: str(user.token, 'user.token') ?? (tokenFile ? readBytes(baseDir, tokenFile, 'tokenFile', read).toString('utf8').trim() : undefined),
    username: str(user.username, 'user.username'),
    password: str(user.password, 'user.password'),
    ca: ca.bytes,
    cert: cert.bytes,
    key: key.bytes,
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    namespace: str(context.namespace, 'context.namespace'),
  };
  if (ca.file || cert.file || key.file) cfg.files = { ca: ca.file, cert: cert.file, key: key.file };
  if ((cfg.cert === undefined) !== (cfg.key === undefined))
    throw new ClientConfigError(`${file}: user ${JSON.stringify(userName)} needs both a client certificate and a client key`);
  return cfg;
}

/** A one-context client config file (kubeconfig) with the credentials inlined as *-data fields. */
export function renderKubeconfig(c: ClientConfigFields): string {
  const name = c.name ?? 'simulator';
  const b64 = (v: string | Uint8Array) => (typeof v === 'string' ? Buffer.from(v) : Buffer.from(v)).toString('base64');
  const cluster: Record<string, string> = { server: c.server };
  if (c.ca) cluster['certificate-authority-data'] = b64(c.ca);
  const user: Record<string, string> = {};
  if (c.cert && c.key) {
    user['client-certificate-data'] = b64(c.cert);
    user['client-key-data'] = b64(c.key);
  }
  if (c.token) user.token = c.token;
  const context: Record<string, string> = { cluster: name, user: name };
  if (c.namespace) context.namespace = c.namespace;
  return yaml.dump(
    { apiVersion: 'v1', kind: 'Config', clusters: [{ name, cluster }], users: [{ name, user }], contexts: [{ name, context }], 'current-context': name },
    { lineWidth: -1 },
  );
}
