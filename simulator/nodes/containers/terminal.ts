// The terminal between a TTY client and a simulated container, doing what a pty's line discipline does: typed
// characters are echoed, CR ends a line (sent on as LF), DEL/BS erase, Ctrl-C drops the line (^C), Ctrl-D on an
// empty line ends the input; output LF becomes CR LF.

import type { Readable } from 'node:stream';
import type { Input, Output } from './shell.ts';

export function readableInput(r: Readable | undefined): Input {
  if (!r) return { read: async () => null };
  const it = r[Symbol.asyncIterator]();
  return {
    async read() {
      const n = await it.next().catch(() => ({ done: true as const, value: undefined }));
      return n.done ? null : Buffer.isBuffer(n.value) ? n.value : Buffer.from(n.value as string);
    },
  };
}

export function ttyOutput(out: Output): Output {
  return (d) => out(Buffer.from((typeof d === 'string' ? d : d.toString('utf8')).replace(/\r?\n/g, '\r\n')));
}

export function ttyInput(raw: Input, echo: Output): Input {
  let line = '';
  const ready: Buffer[] = [];
  let ended = false;
  return {
    async read() {
      while (!ready.length && !ended) {
        const chunk = await raw.read();
        if (!chunk) {
          ended = true;
          if (line) ready.push(Buffer.from(line));
          break;
        }
        let shown = '';
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n') {
            shown += '\r\n';
            ready.push(Buffer.from(`${line}\n`));
            line = '';
          } else if (ch === '\x7f' || ch === '\b') {
            if (line) {
              line = line.slice(0, -1);
              shown += '\b \b';
            }
          } else if (ch === '\x03') {
            shown += '^C\r\n';
            line = '';
            ready.push(Buffer.from('\n'));
          } else if (ch === '\x04') {
            if (!line) {
              ended = true;
              break;
            }
          } else if (ch >= ' ' || ch === '\t') {
            line += ch;
            shown += ch;
          }
        }
        if (shown) await echo(shown);
      }
      return ready.shift() ?? null;
    },
  };
}
