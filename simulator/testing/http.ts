// The one HTTP `call` helper of the tests: a request to a running API server, answered with the status, the
// headers, the raw bytes, the text and the JSON body (undefined when the body is empty or not JSON). A test
// binds it to its server once: `const call = (m, p, b?, h?) => httpCall(sim.url, m, p, b, h)`.

import { request } from 'undici';

export type AnyJson = any;

export interface HttpReply {
  status: number;
  contentType: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  text: string;
  body: AnyJson;
}

/**
 * Sends `body` as is when it is a string or a Buffer, as JSON otherwise; a body gets
 * `content-type: application/json` unless `headers` name one.
 */
export async function httpCall(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpReply> {
  const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  const res = await request(base + path, {
    method: method as 'GET',
    headers: body === undefined || hasType ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const text = raw.toString('utf8');
  let parsed: AnyJson;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined; // protobuf, YAML or plain text: read raw or text
    }
  }
  return { status: res.statusCode, contentType: res.headers['content-type'] as string | undefined, headers: res.headers, raw, text, body: parsed };
}
