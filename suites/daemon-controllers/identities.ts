// Identities and certificates: a part of daemon-controllers.suite.ts.
import { createHmac, randomBytes, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { check } from '../harness/check.ts';
import { expectTrue, fail } from '../harness/expect.ts';
import { certificateRequest, writeDaemonPki } from '../daemon/pki.ts';
import { busyScaled, within } from '../harness/progress.ts';
import type { KubeObject } from '../../simulator/api/meta.ts';
import { namespaceFor, withControllers, withEnv } from './env.ts';

// ---------------------------------------------------------------------------------------------------------
// Identities and certificates (spec 5, 8.2): service-account tokens, bootstrap tokens, certificate requests and
// role aggregation, observed through the API of the check's simulator. Keys and CAs are made by the check
// (daemon/pki.ts) and handed to the daemon as files, so that what the daemon issues can be verified with
// material only the check and the files know.

const b64url = (s: string) => Buffer.from(s, 'base64url');
const dataOf = (o: KubeObject | undefined, key: string) => {
  const v = (o as { data?: Record<string, string> } | undefined)?.data?.[key];
  return typeof v === 'string' ? v : undefined;
};

/** The problems of a service-account JWT against the key, account and Secret it should carry (1.9 legacy claims). */
export function serviceAccountTokenProblems(
  jwt: string,
  publicKey: KeyObject,
  account: { namespace: string; name: string; uid: string },
  secretName: string,
): string[] {
  const parts = jwt.split('.');
  if (parts.length !== 3) return [`the token is not a compact JWS (${parts.length} parts)`];
  let header: { alg?: string };
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(b64url(parts[0]).toString('utf8')) as { alg?: string };
    claims = JSON.parse(b64url(parts[1]).toString('utf8')) as Record<string, unknown>;
  } catch {
    return ['the token header or claims are not base64url JSON'];
  }
  const problems: string[] = [];
  const algs: Record<string, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };
  const digest = algs[header.alg ?? ''];
  if (!digest) problems.push(`header alg ${JSON.stringify(header.alg)} is not one of ${Object.keys(algs).join(', ')}`);
  else {
    const ok = verify(
      digest,
      Buffer.from(`${parts[0]}.${parts[1]}`),
      header.alg!.startsWith('ES') ? { key: publicKey, dsaEncoding: 'ieee-p1363' } : publicKey,
      b64url(parts[2]),
    );
    if (!ok) problems.push(`the ${header.alg} signature does not verify with the public key of --service-account-private-key-file`);
  }
  const want: Record<string, string> = {
    iss: 'kubernetes/serviceaccount',
    sub: `system:serviceaccount:${account.namespace}:${account.name}`,
    'kubernetes.io/serviceaccount/namespace': account.namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': account.name,
    'kubernetes.io/serviceaccount/service-account.uid': account.uid,
  };
  for (const [k, v] of Object.entries(want)) if (claims[k] !== v) problems.push(`claim ${k} is ${JSON.stringify(claims[k])}, expected ${JSON.stringify(v)}`);
  return problems;
}

check(
  'daemon-controllers.serviceaccount-token',
  {
    rows: ['controller.serviceaccount-token', 'option.service-account-private-key-file', 'option.root-ca-file', 'option.concurrent-serviceaccount-token-syncs'],
    title: 'serviceaccount-token: every ServiceAccount gets a token Secret whose JWT verifies with the key file\'s public key and carries the 1.9 claims, ca.crt from --root-ca-file, listed in the account; gone with the account',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const pki = await writeDaemonPki(env.dir);
      const ns = await namespaceFor(api, 'sat');
      const flags = [
        `--service-account-private-key-file=${pki.serviceAccountKeyFile}`,
        `--root-ca-file=${pki.caCertFile}`,
        '--concurrent-serviceaccount-token-syncs=2',
      ];
      await withControllers(env, 'serviceaccount-token', flags, 'serviceaccount-token', async () => {
        const names = ['robot-a', 'robot-b'];
        for (const n of names) {
          const r = await api.send('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: n } });
          if (r.status !== 201) fail(`setup: creating ServiceAccount ${n} answered ${r.status}`);
        }
        for (const n of names) {
          const found = await within(busyScaled(40_000), async () => {
            const sa = await api.get(`/api/v1/namespaces/${ns}/serviceaccounts/${n}`);
            const listed = ((sa as { secrets?: Array<{ name?: string }> } | undefined)?.secrets ?? []).map((s) => s.name);
            for (const s of await api.list(`/api/v1/namespaces/${ns}/secrets`)) {
              const type = (s as { type?: string }).type;
              if (
                type === 'kubernetes.io/service-account-token' &&
                s.metadata.annotations?.['kubernetes.io/service-account.name'] === n &&
                dataOf(s, 'token') &&
                listed.includes(s.metadata.name)
              )
                return { sa: sa!, secret: s };
            }
            return undefined;
          });
          expectTrue(found, `ServiceAccount ${ns}/${n} got a kubernetes.io/service-account-token Secret with a token, listed in its secrets, within ${busyScaled(40_000) / 1000} s`, [
            'controller.serviceaccount-token',
          ]);
          const { sa, secret } = found;
          expectTrue(
            secret.metadata.annotations?.['kubernetes.io/service-account.uid'] === sa.metadata.uid,
            `the token Secret names the account's uid (${secret.metadata.annotations?.['kubernetes.io/service-account.uid']} vs ${sa.metadata.uid})`,
            ['controller.serviceaccount-token'],
          );
          const jwt = Buffer.from(dataOf(secret, 'token')!, 'base64').toString('utf8');
          const problems = serviceAccountTokenProblems(
            jwt,
            pki.serviceAccountPublicKey,
            { namespace: ns, name: n, uid: sa.metadata.uid ?? '' },
            secret.metadata.name ?? '',
          );
          expectTrue(problems.length === 0, `the token of ${ns}/${n}: ${problems.join('; ')}`, [
            'option.service-account-private-key-file',
            'controller.serviceaccount-token',
          ]);
          const ca = Buffer.from(dataOf(secret, 'ca.crt') ?? '', 'base64').toString('utf8');
          expectTrue(
            ca.trim() === pki.caCertPem.trim(),
            `ca.crt of the token Secret is the --root-ca-file bundle (got ${ca.length} bytes${ca ? `: ${ca.slice(0, 40)}...` : ''})`,
            ['option.root-ca-file'],
          );
          expectTrue(Buffer.from(dataOf(secret, 'namespace') ?? '', 'base64').toString('utf8') === ns, `the token Secret's namespace entry is ${ns}`, [
            'controller.serviceaccount-token',
          ]);
        }
        // The account goes: its token Secret goes with it.
        await api.send('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/robot-a`);
        const gone = await within(busyScaled(40_000), async () =>
          (await api.list(`/api/v1/namespaces/${ns}/secrets`)).some((s) => s.metadata.annotations?.['kubernetes.io/service-account.name'] === 'robot-a')
            ? undefined
            : true,
        );
        expectTrue(gone, `the token Secret of a deleted ServiceAccount was deleted within ${busyScaled(40_000) / 1000} s`, ['controller.serviceaccount-token']);
      });
    });
  },
);

const bootstrapToken = (id: string, secret: string, extra: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
  type: 'bootstrap.kubernetes.io/token',
  data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...extra }).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

/** A random bootstrap token id and secret ([a-z0-9]{6} and {16}). */
const tokenPair = () => {
  const pick = (n: number) => Array.from(randomBytes(n), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
  return { id: pick(6), secret: pick(16) };
};

/** Whether a detached-payload JWS ("<header>..<signature>") is HS256 by token id over content with the token secret. */
export function detachedJwsProblem(jws: string, content: string, token: { id: string; secret: string }): string | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3 || parts[1] !== '') return `not a compact JWS with a detached payload: ${JSON.stringify(jws.slice(0, 60))}`;
  let header: { alg?: string; kid?: string };
  try {
    header = JSON.parse(b64url(parts[0]).toString('utf8')) as { alg?: string; kid?: string };
  } catch {
    return 'the JWS header is not base64url JSON';
  }
  if (header.alg !== 'HS256') return `JWS alg ${JSON.stringify(header.alg)}, expected HS256`;
  if (header.kid !== token.id) return `JWS kid ${JSON.stringify(header.kid)}, expected the token id ${token.id}`;
  const mac = createHmac('sha256', token.secret).update(`${parts[0]}.${Buffer.from(content).toString('base64url')}`).digest('base64url');
  return mac === parts[2] ? undefined : 'the signature does not verify with the token secret over the kubeconfig';
}

check(
  'daemon-controllers.bootstrap-tokens',
  {
    rows: ['controller.bootstrapsigner', 'controller.tokencleaner'],
    title: 'bootstrapsigner: cluster-info in kube-public carries a verifying detached JWS per signing token (removed when the token goes); tokencleaner: an expired bootstrap token Secret is deleted, a current one stays',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: ${env.masterUrl}\n`;
      const cm = await api.send('POST', '/api/v1/namespaces/kube-public/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } });
      if (cm.status !== 201) fail(`setup: creating kube-public/cluster-info answered ${cm.status}`);
      const signing = tokenPair();
      const expired = tokenPair();
      const current = tokenPair();
      const future = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const past = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      await withControllers(env, 'bootstrapsigner,tokencleaner', [], 'bootstrapsigner and tokencleaner', async () => {
        for (const [t, extra] of [[signing, { 'usage-bootstrap-signing': 'true', expiration: future }], [expired, { expiration: past }], [current, { expiration: future }]] as const) {
          const r = await api.send('POST', '/api/v1/namespaces/kube-system/secrets', bootstrapToken(t.id, t.secret, extra));
          if (r.status !== 201) fail(`setup: creating bootstrap-token-${t.id} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        }
        const key = `jws-kubeconfig-${signing.id}`;
        const jws = await within(busyScaled(40_000), async () => dataOf(await api.get('/api/v1/namespaces/kube-public/configmaps/cluster-info'), key));
        expectTrue(jws !== undefined, `cluster-info got ${key} within ${busyScaled(40_000) / 1000} s`, ['controller.bootstrapsigner']);
        const problem = detachedJwsProblem(jws, kubeconfig, signing);
        expectTrue(problem === undefined, `${key}: ${problem}`, ['controller.bootstrapsigner']);
        const data = (await api.get('/api/v1/namespaces/kube-public/configmaps/cluster-info')) as { data?: Record<string, string> } | undefined;
        const others = Object.keys(data?.data ?? {}).filter((k) => k.startsWith('jws-kubeconfig-') && k !== key);
        expectTrue(others.length === 0, `only signing tokens sign cluster-info (also found ${others.join(', ')})`, ['controller.bootstrapsigner']);
        const cleaned = await within(busyScaled(40_000), async () => ((await api.get(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${expired.id}`)) ? undefined : true));
        expectTrue(cleaned, `the expired bootstrap token Secret bootstrap-token-${expired.id} was deleted within ${busyScaled(40_000) / 1000} s`, ['controller.tokencleaner']);
        expectTrue((await api.get(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${current.id}`)) !== undefined, 'a bootstrap token Secret that has not expired stays', ['controller.tokencleaner']);
        // The signing token goes: its signature goes.
        await api.send('DELETE', `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${signing.id}`);
        const unsigned = await within(busyScaled(40_000), async () => (dataOf(await api.get('/api/v1/namespaces/kube-public/configmaps/cluster-info'), key) === undefined ? true : undefined));
        expectTrue(unsigned, `${key} was removed within ${busyScaled(40_000) / 1000} s of its token's deletion`, ['controller.bootstrapsigner']);
      });
    });
  },
);

check(
  'daemon-controllers.certificates',
  {
    rows: ['controller.csrapproving', 'controller.csrsigning', 'option.cluster-signing-cert-file', 'option.cluster-signing-key-file', 'option.experimental-cluster-signing-duration'],
    title: 'csrapproving approves a node client CSR (and not a server one); csrsigning issues a certificate that verifies against the --cluster-signing-cert-file CA, for the request\'s key and subject, within --experimental-cluster-signing-duration',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const pki = await writeDaemonPki(env.dir, 'daemon-suite-signer');
      const node = `csr-node-${ctx.fc.seed % 100_000}`;
      const client = await certificateRequest(`CN=system:node:${node}, O=system:nodes`);
      const other = await certificateRequest('CN=web.example.test, O=example', { dnsNames: ['web.example.test'] });
      const csr = (name: string, request: string, usages: string[]) => ({ apiVersion: 'certificates.k8s.io/v1beta1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(request).toString('base64'), usages } });
      const clientName = `${node}-client`;
      const otherName = `${node}-other`;
      const duration = 2 * 3_600_000;
      const flags = [`--cluster-signing-cert-file=${pki.caCertFile}`, `--cluster-signing-key-file=${pki.caKeyFile}`, '--experimental-cluster-signing-duration=2h'];
      await withControllers(env, 'csrapproving,csrsigning', flags, 'csrapproving and csrsigning', async () => {
        for (const [name, body] of [[clientName, csr(clientName, client.pem, ['digital signature', 'key encipherment', 'client auth'])], [otherName, csr(otherName, other.pem, ['digital signature', 'key encipherment', 'server auth'])]] as const) {
          const r = await api.send('POST', '/apis/certificates.k8s.io/v1beta1/certificatesigningrequests', body);
          if (r.status !== 201) fail(`setup: creating CSR ${name} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
        }
        const path = (n: string) => `/apis/certificates.k8s.io/v1beta1/certificatesigningrequests/${n}`;
        type WithConditions = { conditions?: Array<{ type?: string; reason?: string }> };
        const conditions = (o: KubeObject | undefined) => ((o?.status as WithConditions | undefined)?.conditions ?? []);
        const approved = await within(busyScaled(40_000), async () => (conditions(await api.get(path(clientName))).some((c) => c.type === 'Approved') ? true : undefined));
        expectTrue(approved, `the node client CSR (CN=system:node:${node}, O=system:nodes, client auth) was approved within ${busyScaled(40_000) / 1000} s`, ['controller.csrapproving']);
        const certText = await within(
          busyScaled(40_000),
          async () => ((await api.get(path(clientName)))?.status as { certificate?: string } | undefined)?.certificate,
        );
        expectTrue(certText !== undefined, `the approved CSR got status.certificate within ${busyScaled(40_000) / 1000} s`, ['controller.csrsigning']);
        let cert: X509Certificate;
        try {
          cert = new X509Certificate(Buffer.from(certText, 'base64'));
        } catch (e) {
          fail(`status.certificate is not a PEM certificate: ${(e as Error).message}`, ['controller.csrsigning']);
        }
        const ca = new X509Certificate(pki.caCertPem);
        expectTrue(cert.verify(ca.publicKey) && cert.checkIssued(ca), `the issued certificate (issuer ${cert.issuer.replace(/\n/g, ', ')}) verifies against the CA of --cluster-signing-cert-file (${ca.subject})`, ['option.cluster-signing-cert-file', 'option.cluster-signing-key-file', 'controller.csrsigning']);
        expectTrue(/CN=system:node:/.test(cert.subject) && cert.subject.includes(node) && /O=system:nodes/.test(cert.subject), `the certificate's subject is the request's (${cert.subject.replace(/\n/g, ', ')})`, ['controller.csrsigning']);
        expectTrue(cert.publicKey.export({ type: 'spki', format: 'der' }).equals(client.publicKeySpki), 'the certificate carries the request\'s public key', ['controller.csrsigning']);
        const lifetime = Date.parse(cert.validTo) - Date.now();
        expectTrue(lifetime > 0 && lifetime <= duration + 120_000, `--experimental-cluster-signing-duration=2h: the certificate is valid until ${cert.validTo} (${Math.round(lifetime / 60_000)} min from now)`, ['option.experimental-cluster-signing-duration']);
        expectTrue(!conditions(await api.get(path(otherName))).some((c) => c.type === 'Approved'), 'a CSR that is not a node client request (server auth, another subject) is not approved by csrapproving', ['controller.csrapproving']);
      });
    });
  },
);

check(
  'daemon-controllers.clusterrole-aggregation',
  {
    rows: ['controller.clusterrole-aggregation'],
    title: 'clusterrole-aggregation: a ClusterRole with an aggregationRule gets the rules of the ClusterRoles its selectors match, and keeps them in step (a rule added, a label removed)',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const tag = `agg${ctx.fc.seed % 100_000}`;
      const label = `suite.example.com/aggregate-to-${tag}`;
      const base = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
      const role = (name: string, labels: Record<string, string>, rules: unknown[], aggregationRule?: unknown) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules, ...(aggregationRule ? { aggregationRule } : {}) });
      const r1 = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] };
      const r2 = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['watch'] };
      const r3 = { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] };
      const rulesOf = async (name: string) => (((await api.get(`${base}/${name}`)) as { rules?: Array<{ resources?: string[]; verbs?: string[] }> } | undefined)?.rules ?? []);
      const same = (a: string[] | undefined, b: string[]) => JSON.stringify(a) === JSON.stringify(b);
      const has = (rules: Array<{ resources?: string[]; verbs?: string[] }>, r: { resources: string[]; verbs: string[] }) =>
        rules.some((x) => same(x.resources, r.resources) && same(x.verbs, r.verbs));
      await withControllers(env, 'clusterrole-aggregation', [], 'clusterrole-aggregation', async () => {
        for (const body of [role(`${tag}-a`, { [label]: 'true' }, [r1]), role(`${tag}-b`, { [label]: 'true' }, [r2]), role(`${tag}-c`, {}, [r3]), role(`${tag}-all`, {}, [], { clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] })]) {
          const r = await api.send('POST', base, body);
          if (r.status !== 201) fail(`setup: creating ClusterRole ${body.metadata.name} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        }
        const filled = await within(busyScaled(40_000), async () => {
          const rules = await rulesOf(`${tag}-all`);
          return has(rules, r1) && has(rules, r2) ? rules : undefined;
        });
        expectTrue(filled, `the aggregating ClusterRole got the rules of both matching roles within ${busyScaled(40_000) / 1000} s (has ${JSON.stringify(await rulesOf(`${tag}-all`))})`, ['controller.clusterrole-aggregation']);
        expectTrue(!has(filled, r3), 'the rules of a ClusterRole its selector does not match are not aggregated', ['controller.clusterrole-aggregation']);
        // In step: a rule added to a source, a source losing its label.
        await api.send('PATCH', `${base}/${tag}-a`, { rules: [r1, r3] }, 'application/merge-patch+json');
        await api.send('PATCH', `${base}/${tag}-b`, { metadata: { labels: { [label]: null } } }, 'application/merge-patch+json');
        const followed = await within(busyScaled(40_000), async () => {
          const rules = await rulesOf(`${tag}-all`);
          return has(rules, r1) && has(rules, r3) && !has(rules, r2) ? true : undefined;
        });
        expectTrue(followed, `after a rule was added to one source and the other lost its label, the aggregate follows within ${busyScaled(40_000) / 1000} s (has ${JSON.stringify(await rulesOf(`${tag}-all`))})`, ['controller.clusterrole-aggregation']);
      });
    });
  },
);
