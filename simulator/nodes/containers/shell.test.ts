import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemFs } from './memfs.ts';
import { BUILTINS } from './builtins.ts';
import { bufferInput, Shell, type ShellState } from './shell.ts';
import { createTar, readTar } from './tar.ts';
import { gunzipSync } from 'node:zlib';

async function sh(script: string, opts: { fs?: MemFs; stdin?: string; env?: Record<string, string> } = {}) {
  const fs = opts.fs ?? new MemFs();
  const state: ShellState = { fs, env: new Map(Object.entries(opts.env ?? { HOME: '/root' })), cwd: '/', status: 0, signal: new AbortController().signal, hostname: 'pod-1', startedAt: Date.now() };
  let stdout = '';
  let stderr = '';
  const code = await new Shell(BUILTINS, state).run(script, {
    stdin: bufferInput(Buffer.from(opts.stdin ?? '')),
    stdout: async (d) => void (stdout += d.toString()),
    stderr: async (d) => void (stderr += d.toString()),
  });
  return { code, stdout, stderr, fs };
}

test('lists, exit codes and $?', async () => {
  const { code, stdout, stderr } = await sh('exit 3');
  assert.deepEqual({ code, stdout, stderr }, { code: 3, stdout: '', stderr: '' });
  assert.equal((await sh('false; echo $?')).stdout, '1\n');
  assert.equal((await sh('false && echo no || echo yes')).stdout, 'yes\n');
  assert.equal((await sh('true && echo a; echo b')).stdout, 'a\nb\n');
  assert.equal((await sh('! false')).code, 0);
  assert.equal((await sh('exit 300')).code, 44);
  const r = await sh('nosuch arg');
  assert.equal(r.code, 127);
  assert.equal(r.stderr, 'sh: nosuch: not found\n');
});

test('quoting, variables and command substitution with field splitting', async () => {
  assert.equal((await sh(`X='a  b'; echo "$X" $X '$X' \\$X`)).stdout, 'a  b a b $X $X\n');
  assert.equal((await sh('echo "${HOME}/x" $UNSET end')).stdout, '/root/x end\n');
  assert.equal((await sh('for i in $(seq 1 3); do echo n$i; done')).stdout, 'n1\nn2\nn3\n');
  assert.equal((await sh('echo "$(echo a; echo b)"')).stdout, 'a\nb\n');
  assert.equal((await sh('A=1 env | grep ^A=; echo ${A}x')).stdout, 'A=1\nx\n');
});

test('compound commands', async () => {
  assert.equal((await sh('if false; then echo t; elif true; then echo e; else echo f; fi')).stdout, 'e\n');
  assert.equal((await sh('n=x; while [ $n != xxx ]; do echo $n; n=${n}x; done')).stdout, 'x\nxx\n');
  assert.equal((await sh('until true; do echo never; done; echo after')).stdout, 'after\n');
  assert.equal((await sh('{ echo a; echo b; } | wc -l')).stdout, '2\n');
  const bad = await sh('if true; then echo x');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /syntax error: unexpected end of file/);
});

test('redirections and the filesystem', async () => {
  const r = await sh('mkdir -p /a/b && echo hi > /a/b/f && echo more >> /a/b/f && cat /a/b/f && ls /a/b && cat /nope 2>/dev/null || echo missing');
  assert.equal(r.stdout, 'hi\nmore\nf\nmissing\n');
  assert.equal((await sh('cat < /a/b/f | grep -c o', { fs: r.fs })).stdout, '1\n');
  const e = await sh('cat /nope; rm /a', { fs: r.fs });
  assert.equal(e.stderr, "cat: /nope: No such file or directory\nrm: '/a' is a directory\n");
  assert.equal((await sh('echo err >&2 2>&1', { fs: r.fs })).stderr, 'err\n');
  assert.equal((await sh('cat', { stdin: 'from stdin' })).stdout, 'from stdin');
});

test('tar round trip as kubectl cp uses it', async () => {
  const src = await sh('mkdir -p /data/sub && echo one > /data/a.txt && echo two > /data/sub/b.txt');
  let archive = Buffer.alloc(0);
  const state: ShellState = { fs: src.fs, env: new Map(), cwd: '/', status: 0, signal: new AbortController().signal, hostname: 'p', startedAt: 0 };
  let err = '';
  await BUILTINS.tar(['cf', '-', '/data'], { stdin: bufferInput(Buffer.alloc(0)), stdout: async (d) => void (archive = Buffer.concat([archive, Buffer.from(d)])), stderr: async (d) => void (err += d) }, state);
  assert.equal(err, "tar: Removing leading `/' from member names\n");
  assert.deepEqual(readTar(archive).map((m) => m.name), ['data/', 'data/a.txt', 'data/sub/', 'data/sub/b.txt']);
  const dest = new MemFs();
  dest.mkdir('/restore');
  const st2: ShellState = { ...state, fs: dest };
  const code = await BUILTINS.tar(['-xmf', '-', '-C', '/restore'], { stdin: bufferInput(archive), stdout: async () => {}, stderr: async (d) => void (err += d) }, st2);
  assert.equal(code, 0);
  assert.equal(dest.readFile('/restore/data/sub/b.txt').toString(), 'two\n');
  // Members cannot leave the target directory.
  const evil = createTar(src.fs, '/data', ['a.txt'], () => {});
  evil.write('../../etc/x\0', 0, 'latin1');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : evil[i];
  evil.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  await BUILTINS.tar(['xf', '-', '-C', '/restore'], { stdin: bufferInput(evil), stdout: async () => {}, stderr: async () => {} }, st2);
  assert.equal(dest.get('/etc/x'), undefined);
  assert.equal(dest.readFile('/restore/etc/x').toString(), 'one\n');
  // Long names use GNU long-name entries.
  const long = `/d/${'n'.repeat(150)}`;
  const lf = new MemFs();
  lf.mkdir('/d');
  lf.writeFile(long, Buffer.from('x'));
  assert.deepEqual(readTar(createTar(lf, '/', [long], () => {})).map((m) => m.name), [long.slice(1)]);
});

test('gzip, gunzip, zcat and base64: filters and files', async () => {
  const fs = new MemFs();
  const state: ShellState = { fs, env: new Map(), cwd: '/', status: 0, signal: new AbortController().signal, hostname: 'pod-1', startedAt: Date.now() };
  const chunks: Buffer[] = [];
  const code = await new Shell(BUILTINS, state).run('echo -n "This is a test string" | gzip', {
    stdin: bufferInput(Buffer.alloc(0)),
    stdout: async (d) => void chunks.push(Buffer.from(d)),
    stderr: async () => {},
  });
  assert.equal(code, 0);
  assert.equal(gunzipSync(Buffer.concat(chunks)).toString(), 'This is a test string');
  assert.equal((await sh('echo -n hello | gzip | gunzip')).stdout, 'hello');
  assert.equal((await sh('echo -n hello | gzip | base64 | base64 -d | zcat')).stdout, 'hello');
  assert.equal((await sh('echo -n hi | base64')).stdout, 'aGk=\n');
  const r = await sh('echo data > /f && gzip /f && ls / && gunzip /f.gz && cat /f && gzip -c /f | gzip -d', { fs });
  assert.equal(r.stdout, 'f.gz\ndata\ndata\n');
  const bad = await sh('echo plain | gunzip');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^gunzip: standard input: /);
});
