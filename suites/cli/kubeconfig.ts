// --kubeconfig: the current context of a client config file as a TargetConnection (server, CA, client
// certificate and key, token, insecure-skip-tls-verify). The file format is read by the simulator's codec
// (simulator/codec/kubeconfig.ts, a tool like the wire codecs: see suites/README.md); this file only maps what
// it read onto the harness's connection and keeps the file paths for reproducible curl lines.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ClientConfigError, parseKubeconfig as parseClientConfig } from '../../simulator/codec/kubeconfig.ts';
import type { TargetConnection } from '../harness/connection.ts';

export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

/** Parses a kubeconfig's text; files it names are read relative to baseDir with readFile (tests pass theirs). */
export function parseKubeconfig(text: string, baseDir: string, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): TargetConnection {
  let c;
  try {
    c = parseClientConfig(text, 'kubeconfig', baseDir, undefined, (p) => Buffer.from(readFile(p)));
  } catch (err) {
    if (err instanceof ClientConfigError) throw new KubeconfigError(err.message);
    throw err;
  }
  const connection: TargetConnection = { url: c.server };
  if (c.token) connection.token = c.token;
  if (c.ca) connection.caData = c.ca.toString('utf8');
  if (c.files?.ca) connection.caFile = c.files.ca;
  if (c.cert) connection.certData = c.cert.toString('utf8');
  if (c.files?.cert) connection.certFile = c.files.cert;
  if (c.key) connection.keyData = c.key.toString('utf8');
  if (c.files?.key) connection.keyFile = c.files.key;
  if (c.insecureSkipTLSVerify) connection.insecureSkipTlsVerify = true;
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
