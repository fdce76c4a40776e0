// The filesystem of one simulated container: a tree of directories and files in memory, with modes and
// modification times, as much of a POSIX tree as the built-in commands need (no links, owners or devices).
// Paths are resolved like a shell does: absolute, or relative to a working directory; `.` and `..` fold.

export interface FileNode {
  type: 'file';
  data: Buffer;
  mode: number;
  mtime: number;
}
export interface DirNode {
  type: 'dir';
  children: Map<string, Node>;
  mode: number;
  mtime: number;
}
export type Node = FileNode | DirNode;

/** An error of a file operation, with the text `strerror` gives (the commands print it). */
export class FsError extends Error {
  constructor(
    readonly code: 'ENOENT' | 'ENOTDIR' | 'EISDIR' | 'EEXIST' | 'ENOTEMPTY' | 'EINVAL' | 'EFBIG',
    readonly path: string,
  ) {
    super(FS_MESSAGES[code]);
  }
}
const FS_MESSAGES = {
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EEXIST: 'File exists',
  ENOTEMPTY: 'Directory not empty',
  EINVAL: 'Invalid argument',
  EFBIG: 'File too large',
};

/** Bytes one container may hold in files (a simulated node has no disk to fill). */
export const DEFAULT_FS_LIMIT = 64 * 1024 * 1024;

export function resolvePath(cwd: string, path: string): string {
  const parts = (path.startsWith('/') ? path : `${cwd}/${path}`).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '' || p === '.') continue;
    if (p === '..') out.pop();
    else out.push(p);
  }
  return `/${out.join('/')}`;
}

export class MemFs {
  readonly root: DirNode;
  private used = 0;

  constructor(
    private readonly now: () => number = Date.now,
    readonly limit = DEFAULT_FS_LIMIT,
  ) {
    this.root = { type: 'dir', children: new Map(), mode: 0o755, mtime: now() };
  }

  get bytesUsed(): number {
    return this.used;
  }

  /** The node at an absolute path, or undefined. */
  get(path: string): Node | undefined {
    let node: Node = this.root;
    for (const name of split(path)) {
      if (node.type !== 'dir') return undefined;
      const next = node.children.get(name);
      if (!next) return undefined;
      node = next;
    }
    return node;
  }

  stat(path: string): Node {
    const n = this.get(path);
    if (!n) throw new FsError(this.parentIsFile(path) ? 'ENOTDIR' : 'ENOENT', path);
    return n;
  }

  readFile(path: string): Buffer {
    const n = this.stat(path);
    if (n.type === 'dir') throw new FsError('EISDIR', path);
    return n.data;
  }

  writeFile(path: string, data: Buffer, opts: { append?: boolean; mode?: number; mtime?: number } = {}): void {
    const { parent, name } = this.parentOf(path);
    const cur = parent.children.get(name);
    if (cur?.type === 'dir') throw new FsError('EISDIR', path);
    const next = opts.append && cur ? Buffer.concat([cur.data, data]) : data;
    const delta = next.length - (cur?.data.length ?? 0);
    if (this.used + delta > this.limit) throw new FsError('EFBIG', path);
    this.used += delta;
    const mtime = opts.mtime ?? this.now();
    if (cur) {
      cur.data = next;
      cur.mtime = mtime;
      if (opts.mode !== undefined) cur.mode = opts.mode;
    } else parent.children.set(name, { type: 'file', data: next, mode: opts.mode ?? 0o644, mtime });
    parent.mtime = this.now();
  }

  mkdir(path: string, opts: { parents?: boolean; mode?: number; mtime?: number } = {}): void {
    if (opts.parents) {
      let node: DirNode = this.root;
      for (const name of split(path)) {
        const next = node.children.get(name);
        if (next?.type === 'file') throw new FsError('ENOTDIR', path);
        if (next) node = next;
        else {
          const d: DirNode = { type: 'dir', children: new Map(), mode: opts.mode ?? 0o755, mtime: opts.mtime ?? this.now() };
          node.children.set(name, d);
          node = d;
        }
      }
      return;
    }
    const { parent, name } = this.parentOf(path);
    if (parent.children.has(name)) throw new FsError('EEXIST', path);
    parent.children.set(name, { type: 'dir', children: new Map(), mode: opts.mode ?? 0o755, mtime: opts.mtime ?? this.now() });
  }

  remove(path: string, opts: { recursive?: boolean } = {}): void {
    const { parent, name } = this.parentOf(path);
    const n = parent.children.get(name);
    if (!n) throw new FsError('ENOENT', path);
    if (n.type === 'dir' && !opts.recursive) throw new FsError('EISDIR', path);
    this.used -= sizeOf(n);
    parent.children.delete(name);
  }

  rmdir(path: string): void {
    const n = this.stat(path);
    if (n.type !== 'dir') throw new FsError('ENOTDIR', path);
    if (n.children.size) throw new FsError('ENOTEMPTY', path);
    this.remove(path, { recursive: true });
  }

  /** Every node under a path (itself first), depth first in name order, with absolute paths. */
  *walk(path: string): Generator<[string, Node]> {
    const n = this.stat(path);
    yield [path, n];
    if (n.type === 'dir') for (const name of [...n.children.keys()].sort()) yield* this.walk(path === '/' ? `/${name}` : `${path}/${name}`);
  }

  private parentOf(path: string): { parent: DirNode; name: string } {
    const parts = split(path);
    const name = parts.pop();
    if (name === undefined) throw new FsError('EINVAL', path);
    const parent = this.get(`/${parts.join('/')}`);
    if (!parent) throw new FsError('ENOENT', path);
    if (parent.type !== 'dir') throw new FsError('ENOTDIR', path);
    return { parent, name };
  }

  private parentIsFile(path: string): boolean {
    const parts = split(path);
    for (let i = 1; i < parts.length; i++) if (this.get(`/${parts.slice(0, i).join('/')}`)?.type === 'file') return true;
    return false;
  }
}

function split(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function sizeOf(n: Node): number {
  if (n.type === 'file') return n.data.length;
  let s = 0;
  for (const c of n.children.values()) s += sizeOf(c);
  return s;
}
