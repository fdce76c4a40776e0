// The commands of a simulated container, each a function over its MemFs and environment with busybox's
// messages and exit codes: sh, echo, printf, cat, ls, env, printenv, true, false, exit, sleep, mkdir, rm, rmdir,
// touch, cp, mv, pwd, cd, hostname, head, tail, wc, grep, test/[, export, unset, seq, date, uptime, id, whoami,
// uname, tar; gzip, gunzip, zcat and base64 from compress.ts.

import { FsError, resolvePath, type MemFs } from './memfs.ts';
import { createTar, extractTar, readTar } from './tar.ts';
import { readAll, Shell, type Builtin, type Input, type ShellState, type Stdio } from './shell.ts';
import { COMPRESSION } from './compress.ts';

const abs = (sh: ShellState, p: string) => resolvePath(sh.cwd, p);

/** Splits `-abc` style flags from operands (stops at `--` or the first operand). */
function flags(args: string[], known: string): { set: Set<string>; rest: string[]; bad?: string } {
  const set = new Set<string>();
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    for (const ch of a.slice(1)) {
      if (!known.includes(ch)) return { set, rest: [], bad: ch };
      set.add(ch);
    }
  }
  return { set, rest: args.slice(i) };
}

async function eachLine(input: Input, fn: (line: string) => Promise<boolean | void>): Promise<void> {
  let buf = '';
  for (let c = await input.read(); c; c = await input.read()) {
    buf += c.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if ((await fn(line)) === false) return;
    }
  }
  if (buf) await fn(buf);
}

function sleepMs(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

function escapes(s: string): string {
  return s.replace(/\\([\\abfnrtv0]|c)/g, (_m, c: string) => ({ '\\': '\\', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '0': '\0', c: '' })[c] ?? c);
}

function modeString(type: 'file' | 'dir', mode: number): string {
  const rwx = (m: number) => `${m & 4 ? 'r' : '-'}${m & 2 ? 'w' : '-'}${m & 1 ? 'x' : '-'}`;
  return `${type === 'dir' ? 'd' : '-'}${rwx(mode >> 6)}${rwx(mode >> 3)}${rwx(mode)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function lsTime(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

const fsErr = async (io: Stdio, cmd: string, path: string, e: unknown): Promise<number> => {
  if (!(e instanceof FsError)) throw e;
  await io.stderr(`${cmd}: ${path}: ${e.message}\n`);
  return 1;
};

export const BUILTINS: Record<string, Builtin> = {
  true: async () => 0,
  false: async () => 1,
  ':': async () => 0,

  async exit(args, io, sh) {
    const code = args[0] === undefined ? sh.status : Number(args[0]);
    if (!Number.isInteger(code)) {
      await io.stderr(`sh: exit: Illegal number: ${args[0]}\n`);
      sh.exited = 2;
      return 2;
    }
    sh.exited = code & 0xff;
    return sh.exited;
  },

  async echo(args, io) {
    let newline = true;
    let interpret = false;
    while (args[0] && /^-[neE]+$/.test(args[0])) {
      if (args[0].includes('n')) newline = false;
      if (args[0].includes('e')) interpret = true;
      args = args.slice(1);
    }
    const text = args.join(' ');
    await io.stdout(`${interpret ? escapes(text) : text}${newline ? '\n' : ''}`);
    return 0;
  },

  async printf(args, io) {
    if (!args.length) {
      await io.stderr('printf: usage: printf FORMAT [ARGUMENT...]\n');
      return 1;
    }
    const [format, ...values] = args;
    let i = 0;
    let out = '';
    do {
      out += escapes(format).replace(/%([sdi%])/g, (_m, c: string) => (c === '%' ? '%' : c === 's' ? values[i++] ?? '' : String(parseInt(values[i++] ?? '0', 10) || 0)));
    } while (i < values.length && format.includes('%'));
    await io.stdout(out);
    return 0;
  },

  async cat(args, io, sh) {
    const files = args.filter((a) => a !== '-u');
    if (!files.length) files.push('-');
    let status = 0;
    for (const f of files) {
      if (f === '-') {
        for (let c = await io.stdin.read(); c; c = await io.stdin.read()) await io.stdout(c);
        continue;
      }
      try {
        await io.stdout(sh.fs.readFile(abs(sh, f)));
      } catch (e) {
        status = await fsErr(io, 'cat', f, e);
      }
    }
    return status;
  },

  async ls(args, io, sh) {
    const { set, rest, bad } = flags(args, 'lad1AhR');
    if (bad) {
      await io.stderr(`ls: unrecognized option: ${bad}\n`);
      return 1;
    }
    const paths = rest.length ? rest : ['.'];
    let status = 0;
    const line = (name: string, n: ReturnType<MemFs['stat']>) =>
      set.has('l')
        ? `${modeString(n.type, n.mode)}    ${n.type === 'dir' ? 2 : 1} root     root     ${String(n.type === 'file' ? n.data.length : 4096).padStart(8)} ${lsTime(n.mtime)} ${name}\n`
        : `${name}\n`;
    const files: string[] = [];
    const dirs: Array<[string, ReturnType<MemFs['stat']>]> = [];
    for (const p of paths) {
      try {
        const n = sh.fs.stat(abs(sh, p));
        if (n.type === 'dir' && !set.has('d')) dirs.push([p, n]);
        else files.push(line(p, n));
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        await io.stderr(`ls: ${p}: ${e.message}\n`);
        status = 1;
      }
    }
    let out = files.join('');
    for (const [p, n] of dirs) {
      if (n.type !== 'dir') continue;
      if (paths.length > 1) out += `${out ? '\n' : ''}${p}:\n`;
      const names = [...n.children.keys()].filter((k) => set.has('a') || set.has('A') || !k.startsWith('.')).sort();
      if (set.has('l')) out += `total ${names.length}\n`;
      if (set.has('a')) out += line('.', n) + line('..', n);
      for (const k of names) out += line(k, n.children.get(k)!);
    }
    await io.stdout(out);
    return status;
  },

  async env(args, io, sh) {
    if (args.length) {
      // env NAME=value... command: runs the command with those added.
      const env = new Map(sh.env);
      let i = 0;
      for (; i < args.length && args[i].includes('='); i++) env.set(args[i].slice(0, args[i].indexOf('=')), args[i].slice(args[i].indexOf('=') + 1));
      if (i < args.length) {
        const fn = BUILTINS[args[i].slice(args[i].lastIndexOf('/') + 1)];
        if (!fn) {
          await io.stderr(`env: can't execute '${args[i]}': No such file or directory\n`);
          return 127;
        }
        return fn(args.slice(i + 1), io, { ...sh, env });
      }
      await io.stdout([...env].map(([k, v]) => `${k}=${v}\n`).join(''));
      return 0;
    }
    await io.stdout([...sh.env].map(([k, v]) => `${k}=${v}\n`).join(''));
    return 0;
  },

  async printenv(args, io, sh) {
    if (!args.length) return BUILTINS.env([], io, sh);
    let status = 0;
    for (const a of args) {
      const v = sh.env.get(a);
      if (v === undefined) status = 1;
      else await io.stdout(`${v}\n`);
    }
    return status;
  },

  async export(args, _io, sh) {
    for (const a of args) if (a.includes('=')) sh.env.set(a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1));
    return 0;
  },

  async unset(args, _io, sh) {
    for (const a of args) sh.env.delete(a);
    return 0;
  },

  async sleep(args, io, sh) {
    const secs = Number((args[0] ?? '').replace(/s$/, ''));
    if (!args.length || !(secs >= 0)) {
      await io.stderr(`sleep: invalid number '${args[0] ?? ''}'\n`);
      return 1;
    }
    await sleepMs(secs * 1000, sh.signal);
    return sh.signal.aborted ? 130 : 0;
  },

  async mkdir(args, io, sh) {
    const { set, rest } = flags(args, 'p');
    if (!rest.length) {
      await io.stderr('mkdir: missing operand\n');
      return 1;
    }
    let status = 0;
    for (const p of rest) {
      try {
        sh.fs.mkdir(abs(sh, p), { parents: set.has('p') });
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        await io.stderr(`mkdir: can't create directory '${p}': ${e.message}\n`);
        status = 1;
      }
    }
    return status;
  },

  async rm(args, io, sh) {
    const { set, rest } = flags(args, 'rRfv');
    let status = 0;
    for (const p of rest) {
      try {
        sh.fs.remove(abs(sh, p), { recursive: set.has('r') || set.has('R') });
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        if (e.code === 'ENOENT' && set.has('f')) continue;
        await io.stderr(e.code === 'EISDIR' ? `rm: '${p}' is a directory\n` : `rm: can't remove '${p}': ${e.message}\n`);
        status = 1;
      }
    }
    return status;
  },

  async rmdir(args, io, sh) {
    let status = 0;
    for (const p of args) {
      try {
        sh.fs.rmdir(abs(sh, p));
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        await io.stderr(`rmdir: '${p}': ${e.message}\n`);
        status = 1;
      }
    }
    return status;
  },

  async touch(args, io, sh) {
    let status = 0;
    for (const p of args.filter((a) => !a.startsWith('-'))) {
      try {
        const path = abs(sh, p);
        const n = sh.fs.get(path);
        if (n) n.mtime = Date.now();
        else sh.fs.writeFile(path, Buffer.alloc(0));
      } catch (e) {
        status = await fsErr(io, 'touch', p, e);
      }
    }
    return status;
  },

  async cp(args, io, sh) {
    const { rest } = flags(args, 'rRfap');
    if (rest.length < 2) {
      await io.stderr('cp: missing destination file operand\n');
      return 1;
    }
    const dest = rest.pop()!;
    let status = 0;
    for (const src of rest) {
      try {
        const d = abs(sh, dest);
        const into = sh.fs.get(d)?.type === 'dir' ? `${d}/${abs(sh, src).split('/').pop()}` : d;
        const archive = createTar(sh.fs, '/', [abs(sh, src)], () => {});
        const tmp = '/.cp-staging';
        sh.fs.mkdir(tmp, { parents: true });
        extractTar(sh.fs, tmp, archive, true);
        const staged = `${tmp}${abs(sh, src)}`;
        for (const [path, node] of [...sh.fs.walk(staged)]) {
          const target = into + path.slice(staged.length);
          if (node.type === 'dir') sh.fs.mkdir(target, { parents: true });
          else sh.fs.writeFile(target, node.data, { mode: node.mode });
        }
        sh.fs.remove(tmp, { recursive: true });
      } catch (e) {
        status = await fsErr(io, 'cp', src, e);
      }
    }
    return status;
  },

  async mv(args, io, sh) {
    const status = await BUILTINS.cp(['-r', ...args], io, sh);
    if (status) return status;
    for (const src of args.slice(0, -1)) sh.fs.remove(abs(sh, src), { recursive: true });
    return 0;
  },

  async pwd(_args, io, sh) {
    await io.stdout(`${sh.cwd}\n`);
    return 0;
  },

  async cd(args, io, sh) {
    const target = abs(sh, args[0] ?? sh.env.get('HOME') ?? '/');
    const n = sh.fs.get(target);
    if (!n || n.type !== 'dir') {
      await io.stderr(`sh: cd: can't cd to ${args[0]}: ${n ? 'Not a directory' : 'No such file or directory'}\n`);
      return 2;
    }
    sh.cwd = target;
    sh.env.set('PWD', target);
    return 0;
  },

  async hostname(_args, io, sh) {
    await io.stdout(`${sh.hostname}\n`);
    return 0;
  },

  async whoami(_args, io) {
    await io.stdout('root\n');
    return 0;
  },

  async id(_args, io) {
    await io.stdout('uid=0(root) gid=0(root) groups=0(root)\n');
    return 0;
  },

  async uname(args, io, sh) {
    await io.stdout(args.includes('-a') ? `Linux ${sh.hostname} 4.9.0-sim #1 SMP x86_64 GNU/Linux\n` : 'Linux\n');
    return 0;
  },

  async seq(args, io) {
    const n = args.map(Number);
    if (!n.length || n.length > 3 || n.some((x) => !Number.isFinite(x))) {
      await io.stderr(`seq: invalid argument\n`);
      return 1;
    }
    const [first, step, last] = n.length === 1 ? [1, 1, n[0]] : n.length === 2 ? [n[0], 1, n[1]] : n;
    if (step === 0) return 1;
    const out: number[] = [];
    for (let v = first; step > 0 ? v <= last : v >= last; v += step) {
      out.push(v);
      if (out.length > 100_000) break;
    }
    await io.stdout(out.map((v) => `${v}\n`).join(''));
    return 0;
  },

  async uptime(_args, io, sh) {
    const secs = Math.floor((Date.now() - sh.startedAt) / 1000);
    const t = new Date().toISOString().slice(11, 19);
    await io.stdout(` ${t} up ${Math.floor(secs / 60)} min,  load average: 0.00, 0.00, 0.00\n`);
    return 0;
  },

  async date(_args, io) {
    await io.stdout(`${new Date().toUTCString().replace('GMT', 'UTC')}\n`);
    return 0;
  },

  async head(args, io, sh) {
    return headTail('head', args, io, sh);
  },
  async tail(args, io, sh) {
    return headTail('tail', args, io, sh);
  },

  async wc(args, io, sh) {
    const { set, rest } = flags(args, 'lwc');
    const data = rest.length ? sh.fs.readFile(abs(sh, rest[0])) : await readAll(io.stdin);
    const text = data.toString('utf8');
    const counts = { l: (text.match(/\n/g) ?? []).length, w: text.split(/\s+/).filter(Boolean).length, c: data.length };
    const which = set.size ? (['l', 'w', 'c'] as const).filter((k) => set.has(k)) : (['l', 'w', 'c'] as const);
    await io.stdout(`${which.map((k) => String(counts[k]).padStart(which.length > 1 ? 7 : 0)).join(' ')}${rest[0] ? ` ${rest[0]}` : ''}\n`);
    return 0;
  },

  async grep(args, io, sh) {
    const { set, rest, bad } = flags(args, 'vicqFE');
    if (bad || !rest.length) {
      await io.stderr('Usage: grep [-vicqFE] PATTERN [FILE]...\n');
      return 2;
    }
    const [pattern, ...files] = rest;
    let re: RegExp;
    try {
      re = new RegExp(set.has('F') ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pattern, set.has('i') ? 'i' : '');
    } catch {
      await io.stderr(`grep: bad regex '${pattern}'\n`);
      return 2;
    }
    let count = 0;
    const onLine = async (line: string) => {
      if (re.test(line) !== set.has('v')) {
        count++;
        if (!set.has('c') && !set.has('q')) await io.stdout(`${line}\n`);
      }
    };
    if (files.length) {
      for (const f of files) {
        try {
          for (const l of sh.fs.readFile(abs(sh, f)).toString('utf8').split('\n').slice(0, -1)) await onLine(l);
        } catch (e) {
          await fsErr(io, 'grep', f, e);
        }
      }
    } else await eachLine(io.stdin, onLine);
    if (set.has('c')) await io.stdout(`${count}\n`);
    return count ? 0 : 1;
  },

  async test(args, _io, sh) {
    return evalTest(args, sh) ? 0 : 1;
  },
  async '['(args, io, sh) {
    if (args[args.length - 1] !== ']') {
      await io.stderr('sh: missing ]\n');
      return 2;
    }
    return evalTest(args.slice(0, -1), sh) ? 0 : 1;
  },

  async tar(args, io, sh) {
    return tar(args, io, sh);
  },

  async sh(args, io, sh) {
    return runSh(args, io, sh);
  },
  async bash(args, io, sh) {
    return runSh(args, io, sh);
  },
  async ash(args, io, sh) {
    return runSh(args, io, sh);
  },
  ...COMPRESSION,
};

async function headTail(cmd: 'head' | 'tail', args: string[], io: Stdio, sh: ShellState): Promise<number> {
  let n = 10;
  const rest: string[] = [];
  let fromStart = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-n' || a === '-c') {
      const v = args[++i] ?? '';
      fromStart = v.startsWith('+');
      n = parseInt(v.replace(/^[+-]/, ''), 10);
    } else if (/^-\d+$/.test(a)) n = Number(a.slice(1));
    else rest.push(a);
  }
  let data: Buffer;
  try {
    data = rest.length ? sh.fs.readFile(abs(sh, rest[0])) : await readAll(io.stdin);
  } catch (e) {
    return fsErr(io, cmd, rest[0], e);
  }
  const lines = data.toString('utf8').split(/(?<=\n)/);
  const out = cmd === 'head' ? lines.slice(0, n) : fromStart ? lines.slice(Math.max(0, n - 1)) : lines.slice(-n);
  await io.stdout(out.join(''));
  return 0;
}

function evalTest(args: string[], sh: ShellState): boolean {
  if (args[0] === '!') return !evalTest(args.slice(1), sh);
  if (args.length === 0) return false;
  if (args.length === 1) return args[0] !== '';
  if (args.length === 2) {
    const [op, v] = args;
    const n = op.length === 2 && op.startsWith('-') ? sh.fs.get(resolvePath(sh.cwd, v)) : undefined;
    switch (op) {
      case '-z':
        return v === '';
      case '-n':
        return v !== '';
      case '-e':
        return !!n;
      case '-f':
        return n?.type === 'file';
      case '-d':
        return n?.type === 'dir';
      case '-s':
        return n?.type === 'file' && n.data.length > 0;
    }
    return false;
  }
  const [a, op, b] = args;
  switch (op) {
    case '=':
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '-eq':
      return Number(a) === Number(b);
    case '-ne':
      return Number(a) !== Number(b);
    case '-lt':
      return Number(a) < Number(b);
    case '-le':
      return Number(a) <= Number(b);
    case '-gt':
      return Number(a) > Number(b);
    case '-ge':
      return Number(a) >= Number(b);
  }
  return false;
}

/** tar as `kubectl cp` runs it: `tar cf - PATH...` and `tar xmf - -C DIR` (and the same with separate flags). */
async function tar(args: string[], io: Stdio, sh: ShellState): Promise<number> {
  let mode: 'c' | 'x' | 't' | undefined;
  let file: string | undefined;
  let dir = sh.cwd;
  let keepMtime = true;
  let verbose = false;
  const operands: string[] = [];
  const rest = [...args];
  // The first word may be bundled flags without a dash (`tar cf - x`).
  if (rest[0] && !rest[0].startsWith('-') && /^[cxtvfmzpo]+$/.test(rest[0])) rest[0] = `-${rest[0]}`;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '-C' || a === '--directory') {
      dir = resolvePath(sh.cwd, rest[++i] ?? '.');
      continue;
    }
    if (a.startsWith('--directory=')) {
      dir = resolvePath(sh.cwd, a.slice(12));
      continue;
    }
    if (a === '--no-same-permissions' || a === '--no-same-owner' || a === '--touch') {
      if (a === '--touch') keepMtime = false;
      continue;
    }
    if (a.startsWith('--')) {
      await io.stderr(`tar: unrecognized option '${a}'\n`);
      return 2;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const ch = a[j];
        if (ch === 'c' || ch === 'x' || ch === 't') mode = ch;
        else if (ch === 'f') file = a.slice(j + 1) || rest[++i];
        else if (ch === 'm') keepMtime = false;
        else if (ch === 'v') verbose = true;
        else if (ch === 'C') dir = resolvePath(sh.cwd, a.slice(j + 1) || rest[++i] || '.');
        else if (ch === 'z') {
          await io.stderr('tar: gzip is not supported in this container\n');
          return 2;
        } else if (ch !== 'p' && ch !== 'o') {
          await io.stderr(`tar: invalid option -- '${ch}'\n`);
          return 2;
        }
        if (ch === 'f' || ch === 'C') break;
      }
      continue;
    }
    operands.push(a);
  }
  if (!mode) {
    await io.stderr("tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\n");
    return 2;
  }
  if (sh.fs.get(dir)?.type !== 'dir') {
    await io.stderr(`tar: ${dir}: Cannot open: No such file or directory\n`);
    return 2;
  }
  if (mode === 'c') {
    if (!operands.length) {
      await io.stderr('tar: Cowardly refusing to create an empty archive\n');
      return 2;
    }
    if (operands.some((p) => p.startsWith('/'))) await io.stderr("tar: Removing leading `/' from member names\n");
    let failed = false;
    const archive = createTar(sh.fs, dir, operands, (p, e) => {
      failed = true;
      void io.stderr(`tar: ${p}: Cannot stat: ${e.message}\n`);
    });
    if (file === undefined || file === '-') await io.stdout(archive);
    else sh.fs.writeFile(resolvePath(sh.cwd, file), archive);
    if (failed) await io.stderr('tar: Exiting with failure status due to previous errors\n');
    return failed ? 2 : 0;
  }
  const archive = file === undefined || file === '-' ? await readAll(io.stdin) : sh.fs.readFile(resolvePath(sh.cwd, file));
  try {
    if (mode === 't') {
      await io.stdout(readTar(archive).map((m) => `${m.name}\n`).join(''));
      return 0;
    }
    const errors = extractTar(sh.fs, dir, archive, keepMtime);
    if (verbose) {
      await io.stdout(readTar(archive).map((m) => `${m.name}\n`).join(''));
    }
    for (const e of errors) await io.stderr(`tar: ${e}\n`);
    return errors.length ? 2 : 0;
  } catch (e) {
    await io.stderr(`tar: ${(e as Error).message}\ntar: Exiting with failure status due to previous errors\n`);
    return 2;
  }
}

/** `sh -c SCRIPT`, `sh FILE`, or a shell reading its commands from stdin (a prompt when interactive). */
async function runSh(args: string[], io: Stdio, parent: ShellState): Promise<number> {
  const state: ShellState = { ...parent, env: new Map(parent.env), status: 0, exited: undefined };
  const shell = new Shell(BUILTINS, state);
  const rest = args.filter((a) => a !== '-i' && a !== '-l' && a !== '-e' && a !== '-x' && a !== '--login');
  const interactive = args.includes('-i') || (rest.length === 0 && parent.tty === true);
  if (rest[0] === '-c') {
    if (rest[1] === undefined) {
      await io.stderr('sh: -c requires an argument\n');
      return 2;
    }
    return shell.run(rest[1], io);
  }
  if (rest[0] !== undefined) {
    let script: Buffer;
    try {
      script = parent.fs.readFile(resolvePath(parent.cwd, rest[0]));
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      await io.stderr(`sh: can't open '${rest[0]}': ${e.message}\n`);
      return 2;
    }
    return shell.run(script.toString('utf8'), io);
  }
  const prompt = () => (interactive ? io.stderr(`${state.cwd} # `) : Promise.resolve());
  await prompt();
  let code: number | undefined;
  await eachLine(io.stdin, async (line) => {
    await shell.run(line, io);
    if (state.exited !== undefined) {
      code = state.exited;
      return false;
    }
    await prompt();
    return true;
  });
  if (code === undefined && interactive) await io.stderr('exit\n');
  return code ?? state.status;
}
