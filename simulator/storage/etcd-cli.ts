// The simulator CLI's storage flags (--storage, --etcd-servers, --etcd-prefix): their parseArgs specs, help
// lines and validation, kept here so the CLI (simulator/index.ts) only wires them in.

import type { Store } from './store.ts';

export const STORAGE_OPTIONS = {
  storage: { type: 'string', default: 'memory' },
  'etcd-servers': { type: 'string' },
  'etcd-prefix': { type: 'string' },
} as const;

export const STORAGE_HELP = `  --storage memory|etcd       where objects live (default memory: in this process, gone on exit;
                              etcd: an etcd v3 cluster, which several simulators can share)
  --etcd-servers URL[,URL]    etcd client URLs for --storage etcd (default http://127.0.0.1:2379)
  --etcd-prefix PATH          etcd key prefix for --storage etcd (default /registry, as the real apiserver)
`;

export interface StorageArgs {
  storage?: string;
  'etcd-servers'?: string;
  'etcd-prefix'?: string;
}

export interface StorageChoice {
  storage: 'memory' | 'etcd';
  servers: string[];
  prefix: string;
}

/** Validates the flags; throws an Error whose message is fit for the user. */
export function parseStorageArgs(values: StorageArgs): StorageChoice {
  const storage = values.storage ?? 'memory';
  if (storage !== 'memory' && storage !== 'etcd') throw new Error(`invalid --storage ${JSON.stringify(storage)}: expected memory or etcd`);
  if (storage === 'memory') {
    for (const flag of ['etcd-servers', 'etcd-prefix'] as const) {
      if (values[flag] !== undefined) throw new Error(`--${flag} needs --storage etcd`);
    }
  }
  const servers = (values['etcd-servers'] ?? 'http://127.0.0.1:2379').split(',').map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) throw new Error('invalid --etcd-servers "": expected URL[,URL]');
  for (const s of servers) {
    let url: URL | undefined;
    try {
      url = new URL(s);
    } catch {
      url = undefined;
    }
    if (!url || url.protocol !== 'http:' || !url.hostname || (url.pathname !== '/' && url.pathname !== '')) {
      throw new Error(`invalid --etcd-servers entry ${JSON.stringify(s)}: expected http://HOST:PORT (TLS is not supported by this flag)`);
    }
  }
  let prefix = values['etcd-prefix'] ?? '/registry';
  if (!prefix.startsWith('/') || prefix.includes('//')) throw new Error(`invalid --etcd-prefix ${JSON.stringify(prefix)}: expected an absolute path such as /registry`);
  prefix = prefix.replace(/\/+$/, '');
  if (prefix === '') throw new Error('invalid --etcd-prefix "/": the simulator needs a prefix of its own, such as /registry');
  return { storage, servers, prefix };
}

/**
 * The store the flags ask for, connected (undefined = the default memory store, which startSimulator makes with
 * the history window itself). Fails with a clear message when etcd cannot be reached.
 */
export async function openStore(choice: StorageChoice, window: { historyEvents: number; historyAgeMs: number }): Promise<Store | undefined> {
  if (choice.storage === 'memory') return undefined;
  // Loaded only for --storage etcd: the etcd client (gRPC) is the heaviest module of the tree, and the default
  // memory store must not pay for it at start.
  const { EtcdStore } = await import('./etcd.ts');
  const store = new EtcdStore({ servers: choice.servers, prefix: choice.prefix, ...window, client: { dialTimeout: 5000 } });
  try {
    await store.ready();
  } catch (e) {
    await store.close();
    throw new Error(`cannot reach etcd at ${choice.servers.join(',')}: ${(e as Error).message}`);
  }
  return store;
}
