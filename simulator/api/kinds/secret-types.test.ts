// Secrets of the identity types, validated as the 1.9 server does (ValidateSecret's switch on the type):
// kubernetes.io/service-account-token needs only the service-account.name annotation (the token, ca.crt and
// namespace keys are filled by the serviceaccount-token controller); bootstrap.kubernetes.io/token has no
// type-specific rule (the tokencleaner, bootstrapsigner and authenticator ignore malformed ones), only the
// generic data-key and size rules; the type cannot change.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Harness, assertInvalid, harness } from '../../testing/kinds.ts';

let h: Harness;
before(async () => {
  h = await harness();
});
after(() => h.close());

const SECRETS = '/api/v1/namespaces/kube-system/secrets';

test('service-account-token: the account-name annotation is required, nothing else', async () => {
  const missing = await h.call('POST', SECRETS, { metadata: { name: 'sat-1' }, type: 'kubernetes.io/service-account-token' });
  const cause = assertInvalid(missing, 'metadata.annotations[kubernetes.io/service-account.name]', 'FieldValueRequired');
  assert.ok(cause, 'cause');
  const ok = await h.call('POST', SECRETS, { metadata: { name: 'sat-2', annotations: { 'kubernetes.io/service-account.name': 'default' } }, type: 'kubernetes.io/service-account-token' });
  assert.equal(ok.status, 201, ok.text);
  const typeChange = await h.call('PATCH', `${SECRETS}/sat-2`, { type: 'Opaque' }, { 'content-type': 'application/merge-patch+json' });
  assertInvalid(typeChange, 'type', 'FieldValueInvalid');
});

test('bootstrap token: accepted with the generic key rules only; stringData becomes data', async () => {
  const r = await h.call('POST', SECRETS, {
    metadata: { name: 'bootstrap-token-abcdef' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-signing': 'true', expiration: '2030-01-01T00:00:00Z' },
  });
  assert.equal(r.status, 201, r.text);
  assert.equal(Buffer.from(r.body.data['token-id'], 'base64').toString(), 'abcdef');
  assert.equal(r.body.stringData, undefined);
  const badKey = await h.call('POST', SECRETS, { metadata: { name: 'bootstrap-token-zzzzzz' }, type: 'bootstrap.kubernetes.io/token', data: { 'bad key': 'eA==' } });
  assertInvalid(badKey, 'data[bad key]', 'FieldValueInvalid');
});
