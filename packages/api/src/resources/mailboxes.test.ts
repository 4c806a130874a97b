import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MailboxSnapshot } from '@switchboard/core';
import { type Harness, startHarness } from '../testing/harness.js';

describe('mailboxes resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('PUT creates and updates a mailbox and tells the MWI listener', async () => {
    const heard: [string, MailboxSnapshot | undefined][] = [];
    h.core.mailboxes.onMailboxChanged((name, mailbox) => heard.push([name, mailbox]));
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/mailboxes/1000@default?oldMessages=1&newMessages=4' })).statusCode, 204);
    assert.deepEqual((await h.inject({ method: 'GET', url: '/ari/mailboxes/1000@default' })).json(), {
      name: '1000@default',
      old_messages: 1,
      new_messages: 4,
    });
    assert.equal((await h.inject({ method: 'GET', url: '/ari/mailboxes' })).json().length, 1);
    assert.deepEqual(heard, [['1000@default', { name: '1000@default', old_messages: 1, new_messages: 4 }]]);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/mailboxes/1000@default' })).statusCode, 204);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/mailboxes/1000@default' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/mailboxes/1000@default' })).statusCode, 404);
  });

  test('both counts are required integers of at least 0', async () => {
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/mailboxes/m?oldMessages=1' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/mailboxes/m?oldMessages=-1&newMessages=0' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/mailboxes/m?oldMessages=x&newMessages=0' })).statusCode, 400);
  });

  test('unloading the external-mailbox module takes mailboxes out of service until it is loaded again', async () => {
    await h.inject({ method: 'PUT', url: '/ari/mailboxes/2000?oldMessages=0&newMessages=2' });
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/system/modules/res_mwi_external' })).statusCode, 204);
    assert.deepEqual((await h.inject({ method: 'GET', url: '/ari/mailboxes' })).json(), []);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/mailboxes/2000' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/mailboxes/2000?oldMessages=0&newMessages=3' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/mailboxes/2000' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/modules/res_mwi_external.so' })).statusCode, 204);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/mailboxes/2000' })).json().new_messages, 2);
  });
});
