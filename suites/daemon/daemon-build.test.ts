// The compiled daemon (daemon-build.ts) is the same program as the tsx one: same answers to --version, --help and a
// bad option, the protobuf codec included (a literal import the bundler follows), the spec tables found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildDaemon } from './daemon-build.ts';
import { codeCacheFileOf } from '../../simulator/compiled.ts';
import { daemonCommand, DAEMON_BUILD_ENV, DAEMON_CMD_ENV, DEFAULT_DAEMON_CMD } from '../cli/daemon-command.ts';

const run = (file: string, args: string[]) => spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', timeout: 60_000 });

test('the compiled daemon answers as the source does, and is found again by its content hash', async () => {
  const file = await buildDaemon();
  assert.ok(file, 'built');
  assert.match(file, /\/commonjs\/daemon\.mjs$/, 'the launcher of the CommonJS form (V8 code cache) is what plain node runs');
  assert.equal(await buildDaemon(), file, 'the same sources give the same files');
  const version = run(file, ['--version']);
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /v1\.9/);
  const help = run(file, ['--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /--controllers/);
  assert.match(help.stdout, /--node-monitor-grace-period/);
  const bad = run(file, ['--port=abc']);
  assert.equal(bad.status, 2, `${bad.stdout}${bad.stderr}`);
  assert.match(bad.stderr, /--port/);
  assert.ok(existsSync(codeCacheFileOf(join(dirname(file), 'daemon.js'))), 'a start left the code cache of its first chunk for the next');
  // The protobuf codec is a chunk of its own, imported by the daemon's client at run time.
  const chunks = readdirSync(dirname(file))
    .filter((n) => n.endsWith('.js'))
    .map((n) => readFileSync(join(dirname(file), n), 'utf8'));
  assert.ok(chunks.some((text) => /encodeObject/.test(text) && /hasProtobuf/.test(text)), 'the protobuf codec is in the build');
});

test('daemonCommand: --daemon-cmd first, then the compiled daemon, then tsx', () => {
  assert.deepEqual(daemonCommand({ [DAEMON_CMD_ENV]: 'my-daemon --x' }), { command: 'my-daemon --x', isDefault: false });
  assert.deepEqual(daemonCommand({}), { command: DEFAULT_DAEMON_CMD, isDefault: true });
  assert.deepEqual(daemonCommand({ [DAEMON_BUILD_ENV]: '/no/such/file.js' }), { command: DEFAULT_DAEMON_CMD, isDefault: true });
  const self = new URL(import.meta.url).pathname;
  assert.deepEqual(daemonCommand({ [DAEMON_BUILD_ENV]: self }), { command: `node ${self}`, isDefault: true });
});
