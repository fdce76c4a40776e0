// tar archives (POSIX ustar, with GNU long names read and written as `././@LongLink` entries, the form GNU tar
// and busybox use) between a container's MemFs and a byte stream: what `kubectl cp` sends to `tar xf -` and reads
// from `tar cf -`. Regular files and directories only; other entry types are skipped on extraction.

import { FsError, resolvePath, type MemFs } from './memfs.ts';

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, opts: { size: number; mode: number; mtime: number; type: string }): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name.slice(0, 100), 0, 'utf8');
  h.write(octal(opts.mode & 0o7777, 8), 100, 'latin1');
  h.write(octal(0, 8), 108, 'latin1');
  h.write(octal(0, 8), 116, 'latin1');
  h.write(octal(opts.size, 12), 124, 'latin1');
  h.write(octal(Math.floor(opts.mtime / 1000), 12), 136, 'latin1');
  h.write('        ', 148, 'latin1');
  h.write(opts.type, 156, 'latin1');
  h.write('ustar  \0', 257, 'latin1');
  h.write('root', 265, 'latin1');
  h.write('root', 297, 'latin1');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

function padded(data: Buffer): Buffer[] {
  const rest = data.length % BLOCK;
  return rest ? [data, Buffer.alloc(BLOCK - rest)] : [data];
}

function entry(name: string, opts: { size: number; mode: number; mtime: number; type: string }, data?: Buffer): Buffer[] {
  const out: Buffer[] = [];
  if (Buffer.byteLength(name) > 100) {
    const long = Buffer.from(`${name}\0`);
    out.push(header('././@LongLink', { size: long.length, mode: 0, mtime: 0, type: 'L' }), ...padded(long));
  }
  out.push(header(name, opts));
  if (data?.length) out.push(...padded(data));
  return out;
}

/**
 * An archive of the given paths (relative to cwd), each with everything under it, named as given with a leading
 * `/` removed (GNU tar: "Removing leading `/' from member names", said on stderr by the caller).
 */
export function createTar(fs: MemFs, cwd: string, paths: string[], onError: (path: string, err: FsError) => void): Buffer {
  const out: Buffer[] = [];
  for (const p of paths) {
    const abs = resolvePath(cwd, p);
    let items: Array<[string, ReturnType<MemFs['stat']>]>;
    try {
      items = [...fs.walk(abs)];
    } catch (e) {
      if (e instanceof FsError) onError(p, e);
      else throw e;
      continue;
    }
    const base = p.replace(/^\/+/, '').replace(/\/+$/, '') || '.';
    for (const [path, node] of items) {
      const rel = path === abs ? base : `${base === '.' ? '.' : base}/${path.slice(abs === '/' ? 1 : abs.length + 1)}`;
      if (node.type === 'dir') out.push(...entry(`${rel}/`, { size: 0, mode: node.mode, mtime: node.mtime, type: '5' }));
      else out.push(...entry(rel, { size: node.data.length, mode: node.mode, mtime: node.mtime, type: '0' }, node.data));
    }
  }
  out.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(out);
}

function readString(b: Buffer, start: number, len: number): string {
  const s = b.subarray(start, start + len);
  const nul = s.indexOf(0);
  return (nul >= 0 ? s.subarray(0, nul) : s).toString('utf8');
}

function readOctal(b: Buffer, start: number, len: number): number {
  // Base-256 (GNU) for large values: the high bit of the first byte.
  if (b[start] & 0x80) {
    let v = 0;
    for (let i = start + 1; i < start + len; i++) v = v * 256 + b[i];
    return v;
  }
  const s = readString(b, start, len).trim();
  return s ? parseInt(s, 8) : 0;
}

export interface TarMember {
  name: string;
  type: 'file' | 'dir' | 'other';
  mode: number;
  mtime: number;
  data: Buffer;
}

/** The members of an archive; throws on a header whose checksum is wrong (not a tar archive). */
export function readTar(archive: Buffer): TarMember[] {
  const out: TarMember[] = [];
  let at = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  while (at + BLOCK <= archive.length) {
    const h = archive.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
    if (sum !== readOctal(h, 148, 8)) throw new Error('This does not look like a tar archive');
    const size = readOctal(h, 124, 12);
    const type = String.fromCharCode(h[156] || 0x30);
    const data = archive.subarray(at + BLOCK, at + BLOCK + size);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = readString(data, 0, data.length);
      continue;
    }
    if (type === 'x') {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'));
      paxPath = m?.[1];
      continue;
    }
    if (type === 'g') continue;
    const prefix = h.subarray(257, 263).toString('latin1').startsWith('ustar') ? readString(h, 345, 155) : '';
    const name = paxPath ?? longName ?? (prefix ? `${prefix}/${readString(h, 0, 100)}` : readString(h, 0, 100));
    longName = paxPath = undefined;
    out.push({
      name,
      type: type === '5' ? 'dir' : type === '0' || type === '\0' || type === '7' ? 'file' : 'other',
      mode: readOctal(h, 100, 8),
      mtime: readOctal(h, 136, 12) * 1000,
      data: Buffer.from(data),
    });
  }
  return out;
}

/** Extracts an archive under dir; `keepMtime` false sets the time of extraction (tar's -m). */
export function extractTar(fs: MemFs, dir: string, archive: Buffer, keepMtime: boolean): string[] {
  const errors: string[] = [];
  for (const m of readTar(archive)) {
    // Members never leave the target directory (what `kubectl cp` itself guards against).
    const rel = resolvePath('/', m.name).slice(1);
    if (!rel) continue;
    const target = resolvePath(dir, rel);
    const mtime = keepMtime ? m.mtime : undefined;
    try {
      const parent = target.slice(0, target.lastIndexOf('/')) || '/';
      fs.mkdir(parent, { parents: true });
      if (m.type === 'dir') fs.mkdir(target, { parents: true, mode: m.mode, mtime });
      else if (m.type === 'file') fs.writeFile(target, m.data, { mode: m.mode, mtime });
    } catch (e) {
      if (e instanceof FsError) errors.push(`${m.name}: Cannot open: ${e.message}`);
      else throw e;
    }
  }
  return errors;
}
