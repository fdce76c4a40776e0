// gzip, gunzip, zcat and base64 of a simulated container (busybox's options and messages), over node's zlib: a
// command line such as `echo -n text | gzip` (the Python client's e2e test_pod_apis) or `gzip -c f | base64`.
// Operands are files of the container; without one (or with `-`) the command filters stdin to stdout.

import zlib from 'node:zlib';
import { resolvePath } from './memfs.ts';
import { readAll, type Builtin, type Stdio, type ShellState } from './shell.ts';

type Mode = 'compress' | 'decompress';

async function gzipCommand(cmd: string, mode: Mode, args: string[], io: Stdio, sh: ShellState): Promise<number> {
  let toStdout = cmd === 'zcat';
  let force = false;
  const files: string[] = [];
  for (const a of args) {
    if (a === '-' || !a.startsWith('-')) files.push(a);
    else if (a === '--stdout') toStdout = true;
    else
      for (const ch of a.slice(1)) {
        if (ch === 'c') toStdout = true;
        else if (ch === 'd') mode = 'decompress';
        else if (ch === 'f') force = true;
        else if (!'n123456789'.includes(ch)) {
          await io.stderr(`${cmd}: invalid option -- '${ch}'\n`);
          return 1;
        }
      }
  }
  const convert = (data: Buffer): Buffer => (mode === 'compress' ? zlib.gzipSync(data) : zlib.gunzipSync(data));
  if (!files.length) files.push('-');
  let status = 0;
  for (const f of files) {
    try {
      if (f === '-') {
        await io.stdout(convert(await readAll(io.stdin)));
        continue;
      }
      const path = resolvePath(sh.cwd, f);
      if (mode === 'decompress' && !toStdout && !path.endsWith('.gz')) {
        await io.stderr(`${cmd}: ${f}: unknown suffix - ignored\n`);
        status = 1;
        continue;
      }
      const out = convert(sh.fs.readFile(path));
      if (toStdout) {
        await io.stdout(out);
        continue;
      }
      const target = mode === 'compress' ? `${path}.gz` : path.slice(0, -3);
      if (sh.fs.get(target) && !force) {
        await io.stderr(`${cmd}: can't open '${target}': File exists\n`);
        status = 1;
        continue;
      }
      sh.fs.writeFile(target, out);
      sh.fs.remove(path);
    } catch (e) {
      const message = (e as { code?: string }).code?.startsWith('Z_') ? 'invalid magic' : (e as Error).message;
      await io.stderr(`${cmd}: ${f === '-' ? 'standard input' : f}: ${message}\n`);
      status = 1;
    }
  }
  return status;
}

export const COMPRESSION: Record<string, Builtin> = {
  gzip: (args, io, sh) => gzipCommand('gzip', 'compress', args, io, sh),
  gunzip: (args, io, sh) => gzipCommand('gunzip', 'decompress', args, io, sh),
  zcat: (args, io, sh) => gzipCommand('zcat', 'decompress', args, io, sh),

  async base64(args, io, sh) {
    const decode = args.includes('-d');
    const file = args.find((a) => !a.startsWith('-'));
    const data = file ? sh.fs.readFile(resolvePath(sh.cwd, file)) : await readAll(io.stdin);
    if (decode) {
      await io.stdout(Buffer.from(data.toString('latin1').replace(/\s+/g, ''), 'base64'));
      return 0;
    }
    // busybox wraps at 76 columns.
    const text = data.toString('base64');
    await io.stdout(text ? `${text.match(/.{1,76}/g)!.join('\n')}\n` : '');
    return 0;
  },
};
