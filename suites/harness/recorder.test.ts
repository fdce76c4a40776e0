import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExchangeRecorder, curlLine, renderExchange } from './recorder.ts';

test('curl lines quote safely, hide the token and carry binary bodies through base64', () => {
  const text = curlLine({ method: 'POST', url: "http://h/x?a='b'", headers: { 'Content-Type': 'application/json', Authorization: 'Bearer secret' }, body: Buffer.from(`{"a":"it's"}`) });
  assert.equal(text, `curl -sS -i -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" 'http://h/x?a='\\''b'\\''' --data-binary '{"a":"it'\\''s"}'`);
  assert.doesNotMatch(text, /secret/);
  const binary = curlLine({ method: 'PUT', url: 'http://h/y', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, body: Uint8Array.of(0x6b, 0x38, 0x73, 0) });
  assert.equal(binary, `printf %s 'azhzAA==' | base64 -d | curl -sS -i -X PUT -H 'Content-Type: application/vnd.kubernetes.protobuf' 'http://h/y' --data-binary @-`);
});

test('rendered exchanges cut long bodies and redact the token', () => {
  const recorder = new ExchangeRecorder();
  const x = recorder.record({
    startedAt: '',
    durationMs: 1,
    request: { method: 'GET', url: 'http://h', headers: { Authorization: 'Bearer secret' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('x'.repeat(100)) },
  });
  const r = renderExchange(x, {}, 10);
  assert.equal(r.requestHeaders.Authorization, 'Bearer <redacted>');
  assert.equal(r.truncated, true);
  assert.match(r.responseBody ?? '', /^x{10}\n\.\.\. \(90 more bytes\)$/);
});

test('evidence keeps the exchanges of the last failing property run', () => {
  const recorder = new ExchangeRecorder();
  const ex = (url: string) => recorder.record({ startedAt: '', durationMs: 0, request: { method: 'GET', url, headers: {} } });
  recorder.beginRun();
  ex('run1');
  recorder.markRunFailed();
  recorder.beginRun();
  ex('run2-a');
  ex('run2-b');
  recorder.markRunFailed();
  recorder.beginRun();
  ex('run3-passed');
  assert.deepEqual(recorder.evidence().map((e) => e.request.url), ['run2-a', 'run2-b']);
});
