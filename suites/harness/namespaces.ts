// Everything a run creates lives in namespaces named conformance-<run id>-<suffix>. Checks delete their own
// namespaces when they end; the engine sweeps the prefix at the end of the run (also after Ctrl-C), and
// nothing outside the prefix is ever touched.
import { randomBytes } from 'node:crypto';
import type { TargetClient } from './client.ts';
import { describeResponse, fail } from './expect.ts';

export const NAMESPACE_ROOT = 'conformance-';

export function newRunId(): string {
  return randomBytes(4).toString('hex').slice(0, 6);
}

export function namespacePrefixFor(runId: string): string {
  return `${NAMESPACE_ROOT}${runId}-`;
}

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(length = 6): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export async function createNamespace(client: TargetClient, name: string): Promise<void> {
  const res = await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (![200, 201, 202].includes(res.status)) fail(`could not create the check's namespace ${name}: ${describeResponse(res)}`);
}

/** How long a new namespace waits for its default service account (and token) before the check goes on anyway. */
export const DEFAULT_ACCOUNT_WAIT_MS = 30_000;

/**
 * Waits, at most `boundMs`, until namespace `ns` has its default service account (with a token Secret when `tokens`).
 * Never fails: a target that is slow to make them shows it in the check's own requests.
 */
export async function awaitDefaultAccount(client: TargetClient, ns: string, tokens: boolean, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    const res = await client.get<{ secrets?: unknown[] }>(`/api/v1/namespaces/${encodeURIComponent(ns)}/serviceaccounts/default`, { timeoutMs: 10_000 }).catch(() => undefined);
    if (res?.status === 200 && (!tokens || (res.object?.secrets ?? []).length > 0)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Whether the target makes default service accounts: the `default` namespace has one (its token says whether tokens
 * are made too). An embedded simulator with its daemon does, though the daemon may still be starting.
 */
export async function detectServiceAccounts(client: TargetClient): Promise<{ tokens: boolean } | undefined> {
  const res = await client.get<{ secrets?: unknown[] }>('/api/v1/namespaces/default/serviceaccounts/default', { timeoutMs: 10_000 }).catch(() => undefined);
  if (res?.status !== 200) return undefined;
  return { tokens: (res.object?.secrets ?? []).length > 0 };
}

export async function deleteNamespace(client: TargetClient, name: string): Promise<void> {
  try {
    await client.delete(`/api/v1/namespaces/${encodeURIComponent(name)}`, { timeoutMs: 10_000 });
  } catch {
    // Best effort: the end-of-run sweep tries again.
  }
}

/** Deletes every namespace of this run still present; returns their names. Never touches other namespaces. */
export async function sweepNamespaces(client: TargetClient, prefix: string): Promise<string[]> {
  if (!prefix.startsWith(NAMESPACE_ROOT) || prefix.length <= NAMESPACE_ROOT.length) throw new Error(`refusing to sweep namespaces with prefix "${prefix}"`);
  const res = await client.get<{ items?: Array<{ metadata?: { name?: string; deletionTimestamp?: string } }> }>('/api/v1/namespaces', { timeoutMs: 10_000 });
  if (res.status !== 200 || !Array.isArray(res.object?.items)) return [];
  const names = res.object.items
    .filter((ns) => !ns.metadata?.deletionTimestamp)
    .map((ns) => ns.metadata?.name)
    .filter((n): n is string => typeof n === 'string' && n.startsWith(prefix));
  await Promise.all(names.map((n) => deleteNamespace(client, n)));
  return names;
}

/**
 * Waits (at most `boundMs`) until no namespace of this run is still being deleted, and says how many were and how
 * long it took. The checks of the solo phase flood the target with writes and judge what a quiet target does with
 * them; a namespace controller still working through the namespaces of the ordinary checks (a few hundred, each
 * one a list and delete per kind) would share the target's time with them.
 */
export async function settleNamespaces(client: TargetClient, prefix: string, boundMs: number): Promise<{ terminating: number; waitedMs: number }> {
  const started = Date.now();
  let first: number | undefined;
  for (;;) {
    let left = 0;
    try {
      const res = await client.get<{ items?: Array<{ metadata?: { name?: string; deletionTimestamp?: string } }> }>('/api/v1/namespaces', { timeoutMs: 10_000 });
      left = (res.object?.items ?? []).filter((ns) => ns.metadata?.deletionTimestamp && ns.metadata.name?.startsWith(prefix)).length;
    } catch {
      left = 0; // the target went away: nothing to wait for
    }
    first ??= left;
    if (left === 0 || Date.now() - started > boundMs) return { terminating: first, waitedMs: Date.now() - started };
    await new Promise((r) => setTimeout(r, 250));
  }
}
