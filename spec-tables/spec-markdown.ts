// Reads the spec markdown itself, so tests can cross-check the tables against the text they were
// written from instead of against hard-coded copies.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPEC_TABLES_DIR } from './index.ts';

/** The spec sits in the shared folder next to the checkout: <repo>/../shared/spec/. */
export const SPEC_MARKDOWN_PATH = join(SPEC_TABLES_DIR, '..', '..', 'shared', 'spec', 'cluster-resource-api.md');

export function readSpecMarkdown(path: string = SPEC_MARKDOWN_PATH): string {
  return readFileSync(path, 'utf8');
}

/** Text of one section ("4.6", "8.2" or "7"), from its heading to the next heading of any level. */
export function sectionText(md: string, number: string): string {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^#{2,3} ${number.replace(/\./g, '\\.')}\\.? `).test(l));
  if (start < 0) throw new Error(`section ${number} not found in the spec`);
  const end = lines.findIndex((l, i) => i > start && /^#{2,3} /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Cells of every body row of the markdown tables in a text (header and separator rows dropped). */
export function tableRows(text: string): string[][] {
  const out: string[][] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.startsWith('|')) return;
    const isHeader = lines[i + 1]?.startsWith('|---') ?? false;
    if (isHeader || line.startsWith('|---')) return;
    out.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  });
  return out;
}

/** Items of a numbered list in a text, joined across continuation lines. */
export function numberedItems(text: string): string[] {
  const items: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+)\. (.*)$/.exec(line);
    if (m) items.push(m[2]);
    else if (items.length && /^\s+\S/.test(line)) items[items.length - 1] += '\n' + line.trim();
  }
  return items;
}
