// --token-auth-file: static bearer tokens in the real CSV format, one per line:
//   token,user,uid,"group1,group2,group3"
// At least three columns (a line with fewer is an error naming the line), the fourth optional; a leading
// byte-order mark is dropped; blank lines are skipped; a line with an empty token is skipped (the real
// server warns about it); a repeated token: the later line wins, as in the real reader.

import { readFileSync } from 'node:fs';
import type { UserInfo } from './user.ts';

export class TokenFileError extends Error {}

/** One CSV record with quoted fields ("" inside quotes is a quote), as Go's encoding/csv reads it. */
function parseCsvLine(line: string, lineNo: number, file: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (true) {
    let field = '';
    if (line[i] === '"') {
      i++;
      while (true) {
        if (i >= line.length) throw new TokenFileError(`${file}: line ${lineNo}: extraneous or missing " in quoted-field`);
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ',') throw new TokenFileError(`${file}: line ${lineNo}: extraneous or missing " in quoted-field`);
    } else {
      const end = line.indexOf(',', i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      if (field.includes('"')) throw new TokenFileError(`${file}: line ${lineNo}: bare " in non-quoted-field`);
      i = end < 0 ? line.length : end;
    }
    out.push(field);
    if (i >= line.length) return out;
    i++; // the comma
  }
}

/** token → user, parsed from the text of a token file. */
export function parseTokenFile(text: string, file = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((line, idx) => {
    if (line.trim() === '') return;
    const rec = parseCsvLine(line, idx + 1, file);
    if (rec.length < 3) throw new TokenFileError(`token file '${file}' must have at least 3 columns (token, user name, user uid), found ${rec.length}`);
    const [token, name, uid, groups] = rec;
    if (token === '') return;
    const user: UserInfo = { name, uid, groups: [] };
    if (groups !== undefined && groups.trim() !== '') user.groups = groups.split(',');
    tokens.set(token, user);
  });
  return tokens;
}

export function loadTokenFile(path: string): Map<string, UserInfo> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new TokenFileError(`cannot read --token-auth-file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseTokenFile(text, path);
}
