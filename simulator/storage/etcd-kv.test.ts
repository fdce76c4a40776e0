// etcd-kv.ts: its protobuf messages checked against etcd's own .proto files (as the etcd3 package ships them,
// read with protobufjs), and the HTTP/2 client against a real etcd: answers, etcd's errors, a server that is down.
// The store's behaviour through both clients is testing/store-contract.ts, run by etcd.test.ts.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import protobuf from 'protobufjs';
import { decodeRange, decodeTxn, encodeRange, encodeTxn, EtcdCallError, Http2Kv } from './etcd-kv.ts';
import { etcdTestSkipReason, startEtcd, type EtcdTestServer } from '../testing/etcd-test-server.ts';
import { EtcdStore } from './etcd.ts';
import http2 from 'node:http2';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { makePki, noOpenssl } from '../testing/pki.ts';

const root = protobuf.loadSync(createRequire(import.meta.url).resolve('etcd3/proto/rpc.proto'));
const type = (name: string) => root.lookupType(name);
const plain = (t: protobuf.Type, bytes: Uint8Array) => t.toObject(t.decode(bytes), { longs: Number, bytes: String, defaults: false, oneofs: false });
const b = (s: string) => Buffer.from(s);
const b64 = (s: string) => b(s).toString('base64');

describe('etcd-kv messages against etcd\'s rpc.proto', () => {
  it('encodes a Txn as etcd reads it: compares, puts, ranges, deletes', () => {
    const bytes = encodeTxn(
      [
        { key: b('/a'), target: 'create', result: 'equal', revision: 0 },
        { key: b('/a'), target: 'mod', result: 'equal', revision: 2 ** 40 + 3 },
        { key: b('/b'), target: 'create', result: 'greater', revision: 0 },
      ],
      [{ put: { key: b('/a'), value: b('{"x":1}'), prevKv: true } }, { deleteRange: { key: b('/b'), prevKv: true } }],
      [{ range: { key: b('/a') } }],
    );
    assert.deepEqual(plain(type('etcdserverpb.TxnRequest'), bytes), {
      compare: [
        { target: 1, key: b64('/a'), createRevision: 0 },
        { target: 2, key: b64('/a'), modRevision: 2 ** 40 + 3 },
        { result: 1, target: 1, key: b64('/b'), createRevision: 0 },
      ],
      success: [
        { requestPut: { key: b64('/a'), value: b64('{"x":1}'), prevKv: true } },
        { requestDeleteRange: { key: b64('/b'), prevKv: true } },
      ],
      failure: [{ requestRange: { key: b64('/a') } }],
    });
  });

  it('encodes a Range with what the store sets', () => {
    const bytes = encodeRange({ key: b('/r/'), rangeEnd: b('/r0'), limit: 500, revision: 12345678901, serializable: true, countOnly: true });
    assert.deepEqual(plain(type('etcdserverpb.RangeRequest'), bytes), {
      key: b64('/r/'), rangeEnd: b64('/r0'), limit: 500, revision: 12345678901, serializable: true, countOnly: true,
    });
    // Zero values are absent, as protobuf encodes them.
    assert.deepEqual(plain(type('etcdserverpb.RangeRequest'), encodeRange({ key: b('k'), limit: 0, revision: 0 })), { key: b64('k') });
  });

  it('decodes Range and Txn answers, revisions beyond 32 bits included, unknown fields skipped', () => {
    const big = 2 ** 45 + 7;
    const kv = { key: b('/a'), createRevision: 5, modRevision: big, version: 3, value: b('{"v":1}'), lease: 9 };
    const header = { clusterId: 1, memberId: 2, revision: big + 1, raftTerm: 4 };
    const range = type('etcdserverpb.RangeResponse').encode({ header, kvs: [kv, { ...kv, key: b('/b') }], more: true, count: 7 }).finish();
    const decoded = decodeRange(Buffer.from(range));
    assert.equal(decoded.revision, big + 1);
    assert.equal(decoded.more, true);
    assert.deepEqual(
      decoded.kvs.map((k) => [k.key.toString(), k.value.toString(), k.createRevision, k.modRevision]),
      [['/a', '{"v":1}', 5, big], ['/b', '{"v":1}', 5, big]],
    );
    const txn = type('etcdserverpb.TxnResponse').encode({
      header,
      succeeded: true,
      responses: [
        { responsePut: { header, prevKv: kv } },
        { responseDeleteRange: { header, deleted: 1, prevKvs: [kv] } },
        { responseRange: { header, kvs: [kv] } },
        { responsePut: { header } },
      ],
    }).finish();
    const t = decodeTxn(Buffer.from(txn));
    assert.equal(t.revision, big + 1);
    assert.equal(t.succeeded, true);
    assert.equal(t.responses[0].putPrev?.modRevision, big);
    assert.deepEqual(t.responses[1].deletedPrev?.map((k) => k.key.toString()), ['/a']);
    assert.deepEqual(t.responses[2].range?.map((k) => k.value.toString()), ['{"v":1}']);
    assert.equal(t.responses[3].putPrev, undefined);
    assert.equal(decodeTxn(Buffer.from(type('etcdserverpb.TxnResponse').encode({ header }).finish())).succeeded, false);
    assert.throws(() => decodeRange(Buffer.from(range).subarray(0, range.length - 3)), /truncated/);
  });
});

describe('Http2Kv against etcd', { skip: etcdTestSkipReason() }, () => {
  let etcd: EtcdTestServer;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  it('writes and reads, answers etcd\'s errors with etcd\'s message, and skips a server that is down', async () => {
    // The first server refuses connections: the calls go to the next one.
    const kv = new Http2Kv({ servers: ['http://127.0.0.1:1', etcd.url] });
    try {
      const made = await kv.txn([{ key: b('/kv/a'), target: 'create', result: 'equal', revision: 0 }], [{ put: { key: b('/kv/a'), value: b('1') } }]);
      assert.equal(made.succeeded, true);
      const again = await kv.txn(
        [{ key: b('/kv/a'), target: 'create', result: 'equal', revision: 0 }],
        [{ put: { key: b('/kv/a'), value: b('2') } }],
        [{ range: { key: b('/kv/a') } }],
      );
      assert.equal(again.succeeded, false);
      assert.equal(again.revision, made.revision, 'a failed compare writes nothing');
      assert.deepEqual(again.responses[0].range?.map((k) => [k.value.toString(), k.modRevision]), [['1', made.revision]]);
      const got = await kv.range({ key: b('/kv/'), rangeEnd: b('/kv0') });
      assert.deepEqual(got.kvs.map((k) => k.key.toString()), ['/kv/a']);
      await kv.compact(made.revision);
      await assert.rejects(kv.range({ key: b('/kv/a'), revision: made.revision - 1 }), (err: unknown) => {
        assert.ok(err instanceof EtcdCallError, `an EtcdCallError, not ${String(err)}`);
        assert.match(err.message, /required revision has been compacted/);
        return true;
      });
      // A big answer (well past HTTP/2's 64 KiB window) arrives whole.
      const value = Buffer.alloc(300_000, 'v');
      for (let i = 0; i < 8; i++) await kv.txn([], [{ put: { key: b(`/big/${i}`), value } }]);
      const all = await kv.range({ key: b('/big/'), rangeEnd: b('/big0') });
      assert.equal(all.kvs.length, 8);
      assert.ok(all.kvs.every((k) => k.value.equals(value)), 'every big value whole');
    } finally {
      kv.close();
    }
  });

  it('replaces a connection before its stream ids run out, letting its calls finish', async () => {
    const kv = new Http2Kv({ servers: [etcd.url], callsPerConnection: 3 });
    try {
      for (let i = 0; i < 10; i++) assert.ok((await kv.range({ key: b('x'), countOnly: true })).revision > 0, 'a sequential call is answered');
      assert.equal(kv.connections, 4);
      const answers = await Promise.all(Array.from({ length: 20 }, () => kv.range({ key: b('x'), countOnly: true })));
      assert.ok(answers.every((a) => a.revision > 0), 'calls in flight on a replaced connection are answered');
      assert.equal(kv.connections, 10); // the last one's 2 free calls, then 6 connections of 3
    } finally {
      kv.close();
    }
  });

  it('holds the process open while a call is in flight, and not after', async () => {
    // A script with nothing else to keep it alive: it must print the answer (the call held it) and then exit
    // without closing the client (the idle connection does not hold it).
    const script = `import { Http2Kv } from ${JSON.stringify(new URL('./etcd-kv.ts', import.meta.url).href)};
      const kv = new Http2Kv({ servers: [${JSON.stringify(etcd.url)}] });
      const res = await kv.range({ key: Buffer.from('x'), countOnly: true });
      console.log('revision', res.revision > 0);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill();
        resolve(-1);
      }, 30_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(out.trim(), 'revision true');
    assert.equal(code, 0, 'the process ended by itself');
  });

  it('fails every call when no server can be reached, and after close', async () => {
    const kv = new Http2Kv({ servers: ['http://127.0.0.1:1'], dialTimeout: 500 });
    await assert.rejects(kv.range({ key: b('x') }), (err: unknown) => err instanceof EtcdCallError && err.code === 14);
    kv.close();
    await assert.rejects(kv.range({ key: b('x') }), /closed/);
  });

  it('EtcdStore uses it unless the etcd3 options ask for what only etcd3 does', async () => {
    const stores = [
      new EtcdStore({ servers: [etcd.url], compactIntervalMs: 0 }),
      new EtcdStore({ servers: [etcd.url], compactIntervalMs: 0, client: { defaultCallOptions: () => ({ deadline: Date.now() + 5000 }) } }),
      new EtcdStore({ servers: [etcd.url], compactIntervalMs: 0, kvClient: 'etcd3' }),
    ];
    const kinds = stores.map((s) => s.kvClient);
    try {
      assert.deepEqual(kinds, ['http2', 'etcd3', 'etcd3']);
      for (const s of stores) await s.ready();
      assert.throws(() => new EtcdStore({ servers: [etcd.url], kvClient: 'grpc' as 'etcd3' }), RangeError);
    } finally {
      for (const s of stores) await s.close();
    }
  });
});

describe('Http2Kv over TLS', { skip: noOpenssl }, () => {
  it('verifies the server by the given CA, shows its client certificate, and refuses a server it cannot verify', async () => {
    const pki = makePki('etcd-kv-tls-');
    const signed = (name: string, subject: string, ext: string) => {
      const { csr, key } = pki.csr(name, subject);
      const extFile = join(pki.dir, `${name}.ext`);
      writeFileSync(extFile, ext);
      pki.openssl('x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', extFile);
      return { cert: readFileSync(join(pki.dir, `${name}.pem`)), key: readFileSync(key) };
    };
    const ca = pki.ca('etcd');
    const server = signed('server', '/CN=etcd', 'subjectAltName=IP:127.0.0.1\n');
    const client = signed('client', '/CN=simulator', 'extendedKeyUsage=clientAuth\n');
    const caPem = readFileSync(ca.cert);
    // A stand-in for etcd's KV service: Range answers revision 42 to a client that showed a certificate of the CA.
    const seenClients: string[] = [];
    const fake = http2.createSecureServer({ ...server, ca: caPem, requestCert: true, rejectUnauthorized: true });
    fake.on('stream', (stream) => {
      const peer = (stream.session?.socket as unknown as { getPeerCertificate(): { subject?: { CN?: string } } }).getPeerCertificate();
      seenClients.push(peer.subject?.CN ?? '');
      stream.resume();
      stream.on('end', () => {
        const msg = root.lookupType('etcdserverpb.RangeResponse').encode({ header: { revision: 42 } }).finish();
        const frame = Buffer.alloc(5 + msg.length);
        frame.writeUInt32BE(msg.length, 1);
        frame.set(msg, 5);
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frame);
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const good = new Http2Kv({ servers: [url], credentials: { rootCertificate: caPem, privateKey: client.key, certChain: client.cert } });
    const unknownCa = new Http2Kv({ servers: [url] });
    try {
      assert.equal((await good.range({ key: b('x') })).revision, 42);
      assert.deepEqual(seenClients, ['simulator']);
      await assert.rejects(unknownCa.range({ key: b('x') }), (err: unknown) => err instanceof EtcdCallError && err.code === 14);
      assert.deepEqual(seenClients, ['simulator'], 'the unverified server got no call');
    } finally {
      good.close();
      unknownCa.close();
      await new Promise((r) => fake.close(r));
      pki.cleanup();
    }
  });
});
