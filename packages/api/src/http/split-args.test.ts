import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitArgs } from './split-args.js';

test('splits on commas', () => {
  assert.deepEqual(splitArgs('sound:a,sound:b,tone:ring'), ['sound:a', 'sound:b', 'tone:ring']);
});

test('keeps a quoted comma and removes the quotes', () => {
  assert.deepEqual(splitArgs('"tone:350+440,0/2000",sound:b'), ['tone:350+440,0/2000', 'sound:b']);
});

test('keeps commas inside parentheses and brackets', () => {
  assert.deepEqual(splitArgs('a(1,2),b[3,4],c'), ['a(1,2)', 'b[3,4]', 'c']);
});

test('a backslash makes the next character literal', () => {
  assert.deepEqual(splitArgs('a\\,b,c\\"d'), ['a,b', 'c"d']);
});

test('empty items are kept', () => {
  assert.deepEqual(splitArgs('a,,b'), ['a', '', 'b']);
  assert.deepEqual(splitArgs('single'), ['single']);
});
