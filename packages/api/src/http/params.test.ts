import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParameterDecl } from '../swagger/types.js';
import { ApiError } from './api-error.js';
import { MAX_MULTIPLE_VALUES, parseBoolean, parseParameters, type RequestSources } from './params.js';

const decls: readonly ParameterDecl[] = [
  { name: 'id', description: '', paramType: 'path', dataType: 'string', required: true },
  { name: 'media', description: '', paramType: 'query', dataType: 'string', required: true, allowMultiple: true },
  { name: 'flag', description: '', paramType: 'query', dataType: 'boolean' },
  {
    name: 'skipms',
    description: '',
    paramType: 'query',
    dataType: 'int',
    defaultValue: 3000,
    allowableValues: { valueType: 'RANGE', min: 0 },
  },
  {
    name: 'op',
    description: '',
    paramType: 'query',
    dataType: 'string',
    allowableValues: { valueType: 'LIST', values: ['pause', 'unpause'] },
  },
  { name: 'variables', description: '', paramType: 'body', dataType: 'containers' },
];

const sources = (query: Record<string, string>, json?: Record<string, unknown>): RequestSources => ({ path: { id: 'c1' }, query, json });

function rejects(fn: () => unknown, status: number, message: RegExp) {
  assert.throws(fn, (err: unknown) => err instanceof ApiError && err.status === status && message.test(err.message));
}

test('booleans accept yes|true|y|t|1|on in any case, everything else is false', () => {
  for (const word of ['yes', 'TRUE', 'y', 'T', '1', 'On']) assert.equal(parseBoolean(word), true, word);
  for (const word of ['no', 'false', '0', 'off', '', 'maybe']) assert.equal(parseBoolean(word), false, word);
  assert.equal(parseParameters(decls, sources({ media: 'a', flag: 'yes' })).flag, true);
  assert.equal(parseParameters(decls, sources({ media: 'a', flag: 'nope' })).flag, false);
});

test('allowMultiple values are split with quote-aware splitting', () => {
  const values = parseParameters(decls, sources({ media: 'sound:a,"tone:1,2",sound:b' }));
  assert.deepEqual(values.media, ['sound:a', 'tone:1,2', 'sound:b']);
});

test('defaults apply when a parameter is absent; path parameters are read', () => {
  const values = parseParameters(decls, sources({ media: 'a' }));
  assert.equal(values.skipms, 3000);
  assert.equal(values.id, 'c1');
  assert.equal(values.flag, undefined);
});

test('a missing required parameter is MissingParams', () => {
  rejects(() => parseParameters(decls, sources({})), 400, /^MissingParams: media$/);
  rejects(() => parseParameters(decls, sources({ media: '' })), 400, /^MissingParams: media$/);
});

test('ranges, lists and integers are enforced', () => {
  rejects(() => parseParameters(decls, sources({ media: 'a', skipms: '-1' })), 400, /skipms/);
  rejects(() => parseParameters(decls, sources({ media: 'a', skipms: 'ten' })), 400, /integer/);
  rejects(() => parseParameters(decls, sources({ media: 'a', op: 'rewind' })), 400, /one of pause, unpause/);
  assert.equal(parseParameters(decls, sources({ media: 'a', op: 'pause', skipms: '0' })).op, 'pause');
});

test('too many values are refused', () => {
  const many = Array.from({ length: MAX_MULTIPLE_VALUES + 1 }, (_, i) => `sound:${i}`).join(',');
  rejects(() => parseParameters(decls, sources({ media: many })), 400, /Too many values for media/);
  const enough = Array.from({ length: MAX_MULTIPLE_VALUES }, (_, i) => `sound:${i}`).join(',');
  assert.equal((parseParameters(decls, sources({ media: enough })).media as string[]).length, MAX_MULTIPLE_VALUES);
});

test('JSON body keys named like query parameters override the query string', () => {
  const values = parseParameters(
    decls,
    sources({ media: 'sound:query', skipms: '5' }, { media: ['sound:a', 'sound:b'], skipms: 100, flag: true }),
  );
  assert.deepEqual(values.media, ['sound:a', 'sound:b']);
  assert.equal(values.skipms, 100);
  assert.equal(values.flag, true);
  assert.deepEqual(parseParameters(decls, sources({}, { media: 'sound:x,sound:y' })).media, ['sound:x', 'sound:y']);
  rejects(() => parseParameters(decls, sources({}, { media: 'a', skipms: 'x' })), 400, /integer/);
  rejects(() => parseParameters(decls, sources({}, { media: 'a', skipms: 1.5 })), 400, /integer/);
});

test('containers body parameters come from the body key of their name', () => {
  const values = parseParameters(decls, sources({ media: 'a' }, { variables: { A: '1' } }));
  assert.deepEqual(values.variables, { A: '1' });
});
