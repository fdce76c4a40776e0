// Escaping for the HTML report. Everything in results.json may come from the target (response bodies,
// headers, messages quoting them), so every piece of text goes through escapeHtml before it reaches the
// page; the page's script never parses data as markup.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// C0 controls other than tab, newline and carriage return (and DEL) are parse errors in HTML and invisible
// anyway; they are shown as \uXXXX so a body that contains them still reads truthfully.
// eslint-disable-next-line no-control-regex -- the control characters HTML may not carry are what this matches
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Text safe inside an element or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Tagged template: interpolated values are escaped unless wrapped in raw(). */
export class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export function raw(html: string): Raw {
  return new Raw(html);
}

type Part = Raw | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Raw) return part.html;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part);
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Raw {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new Raw(out);
}
