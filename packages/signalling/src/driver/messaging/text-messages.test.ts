import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoreError } from '@switchboard/core';
import { headersFromVariables } from './text-messages.js';

describe('MESSAGE variables as headers', () => {
  it('keeps valid extension headers in order', () => {
    assert.deepEqual(headersFromVariables({ 'X-Color': 'blue', Subject: 'hi there' }), [
      ['X-Color', 'blue'],
      ['Subject', 'hi there'],
    ]);
  });

  it('refuses header injection, bad names and the headers the stack writes', () => {
    const refused = (variables: Record<string, string>) =>
      assert.throws(
        () => headersFromVariables(variables),
        (err: unknown) => err instanceof CoreError && err.code === 'invalid_argument',
      );
    refused({ 'X-A': 'x\r\nVia: SIP/2.0/UDP evil' });
    refused({ 'X-A': 'nul\u0000' });
    refused({ 'Bad Header': 'x' });
    refused({ 'X:A': 'x' });
    refused({ Via: 'SIP/2.0/UDP evil' });
    refused({ 'call-id': 'x' });
    refused({ i: 'x' });
    refused({ 'Content-Length': '0' });
    refused(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`X-${i}`, 'v'])));
  });
});
