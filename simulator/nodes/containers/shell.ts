// `sh` of a simulated container: command lines as a POSIX shell reads them — words with single and double quotes,
// backslashes, $NAME / ${NAME} / $? / $$ expansion and $(...) / `...` command substitution (unquoted results split
// into fields), `NAME=value` assignments, the operators `;`, `&&`, `||`, `|`, `!`, the redirections `<`, `>`,
// `>>`, `2>`, `2>>`, `2>&1`, `>&2`, and the compound commands `for NAME in WORDS; do ...; done`,
// `while|until LIST; do ...; done`, `if LIST; then ...; [elif ...;] [else ...;] fi` and `{ ...; }`. Every command
// is a built-in (builtins.ts) over the container's MemFs; there are no processes, globbing or functions.

import type { MemFs } from './memfs.ts';

/** Where a command reads: chunks until null. */
export interface Input {
  read(): Promise<Buffer | null>;
}
/** Where a command writes; resolves when the bytes were taken (back-pressure). */
export type Output = (data: Buffer | string) => Promise<void>;

export interface Stdio {
  stdin: Input;
  stdout: Output;
  stderr: Output;
}

export interface ShellState {
  fs: MemFs;
  env: Map<string, string>;
  cwd: string;
  /** $? */
  status: number;
  /** Set by `exit`: the code the shell ends with. */
  exited?: number;
  signal: AbortSignal;
  /** The pod's name ($HOSTNAME, `hostname`). */
  hostname: string;
  /** stdin is a terminal: `sh` without a script is interactive (prompts). */
  tty?: boolean;
  /** When the container started (ms since the epoch; `uptime`). */
  startedAt: number;
}

export type Builtin = (args: string[], io: Stdio, sh: ShellState) => Promise<number>;

export const EMPTY_INPUT: Input = { read: async () => null };

export function bufferInput(data: Buffer): Input {
  let done = false;
  return {
    read: async () => {
      if (done) return null;
      done = true;
      return data.length ? data : null;
    },
  };
}

/** The whole input, until its end. */
export async function readAll(input: Input, limit = 64 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (let c = await input.read(); c; c = await input.read()) {
    size += c.length;
    if (size > limit) throw new Error('input too large');
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** An in-memory pipe: what one command writes, the next reads. */
export function pipe(): { input: Input; output: Output; close(): void } {
  const queue: Buffer[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  return {
    input: {
      async read() {
        while (!queue.length && !closed) await new Promise<void>((r) => (wake = r));
        return queue.shift() ?? null;
      },
    },
    output: async (d) => {
      if (closed) return;
      const b = typeof d === 'string' ? Buffer.from(d) : d;
      if (b.length) queue.push(b);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
  };
}

// ---- words and tokens ----

type Part = { lit: string; quoted: boolean } | { variable: string; quoted: boolean } | { subst: string; quoted: boolean };
export interface Word {
  parts: Part[];
  /** Any quoting at all (a quoted `A=b` is not an assignment, a quoted `do` not a keyword). */
  quoted: boolean;
}
type Token = { word: Word } | { op: string };

const OPERATORS = ['&&', '||', '2>&1', '>&2', '2>>', '2>', '>>', ';;', ';', '|', '&', '>', '<', '\n', '(', ')'];

export class ShellSyntaxError extends Error {}

/** The end of a $( ... ) starting at src[from] (just after the "("), minding quotes and nesting. */
function closingParen(src: string, from: number): number {
  let depth = 1;
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') i++;
    else if (c === "'") {
      i = src.indexOf("'", i + 1);
      if (i < 0) break;
    } else if (c === '"') {
      for (i++; i < src.length && src[i] !== '"'; i++) if (src[i] === '\\') i++;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  throw new ShellSyntaxError('unterminated $(');
}

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const isSpace = (c: string) => c === ' ' || c === '\t';
  while (i < src.length) {
    const c = src[i];
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    // 2> and friends only where a word starts (in `a2>b` the 2 belongs to the word).
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op) {
      out.push({ op });
      i += op.length;
      continue;
    }
    const word: Word = { parts: [], quoted: false };
    let lit = '';
    let litQuoted = false;
    const flush = () => {
      if (lit) word.parts.push({ lit, quoted: litQuoted });
      lit = '';
    };
    const addLit = (text: string, quoted: boolean) => {
      if (quoted !== litQuoted) flush();
      litQuoted = quoted;
      lit += text;
    };
    const dollar = (quoted: boolean): boolean => {
      // at src[i] === '$'
      if (src[i + 1] === '(') {
        const end = closingParen(src, i + 2);
        flush();
        word.parts.push({ subst: src.slice(i + 2, end), quoted });
        i = end + 1;
        return true;
      }
      const rest = src.slice(i + 1);
      const m = /^\{([A-Za-z_][A-Za-z0-9_]*|[?$#0-9])\}/.exec(rest) ?? /^([A-Za-z_][A-Za-z0-9_]*|[?$#0-9])/.exec(rest);
      if (!m) return false;
      flush();
      word.parts.push({ variable: m[1], quoted });
      i += 1 + m[0].length;
      return true;
    };
    const backtick = (quoted: boolean) => {
      const end = src.indexOf('`', i + 1);
      if (end < 0) throw new ShellSyntaxError('unterminated `');
      flush();
      word.parts.push({ subst: src.slice(i + 1, end), quoted });
      i = end + 1;
    };
    while (i < src.length) {
      const ch = src[i];
      if (isSpace(ch) || ch === '\n' || ch === ';' || ch === '|' || ch === '&' || ch === '<' || ch === '>' || ch === '(' || ch === ')') break;
      if (ch === '\\') {
        if (src[i + 1] === '\n') i += 2;
        else {
          addLit(src[i + 1] ?? '', true);
          i += 2;
        }
        continue;
      }
      if (ch === "'") {
        const end = src.indexOf("'", i + 1);
        if (end < 0) throw new ShellSyntaxError('unterminated quoted string');
        word.quoted = true;
        addLit(src.slice(i + 1, end), true);
        i = end + 1;
        continue;
      }
      if (ch === '"') {
        word.quoted = true;
        i++;
        while (i < src.length && src[i] !== '"') {
          if (src[i] === '\\' && '$`"\\\n'.includes(src[i + 1] ?? '')) {
            addLit(src[i + 1], true);
            i += 2;
          } else if (src[i] === '$' && dollar(true)) {
            /* expanded at run time */
          } else if (src[i] === '`') backtick(true);
          else addLit(src[i++], true);
        }
        if (src[i] !== '"') throw new ShellSyntaxError('unterminated quoted string');
        // "" is an empty argument, not none
        addLit('', true);
        if (!word.parts.length && !lit) word.parts.push({ lit: '', quoted: true });
        i++;
        continue;
      }
      if (ch === '$' && dollar(false)) continue;
      if (ch === '`') {
        backtick(false);
        continue;
      }
      addLit(ch, false);
      i++;
    }
    flush();
    out.push({ word });
  }
  return out;
}

// ---- syntax tree ----

interface Redirect {
  op: string;
  target?: Word;
}
interface SimpleCommand {
  type: 'simple';
  assignments: Array<[string, Word]>;
  words: Word[];
  redirects: Redirect[];
}
interface ForCommand {
  type: 'for';
  name: string;
  items: Word[];
  body: AndOr[];
}
interface LoopCommand {
  type: 'while' | 'until';
  test: AndOr[];
  body: AndOr[];
}
interface IfCommand {
  type: 'if';
  branches: Array<{ test: AndOr[]; body: AndOr[] }>;
  otherwise?: AndOr[];
}
interface GroupCommand {
  type: 'group';
  body: AndOr[];
}
type Command = SimpleCommand | ForCommand | LoopCommand | IfCommand | GroupCommand;
interface Pipeline {
  negate: boolean;
  commands: Command[];
}
interface AndOr {
  first: Pipeline;
  rest: Array<['&&' | '||', Pipeline]>;
}

const RESERVED = new Set(['do', 'done', 'then', 'elif', 'else', 'fi', '}', 'in']);

function plainWord(t: Token | undefined): string | undefined {
  if (!t || !('word' in t) || t.word.quoted || t.word.parts.length !== 1) return undefined;
  const p = t.word.parts[0];
  return 'lit' in p ? p.lit : undefined;
}

export function parse(src: string): AndOr[] {
  const tokens = tokenize(src);
  let at = 0;
  const peekOp = () => {
    const t = tokens[at];
    return t && 'op' in t ? t.op : undefined;
  };
  const unexpected = (): never => {
    const t = tokens[at];
    const what = !t ? 'end of file' : 'op' in t ? (t.op === '\n' ? 'newline' : t.op) : plainWord(t) ?? 'word';
    throw new ShellSyntaxError(`syntax error: unexpected ${what === 'end of file' ? what : JSON.stringify(what)}`);
  };
  const skipNewlines = () => {
    while (peekOp() === '\n') at++;
  };
  const keyword = (k: string) => {
    skipNewlines();
    if (plainWord(tokens[at]) !== k) unexpected();
    at++;
  };
  /** A list up to one of the given keywords (not consumed). */
  const list = (until: string[]): AndOr[] => {
    const items: AndOr[] = [];
    for (;;) {
      while (peekOp() === ';' || peekOp() === '\n' || peekOp() === '&') {
        if (peekOp() !== '\n' && items.length === 0) unexpected();
        at++;
      }
      if (at >= tokens.length) {
        if (until.length) unexpected();
        return items;
      }
      const w = plainWord(tokens[at]);
      if (w !== undefined && until.includes(w)) {
        if (!items.length) unexpected();
        return items;
      }
      if (peekOp() === ')') unexpected();
      const item: AndOr = { first: pipeline(), rest: [] };
      while (peekOp() === '&&' || peekOp() === '||') {
        const op = peekOp() as '&&' | '||';
        at++;
        skipNewlines();
        item.rest.push([op, pipeline()]);
      }
      items.push(item);
      const op = peekOp();
      if (op !== undefined && op !== ';' && op !== '\n' && op !== '&') {
        if (!(until.length && plainWord(tokens[at]) !== undefined)) unexpected();
      }
    }
  };
  const compound = (): Command | undefined => {
    const w = plainWord(tokens[at]);
    if (w === 'for') {
      at++;
      const name = plainWord(tokens[at]);
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) unexpected();
      at++;
      const items: Word[] = [];
      skipNewlines();
      if (plainWord(tokens[at]) === 'in') {
        at++;
        while (tokens[at] && 'word' in tokens[at]!) items.push((tokens[at++] as { word: Word }).word);
      }
      if (peekOp() === ';' || peekOp() === '\n') at++;
      keyword('do');
      const body = list(['done']);
      keyword('done');
      return { type: 'for', name: name!, items, body };
    }
    if (w === 'while' || w === 'until') {
      at++;
      const test = list(['do']);
      keyword('do');
      const body = list(['done']);
      keyword('done');
      return { type: w, test, body };
    }
    if (w === 'if') {
      at++;
      const branches: IfCommand['branches'] = [];
      let otherwise: AndOr[] | undefined;
      for (;;) {
        const test = list(['then']);
        keyword('then');
        const body = list(['elif', 'else', 'fi']);
        branches.push({ test, body });
        const k = plainWord(tokens[at]);
        at++;
        if (k === 'elif') continue;
        if (k === 'else') {
          otherwise = list(['fi']);
          keyword('fi');
        }
        break;
      }
      return { type: 'if', branches, otherwise };
    }
    if (w === '{') {
      at++;
      const body = list(['}']);
      keyword('}');
      return { type: 'group', body };
    }
    return undefined;
  };
  const command = (): Command => {
    const c = compound();
    if (c) return c;
    const cmd: SimpleCommand = { type: 'simple', assignments: [], words: [], redirects: [] };
    for (;;) {
      const t = tokens[at];
      if (!t) break;
      if ('op' in t) {
        if (['>', '>>', '<', '2>', '2>>'].includes(t.op)) {
          const target = tokens[at + 1];
          if (!target || !('word' in target)) {
            at++;
            unexpected();
          }
          cmd.redirects.push({ op: t.op, target: (target as { word: Word }).word });
          at += 2;
          continue;
        }
        if (t.op === '2>&1' || t.op === '>&2') {
          cmd.redirects.push({ op: t.op });
          at++;
          continue;
        }
        break;
      }
      const w = t.word;
      if (cmd.words.length === 0 && RESERVED.has(plainWord(t) ?? '')) break;
      const first = w.parts[0];
      if (cmd.words.length === 0 && first && 'lit' in first && !first.quoted && /^[A-Za-z_][A-Za-z0-9_]*=/.test(first.lit)) {
        const eq = first.lit.indexOf('=');
        const value: Word = { parts: [{ lit: first.lit.slice(eq + 1), quoted: true }, ...w.parts.slice(1)], quoted: true };
        cmd.assignments.push([first.lit.slice(0, eq), value]);
      } else cmd.words.push(w);
      at++;
    }
    if (!cmd.words.length && !cmd.assignments.length && !cmd.redirects.length) unexpected();
    return cmd;
  };
  const pipeline = (): Pipeline => {
    let negate = false;
    if (plainWord(tokens[at]) === '!') {
      negate = true;
      at++;
    }
    const commands = [command()];
    while (peekOp() === '|') {
      at++;
      skipNewlines();
      commands.push(command());
    }
    return { negate, commands };
  };
  const result = list([]);
  if (at < tokens.length) unexpected();
  return result;
}

// ---- running ----

/** Bytes a command substitution may capture. */
const MAX_SUBST = 1024 * 1024;
/** Iterations a loop may make before the shell gives up (no simulated command should spin forever). */
const MAX_ITERATIONS = 100_000;

export class Shell {
  constructor(
    readonly builtins: Record<string, Builtin>,
    readonly sh: ShellState,
  ) {}

  /** Runs a script; the status of its last command, or the code of `exit`. */
  async run(src: string, io: Stdio): Promise<number> {
    let items: AndOr[];
    try {
      items = parse(src);
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      await io.stderr(`sh: ${e.message}\n`);
      return (this.sh.status = 2);
    }
    await this.list(items, io);
    return this.sh.exited ?? this.sh.status;
  }

  private async list(items: AndOr[], io: Stdio): Promise<number> {
    for (const item of items) {
      if (this.sh.signal.aborted) return (this.sh.status = 130);
      let status = await this.pipeline(item.first, io);
      for (const [op, p] of item.rest) {
        if (this.sh.exited !== undefined) break;
        if ((op === '&&' && status === 0) || (op === '||' && status !== 0)) status = await this.pipeline(p, io);
      }
      this.sh.status = status;
      if (this.sh.exited !== undefined) break;
    }
    return this.sh.status;
  }

  /** A word's fields: unquoted expansions are split at blanks, quoted ones and literals are not. */
  async fields(w: Word): Promise<string[]> {
    const fields: string[] = [];
    let cur = '';
    let has = false;
    for (const p of w.parts) {
      if ('lit' in p) {
        cur += p.lit;
        has = has || p.quoted || p.lit !== '';
        continue;
      }
      const text = 'variable' in p ? this.variable(p.variable) : await this.substitute(p.subst);
      if (p.quoted) {
        cur += text;
        has = true;
        continue;
      }
      const pieces = text.split(/[ \t\n]+/);
      for (let i = 0; i < pieces.length; i++) {
        if (i > 0) {
          if (has || cur) fields.push(cur);
          cur = '';
          has = false;
        }
        cur += pieces[i];
        has = has || pieces[i] !== '';
      }
    }
    if (has || cur) fields.push(cur);
    return fields;
  }

  private async text(w: Word): Promise<string> {
    return (await this.fields({ ...w, parts: w.parts.map((p) => ({ ...p, quoted: true })) })).join(' ');
  }

  private variable(name: string): string {
    const sh = this.sh;
    if (name === '?') return String(sh.status);
    if (name === '$') return '1';
    if (name === '#') return '0';
    if (name === '0') return 'sh';
    return sh.env.get(name) ?? '';
  }

  /** $(...): the script's stdout, trailing newlines removed, run in a copy of this shell. */
  private async substitute(script: string): Promise<string> {
    const state: ShellState = { ...this.sh, env: new Map(this.sh.env), exited: undefined };
    const chunks: Buffer[] = [];
    let size = 0;
    const out: Output = async (d) => {
      const b = typeof d === 'string' ? Buffer.from(d) : d;
      size += b.length;
      if (size <= MAX_SUBST) chunks.push(b);
    };
    const status = await new Shell(this.builtins, state).run(script, { stdin: EMPTY_INPUT, stdout: out, stderr: this.stderr });
    this.sh.status = status;
    return Buffer.concat(chunks).toString('utf8').replace(/\n+$/, '');
  }

  private stderr: Output = async () => {};

  private async pipeline(p: Pipeline, io: Stdio): Promise<number> {
    this.stderr = io.stderr;
    let status: number;
    if (p.commands.length === 1) status = await this.command(p.commands[0], io);
    else {
      const runs: Array<Promise<number>> = [];
      let input = io.stdin;
      for (let i = 0; i < p.commands.length; i++) {
        const last = i === p.commands.length - 1;
        const link = last ? undefined : pipe();
        const stdio: Stdio = { stdin: input, stdout: link ? link.output : io.stdout, stderr: io.stderr };
        runs.push(this.command(p.commands[i], stdio).finally(() => link?.close()));
        if (link) input = link.input;
      }
      const all = await Promise.all(runs);
      status = all[all.length - 1];
    }
    return p.negate ? (status === 0 ? 1 : 0) : status;
  }

  private async command(c: Command, io: Stdio): Promise<number> {
    const sh = this.sh;
    switch (c.type) {
      case 'simple':
        return this.simple(c, io);
      case 'group':
        return this.list(c.body, io);
      case 'if': {
        for (const b of c.branches) {
          if ((await this.list(b.test, io)) === 0 && sh.exited === undefined) return this.list(b.body, io);
          if (sh.exited !== undefined) return sh.exited;
        }
        return c.otherwise ? this.list(c.otherwise, io) : 0;
      }
      case 'for': {
        const items: string[] = [];
        for (const w of c.items) items.push(...(await this.fields(w)));
        let status = 0;
        for (const item of items.slice(0, MAX_ITERATIONS)) {
          if (sh.signal.aborted || sh.exited !== undefined) break;
          sh.env.set(c.name, item);
          status = await this.list(c.body, io);
        }
        return status;
      }
      case 'while':
      case 'until': {
        let status = 0;
        for (let n = 0; n < MAX_ITERATIONS; n++) {
          const t = await this.list(c.test, io);
          if (sh.signal.aborted || sh.exited !== undefined) break;
          if ((t === 0) !== (c.type === 'while')) break;
          status = await this.list(c.body, io);
          if (sh.exited !== undefined) break;
          // A loop of built-ins never waits: give the event loop a turn now and then.
          if (n % 100 === 99) await new Promise((r) => setImmediate(r));
        }
        return status;
      }
    }
  }

  private async simple(c: SimpleCommand, io: Stdio): Promise<number> {
    const sh = this.sh;
    const args: string[] = [];
    for (const w of c.words) args.push(...(await this.fields(w)));
    const assigned: Array<[string, string]> = [];
    for (const [k, v] of c.assignments) assigned.push([k, await this.text(v)]);
    if (args.length === 0) for (const [k, v] of assigned) sh.env.set(k, v);
    let stdio: Stdio = io;
    const pending: Array<() => void> = [];
    for (const r of c.redirects) {
      const target = r.target ? await this.text(r.target) : '';
      try {
        const path = target === '/dev/null' ? undefined : target;
        if (r.op === '<') stdio = { ...stdio, stdin: path === undefined ? EMPTY_INPUT : bufferInput(sh.fs.readFile(this.abs(path))) };
        else if (r.op === '2>&1') stdio = { ...stdio, stderr: stdio.stdout };
        else if (r.op === '>&2') stdio = { ...stdio, stdout: stdio.stderr };
        else {
          const append = r.op.endsWith('>>');
          const chunks: Buffer[] = [];
          const out: Output = async (d) => {
            chunks.push(typeof d === 'string' ? Buffer.from(d) : d);
          };
          if (path !== undefined) {
            const abs = this.abs(path);
            // The file is created (or truncated) before the command runs, as the shell opens it first.
            sh.fs.writeFile(abs, Buffer.alloc(0), { append });
            pending.push(() => sh.fs.writeFile(abs, Buffer.concat(chunks), { append: true }));
          }
          stdio = r.op.startsWith('2') ? { ...stdio, stderr: out } : { ...stdio, stdout: out };
        }
      } catch (e) {
        await io.stderr(`sh: can't ${r.op === '<' ? 'open' : 'create'} ${target}: ${(e as Error).message}\n`);
        return 1;
      }
    }
    if (args.length === 0) {
      for (const p of pending) p();
      return 0;
    }
    const name = args[0].includes('/') ? args[0].slice(args[0].lastIndexOf('/') + 1) : args[0];
    const fn = this.builtins[name];
    let status: number;
    if (!fn) {
      await stdio.stderr(`sh: ${args[0]}: not found\n`);
      status = 127;
    } else {
      // NAME=value before a command: in its environment only.
      const saved = assigned.map(([k]) => [k, sh.env.get(k)] as const);
      for (const [k, v] of assigned) sh.env.set(k, v);
      try {
        status = await fn(args.slice(1), stdio, sh);
      } finally {
        for (const [k, v] of saved) {
          if (v === undefined) sh.env.delete(k);
          else sh.env.set(k, v);
        }
      }
    }
    try {
      for (const p of pending) p();
    } catch (e) {
      await io.stderr(`sh: write error: ${(e as Error).message}\n`);
      return 1;
    }
    return status & 0xff;
  }

  private abs(path: string): string {
    return path.startsWith('/') ? path : `${this.sh.cwd === '/' ? '' : this.sh.cwd}/${path}`;
  }
}
