import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoBool, parseGoInt, parseGoFloat, formatGoFloat, parseGoIP, parseCsvRecord } from './go-strconv.ts';

test('ParseBool spellings', () => {
  for (const s of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(s), true);
  for (const s of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(s), false);
  for (const s of ['', 'yes', 'tRUE', ' true']) assert.throws(() => parseGoBool(s), /invalid syntax/);
});

test('ParseInt base 0', () => {
  assert.equal(parseGoInt('42', 32), 42);
  assert.equal(parseGoInt('-0x1F', 32), -31);
  assert.equal(parseGoInt('0b101', 32), 5);
  assert.equal(parseGoInt('0o17', 32), 15);
  assert.equal(parseGoInt('017', 32), 15);
  assert.equal(parseGoInt('0x_1_0', 32), 16);
  assert.equal(parseGoInt('-2147483648', 32), -2147483648);
  assert.throws(() => parseGoInt('2147483648', 32), /out of range/);
  for (const s of ['', '1_0', '08', '1e3', ' 1', '+', '0x']) assert.throws(() => parseGoInt(s, 32), /invalid syntax/, s);
});

test('ParseFloat', () => {
  assert.equal(parseGoFloat('0.1', 64), 0.1);
  assert.equal(parseGoFloat('.5', 64), 0.5);
  assert.equal(parseGoFloat('5.', 64), 5);
  assert.equal(parseGoFloat('-1e-3', 64), -0.001);
  assert.equal(parseGoFloat('0x1p-2', 64), 0.25);
  assert.equal(parseGoFloat('Inf', 64), Infinity);
  assert.ok(Number.isNaN(parseGoFloat('nan', 64)), "Number.isNaN(parseGoFloat('nan', 64))");
  assert.equal(parseGoFloat('0.1', 32), Math.fround(0.1));
  assert.throws(() => parseGoFloat('1e309', 64), /out of range/);
  assert.throws(() => parseGoFloat('1e39', 32), /out of range/);
  for (const s of ['', 'abc', '1.2.3', '1_0', '0x1.8']) assert.throws(() => parseGoFloat(s, 64), /invalid syntax/, s);
});

test('FormatFloat shortest %g', () => {
  assert.equal(formatGoFloat(Math.fround(0.1), 32), '0.1');
  assert.equal(formatGoFloat(Math.fround(0.55), 32), '0.55');
  assert.equal(formatGoFloat(20, 32), '20');
  assert.equal(formatGoFloat(0.1, 64), '0.1');
  assert.equal(formatGoFloat(1e6, 64), '1e+06');
  assert.equal(formatGoFloat(123456, 64), '123456');
  assert.equal(formatGoFloat(0.0001, 64), '0.0001');
  assert.equal(formatGoFloat(0.00001, 64), '1e-05');
  assert.equal(formatGoFloat(-2.5, 64), '-2.5');
  assert.equal(formatGoFloat(1.5e300, 64), '1.5e+300');
});

test('ParseIP', () => {
  assert.equal(parseGoIP('0.0.0.0'), '0.0.0.0');
  assert.equal(parseGoIP('FE80::0:1'), 'fe80::1');
  assert.equal(parseGoIP('::ffff:1.2.3.4'), '1.2.3.4');
  for (const s of ['1.2.3', '01.2.3.4', 'fe80::1%eth0', '', 'host']) assert.throws(() => parseGoIP(s), /failed to parse IP/, s);
});

test('CSV record', () => {
  assert.deepEqual(parseCsvRecord(''), []);
  assert.deepEqual(parseCsvRecord('a'), ['a']);
  assert.deepEqual(parseCsvRecord('a,,b,'), ['a', '', 'b', '']);
  assert.deepEqual(parseCsvRecord('"x,y","q""q"'), ['x,y', 'q"q']);
  assert.throws(() => parseCsvRecord('a"b'), /bare "/);
  assert.throws(() => parseCsvRecord('"ab'), /extraneous or missing "/);
  assert.throws(() => parseCsvRecord('"a"b'), /extraneous or missing "/);
});
