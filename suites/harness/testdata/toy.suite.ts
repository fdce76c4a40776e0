// A tiny suite for the engine's own tests: one check of each outcome.
import fc from 'fast-check';
import { check } from '../check.ts';
import { expectStatusCode, fail, forRows } from '../expect.ts';

check('toy.passes', { rows: ['toy.row.a'] }, async (ctx) => {
  const res = await ctx.client.get('/api/v1');
  expectStatusCode(res, 200, 'GET /api/v1');
});

check('toy.fails-on-row-b', { rows: ['toy.row.a', 'toy.row.b'] }, async (ctx) => {
  await ctx.client.get('/api/v1/namespaces/x/configmaps/missing');
  await forRows('toy.row.b', () => fail('row b is broken on purpose'));
});

check('toy.needs-apps', { rows: ['toy.row.c'], requires: [{ group: 'apps', version: 'v1', resource: 'deployments' }] }, async () => {
  fail('must never run on a target without apps/v1');
});

check('toy.property-fails', { rows: ['toy.row.d'] }, async (ctx) => {
  await ctx.forAll(fc.integer({ min: 0, max: 1000 }), async (n) => {
    await ctx.client.get('/api/v1', { query: { n } });
    if (n >= 10) fail(`n=${n} is too big`);
  });
});

check('toy.uses-namespace', { rows: ['toy.row.e'] }, async (ctx) => {
  const ns = await ctx.namespace();
  if (!ns.startsWith('conformance-')) fail(`namespace ${ns} lacks the run prefix`);
});

check('toy.skips-itself', { rows: ['toy.row.f'] }, async (ctx) => {
  ctx.skip('nothing to see');
});
