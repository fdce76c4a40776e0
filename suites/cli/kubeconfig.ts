// Reads the current context of a kubeconfig file into a TargetConnection: server, CA, client certificate,
// token, insecure-skip-tls-verify. Relative file paths are resolved against the kubeconfig's folder, as
// kubectl does.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import yaml from 'js-yaml';
import type { TargetConnection } from '../harness/connection.ts';

export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

type Dict = Record<string, unknown>;

function asDict(value: unknown, what: string): Dict {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new KubeconfigError(`${what} is not a mapping`);
  return value as Dict;
}

function named(list: unknown, name: string, what: string, field: string): Dict {
  if (!Array.isArray(list)) throw new KubeconfigError(`kubeconfig has no ${what} list`);
  const entry = list.find((e) => e && typeof e === 'object' && (e as Dict).name === name);
  if (!entry) throw new KubeconfigError(`kubeconfig has no ${what.replace(/s$/, '')} named "${name}"`);
  return asDict((entry as Dict)[field] ?? {}, `${what} "${name}"`);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function parseKubeconfig(text: string, baseDir: string, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): TargetConnection {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new KubeconfigError(`kubeconfig is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const config = asDict(doc, 'kubeconfig');
  const current = str(config['current-context']);
  if (!current) throw new KubeconfigError('kubeconfig has no current-context');
  const context = named(config.contexts, current, 'contexts', 'context');
  const clusterName = str(context.cluster);
  if (!clusterName) throw new KubeconfigError(`context "${current}" names no cluster`);
  const cluster = named(config.clusters, clusterName, 'clusters', 'cluster');
  const userName = str(context.user);
  const user = userName ? named(config.users, userName, 'users', 'user') : {};
  const server = str(cluster.server);
  if (!server) throw new KubeconfigError(`cluster "${clusterName}" has no server`);

  const fileOrData = (dataKey: string, fileKey: string): { data?: string; file?: string } => {
    const source = dataKey.startsWith('client') ? user : cluster;
    const data = str(source[dataKey]);
    if (data) return { data: Buffer.from(data, 'base64').toString('utf8') };
    const file = str(source[fileKey]);
    if (!file) return {};
    const path = resolve(baseDir, file);
    try {
      return { data: readFile(path), file: path };
    } catch (err) {
      throw new KubeconfigError(`cannot read ${fileKey} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };

  const ca = fileOrData('certificate-authority-data', 'certificate-authority');
  const cert = fileOrData('client-certificate-data', 'client-certificate');
  const key = fileOrData('client-key-data', 'client-key');
  let token = str(user.token);
  const tokenFile = str(user.tokenFile);
  if (!token && tokenFile) {
    const path = resolve(baseDir, tokenFile);
    try {
      token = readFile(path).trim();
    } catch (err) {
      throw new KubeconfigError(`cannot read tokenFile ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  const connection: TargetConnection = { url: server };
  if (token) connection.token = token;
  if (ca.data) connection.caData = ca.data;
  if (ca.file) connection.caFile = ca.file;
  if (cert.data) connection.certData = cert.data;
  if (cert.file) connection.certFile = cert.file;
  if (key.data) connection.keyData = key.data;
  if (key.file) connection.keyFile = key.file;
  if (cluster['insecure-skip-tls-verify'] === true) connection.insecureSkipTlsVerify = true;
  return connection;
}

export function readKubeconfig(path: string): TargetConnection {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`cannot read kubeconfig ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseKubeconfig(text, dirname(resolve(path)));
}
