// Where the API is and how to authenticate, the daemon's way: --xconfig (a client config file, read by
// codec/kubeconfig.ts) and --master, which overrides the file's server address.

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ClientConfigError, normalizeServer, parseKubeconfig, type ClientConfig } from '../codec/kubeconfig.ts';

export { ClientConfigError, normalizeServer, parseKubeconfig, renderKubeconfig, type ClientConfig } from '../codec/kubeconfig.ts';

/** The daemon's rule: --master alone, --xconfig alone, or both with --master overriding the server. */
export function loadClientConfig(opts: { xconfig?: string; master?: string }): ClientConfig {
  const xconfig = opts.xconfig || undefined;
  const master = opts.master || undefined;
  if (!xconfig && !master) {
    throw new ClientConfigError('neither --xconfig nor --master was given; the daemon needs one of them to find the API server');
  }
  let cfg: ClientConfig = { server: '' };
  if (xconfig) {
    let text: string;
    try {
      text = readFileSync(xconfig, 'utf8');
    } catch (err) {
      throw new ClientConfigError(`cannot read --xconfig ${xconfig}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    cfg = parseKubeconfig(text, xconfig, dirname(resolve(xconfig)));
  }
  if (master) cfg = { ...cfg, server: normalizeServer(master) };
  return cfg;
}
