// Section titles for the HTML report ("4.3" -> "List, chunking and watch"), read from the spec's own
// headings so they never drift from it. results.json carries section numbers only; when the spec is not
// beside the checkout the report shows the numbers alone.
import { readSpecMarkdown } from '../../spec-tables/spec-markdown.ts';

/** Titles of the numbered headings of a spec markdown text. */
export function parseSectionTitles(markdown: string): Record<string, string> {
  // Rows of the path-prefix table come before section 1; the spec calls that part its notation.
  const titles: Record<string, string> = { '0': 'Notation' };
  for (const line of markdown.split('\n')) {
    const m = /^#{2,3} (\d+(?:\.\d+)*)\.? +(.+?)\s*$/.exec(line);
    if (m) titles[m[1]] = m[2];
  }
  return titles;
}

/** Titles from the spec next to the checkout, or none when it cannot be read. */
export function specSectionTitles(): Record<string, string> {
  try {
    return parseSectionTitles(readSpecMarkdown());
  } catch {
    return {};
  }
}
