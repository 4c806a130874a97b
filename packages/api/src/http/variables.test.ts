import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from './api-error.js';
import { parseVariables } from './variables.js';

test('strings and value objects are accepted', () => {
  const vars = parseVariables({ A: 'x', B: { value: 'y', report_events: true } });
  assert.deepEqual(vars.get('A'), { value: 'x', reportEvents: false });
  assert.deepEqual(vars.get('B'), { value: 'y', reportEvents: true });
});

test('numbers and booleans are taken as text rather than crashing', () => {
  const vars = parseVariables({ N: 5, F: false, O: { value: 7 } });
  assert.equal(vars.get('N')?.value, '5');
  assert.equal(vars.get('F')?.value, 'false');
  assert.equal(vars.get('O')?.value, '7');
});

test('unusable values are a 400, not a crash', () => {
  for (const body of [{ A: null }, { A: [1] }, { A: {} }, { A: { value: 'v', report_events: 'yes' } }, ['A'], 'A']) {
    assert.throws(
      () => parseVariables(body),
      (err: unknown) => err instanceof ApiError && err.status === 400,
      JSON.stringify(body),
    );
  }
  assert.equal(parseVariables(undefined).size, 0);
});
