// Where the simulator's client config (kubeconfig) goes, written so that no other local user can plant or read it:
// by default a file in a directory made for it by mkdtemp (mode 0700, a name nobody can predict), removed on stop;
// with --kubeconfig-out a file written next to the target with an exclusive create (mode 0600) and renamed over it,
// so that a file or symbolic link already at the target is replaced, never followed or reused. --kubeconfig-merge
// puts this cluster's entries into the user's kubeconfig the same way and takes them out again on stop.

import { chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import yaml from 'js-yaml';

/**
 * Writes `text` to `path` through a fresh file beside it (O_EXCL, mode 0600) renamed into place: a regular file or
 * a symbolic link at `path` is replaced, never followed. A device or pipe there (`--kubeconfig-out /dev/null`) is
 * written through instead, opened without creating and without following a link: renaming over it would replace
 * the device node itself.
 */
export function writeFileSafely(path: string, text: string, mode = 0o600): void {
  let existing;
  try {
    existing = lstatSync(path);
  } catch {
    existing = undefined;
  }
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) {
    if (existing.isDirectory()) throw new Error(`${path} is a directory`);
    const fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(temp, text, { flag: 'wx', mode });
  try {
    chmodSync(temp, mode); // the umask may have taken bits away; the mode asked for is the one wanted
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}

export interface WrittenClientConfig {
  path: string;
  /** Removes what was written unless it is to stay (--kubeconfig-out). Idempotent and synchronous (runs on exit). */
  remove(): void;
}

/** The client config at --kubeconfig-out (kept), or in a private temporary directory (removed by remove()). */
export function writeClientConfig(text: string, out: string | undefined): WrittenClientConfig {
  if (out !== undefined) {
    const path = resolve(out);
    writeFileSafely(path, text);
    return { path, remove: () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cluster-simulator-'));
  const path = join(dir, 'kubeconfig');
  writeFileSafely(path, text);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The kubeconfig kubectl would write to: the first file of $KUBECONFIG, else ~/.kube/config. */
export function userKubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const first = (env.KUBECONFIG ?? '').split(delimiter).find((p) => p !== '');
  return resolve(first ?? join(homedir(), '.kube', 'config'));
}

interface Named {
  name: string;
  [k: string]: unknown;
}
interface KubeconfigDoc {
  apiVersion?: string;
  kind?: string;
  clusters?: Named[];
  users?: Named[];
  contexts?: Named[];
  'current-context'?: string;
  [k: string]: unknown;
}

const SECTIONS = ['clusters', 'users', 'contexts'] as const;

function readKubeconfig(path: string): KubeconfigDoc {
  if (!existsSync(path)) return { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [], 'current-context': '' };
  const doc = yaml.load(readFileSync(path, 'utf8')) ?? {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${path} is not a kubeconfig (not a mapping)`);
  return doc as KubeconfigDoc;
}

function writeKubeconfig(given: string, doc: KubeconfigDoc): void {
  // The user's own kubeconfig may be a link to where they keep it: that file is the one to update.
  const path = existsSync(given) ? realpathSync(given) : given;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let mode = 0o600;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // a new file
  }
  writeFileSafely(path, yaml.dump(doc, { lineWidth: -1 }), mode);
}

/**
 * Adds the cluster, user and context named `name` of `ours` (a kubeconfig text) to the kubeconfig at `path`,
 * replacing entries of that name, and makes the context current. The returned function takes them out again and
 * gives back the current context of before (when it still exists); it is synchronous, for exit handlers.
 */
export function mergeClientConfig(path: string, ours: string, name: string): () => void {
  const doc = readKubeconfig(path);
  const add = yaml.load(ours) as KubeconfigDoc;
  const previous = doc['current-context'];
  for (const section of SECTIONS) doc[section] = [...(doc[section] ?? []).filter((e) => e.name !== name), ...(add[section] ?? [])];
  doc['current-context'] = name;
  writeKubeconfig(path, doc);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    let now: KubeconfigDoc;
    try {
      now = readKubeconfig(path);
    } catch {
      return; // replaced by something that is no kubeconfig: not ours to touch
    }
    for (const section of SECTIONS) now[section] = (now[section] ?? []).filter((e) => e.name !== name);
    if (now['current-context'] === name) now['current-context'] = previous && now.contexts?.some((c) => c.name === previous) ? previous : '';
    writeKubeconfig(path, now);
  };
}
