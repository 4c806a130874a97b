/**
 * The behaviour every store backend must have, as one test suite: sqlite-store.test.ts and
 * postgres/postgres-store.test.ts run it against their backend.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CdrRecord, Store } from './types.js';

export interface StoreUnderTest {
  store: Store;
  /** Closes nothing; opens the same database again (the caller closes `store` first). */
  reopen(): Promise<Store>;
}

export interface StoreBackendHarness {
  /** A store on an empty database of its own. */
  fresh(): Promise<StoreUnderTest>;
}

export const SAMPLE_CDR: CdrRecord = {
  start: new Date('2025-03-17T08:32:35.709Z'),
  answer: new Date('2025-03-17T08:32:37.000Z'),
  end: new Date('2025-03-17T08:33:37.000Z'),
  duration: 61,
  billsec: 60,
  src: '1001',
  dst: '200',
  dcontext: 'from-internal',
  channel: 'SIP/alice-00000001',
  dstchannel: '',
  lastapp: 'Hangup',
  lastdata: '',
  disposition: 'ANSWERED',
  amaflags: 'DOCUMENTATION',
  accountcode: '',
  uniqueid: '1742200355.1',
  linkedid: '1742200355.1',
  userfield: '',
};

export function storeContract(backend: string, harness: () => StoreBackendHarness): void {
  const fresh = async () => (await harness().fresh()).store;

  describe(`store contract (${backend})`, () => {
    it('keeps data across a reopen', async () => {
      const { store: first, reopen } = await harness().fresh();
      await first.globals.set('OPERATOR', '1001');
      await first.deviceStates.set('App:alice', 'INUSE', 1000);
      await first.mailboxes.set({ name: '1001@default', oldMessages: 2, newMessages: 1 });
      first.astdb.put('cidname', '5551234', 'Alice');
      await first.close();
      const second = await reopen();
      assert.equal(await second.globals.get('OPERATOR'), '1001');
      assert.deepEqual(await second.deviceStates.get('App:alice'), { name: 'App:alice', state: 'INUSE', updatedAt: 1000 });
      assert.deepEqual(await second.mailboxes.all(), [{ name: '1001@default', oldMessages: 2, newMessages: 1 }]);
      assert.equal(second.astdb.get('cidname', '5551234'), 'Alice');
      await second.close();
    });

    it('closes idempotently, and refuses work once closed', async () => {
      const store = await fresh();
      await store.close();
      await store.close();
      await assert.rejects(store.globals.get('x'));
    });

    it('globals: set, overwrite, list and delete', async () => {
      const store = await fresh();
      assert.equal(await store.globals.get('A'), undefined);
      await store.globals.set('B', '2');
      await store.globals.set('A', '1');
      await store.globals.set('A', 'one');
      assert.deepEqual(await store.globals.all(), [
        { name: 'A', value: 'one' },
        { name: 'B', value: '2' },
      ]);
      assert.equal(await store.globals.delete('A'), true);
      assert.equal(await store.globals.delete('A'), false);
      assert.deepEqual(await store.globals.all(), [{ name: 'B', value: '2' }]);
      await store.close();
    });

    it('device states and mailboxes: upsert and delete', async () => {
      const store = await fresh();
      const before = Date.now();
      await store.deviceStates.set('App:a', 'RINGING');
      const state = await store.deviceStates.get('App:a');
      assert.equal(state?.state, 'RINGING');
      assert.ok((state?.updatedAt ?? 0) >= before);
      await store.deviceStates.set('App:a', 'NOT_INUSE', 5);
      assert.deepEqual(await store.deviceStates.all(), [{ name: 'App:a', state: 'NOT_INUSE', updatedAt: 5 }]);
      assert.equal(await store.deviceStates.delete('App:a'), true);
      assert.equal(await store.deviceStates.get('App:a'), undefined);

      await store.mailboxes.set({ name: 'm', oldMessages: 0, newMessages: 3 });
      await store.mailboxes.set({ name: 'm', oldMessages: 3, newMessages: 0 });
      assert.deepEqual(await store.mailboxes.get('m'), { name: 'm', oldMessages: 3, newMessages: 0 });
      assert.equal(await store.mailboxes.delete('m'), true);
      assert.deepEqual(await store.mailboxes.all(), []);
      await store.close();
    });

    it('contacts: put, list by aor, replace, expire', async () => {
      const store = await fresh();
      const full = {
        aor: 'alice',
        uri: 'sip:alice@192.0.2.5:5060',
        expiresAt: 2000,
        path: '<sip:edge.example;lr>',
        userAgent: 'Phone/1.0',
        viaAddress: '192.0.2.5',
        viaPort: 5060,
        callId: 'abc@192.0.2.5',
        cseq: 7,
        endpoint: 'alice',
      };
      await store.contacts.put(full);
      await store.contacts.put({ aor: 'alice', uri: 'sip:alice@198.51.100.1', expiresAt: 1000 });
      await store.contacts.put({ aor: 'bob', uri: 'sip:bob@198.51.100.2', expiresAt: 3000 });
      assert.deepEqual(await store.contacts.get('alice', full.uri), full);
      assert.deepEqual(
        (await store.contacts.listByAor('alice')).map((c) => c.uri),
        ['sip:alice@192.0.2.5:5060', 'sip:alice@198.51.100.1'],
      );
      assert.equal(await store.contacts.deleteExpired(1000), 1);
      await store.contacts.replaceAor('alice', [{ aor: 'alice', uri: 'sip:alice@203.0.113.9', expiresAt: 9000 }]);
      assert.deepEqual(
        (await store.contacts.all()).map((c) => `${c.aor} ${c.uri}`),
        ['alice sip:alice@203.0.113.9', 'bob sip:bob@198.51.100.2'],
      );
      await assert.rejects(store.contacts.replaceAor('alice', [{ aor: 'bob', uri: 'sip:x@y', expiresAt: 1 }]));
      assert.equal(await store.contacts.delete('bob', 'sip:bob@198.51.100.2'), true);
      await store.close();
    });

    it("contacts: every write shows in the next list of its AOR, and a list read is the caller's own copy", async () => {
      const store = await fresh();
      const uris = async (aor: string) => (await store.contacts.listByAor(aor)).map((c) => `${c.uri} ${c.expiresAt}`);
      assert.deepEqual(await uris('carol'), []);
      await store.contacts.put({ aor: 'carol', uri: 'sip:carol@192.0.2.7', expiresAt: 1000 });
      assert.deepEqual(await uris('carol'), ['sip:carol@192.0.2.7 1000']);
      await store.contacts.put({ aor: 'carol', uri: 'sip:carol@192.0.2.7', expiresAt: 5000 });
      assert.deepEqual(await uris('carol'), ['sip:carol@192.0.2.7 5000']);
      const [read] = await store.contacts.listByAor('carol');
      read.expiresAt = 1;
      assert.deepEqual(await uris('carol'), ['sip:carol@192.0.2.7 5000']);
      await store.contacts.replaceAor('carol', [{ aor: 'carol', uri: 'sip:carol@198.51.100.7', expiresAt: 500 }]);
      assert.deepEqual(await uris('carol'), ['sip:carol@198.51.100.7 500']);
      assert.equal(await store.contacts.deleteExpired(500), 1);
      assert.deepEqual(await uris('carol'), []);
      await store.contacts.put({ aor: 'carol', uri: 'sip:carol@192.0.2.8', expiresAt: 9000 });
      assert.deepEqual(await uris('carol'), ['sip:carol@192.0.2.8 9000']);
      assert.equal(await store.contacts.delete('carol', 'sip:carol@192.0.2.8'), true);
      assert.deepEqual(await uris('carol'), []);
      await store.close();
    });

    it('cdr: insert and read back', async () => {
      const store = await fresh();
      const id1 = await store.cdr.insert(SAMPLE_CDR);
      const { answer: _unanswered, ...noAnswer } = SAMPLE_CDR;
      const id2 = await store.cdr.insert({ ...noAnswer, disposition: 'NO ANSWER', billsec: 0 });
      assert.ok(id2 > id1);
      const [latest, earlier] = await store.cdr.recent(10);
      assert.deepEqual(earlier, { ...SAMPLE_CDR, clid: '', peeraccount: '', sequence: 0, id: id1 });
      assert.equal(latest.id, id2);
      const batch = await store.cdr.insertMany?.([
        { ...SAMPLE_CDR, clid: '"A" <1>', peeraccount: 'p', sequence: 7 },
        { ...SAMPLE_CDR, sequence: 8 },
      ]);
      assert.equal(batch, 2);
      const [newest, before] = await store.cdr.recent(2);
      assert.deepEqual([before.clid, before.peeraccount, before.sequence, newest.sequence], ['"A" <1>', 'p', 7, 8]);
      assert.equal(latest.answer, undefined);
      assert.equal(latest.disposition, 'NO ANSWER');
      await store.close();
    });

    it('config objects: put, replace, list and delete', async () => {
      const store = await fresh();
      const alice = {
        configClass: 'res_pjsip',
        objectType: 'endpoint',
        id: 'alice',
        fields: [
          { attribute: 'allow', value: 'ulaw' },
          { attribute: 'allow', value: 'alaw' },
        ],
      };
      await store.configObjects.put(alice);
      await store.configObjects.put({ configClass: 'res_pjsip', objectType: 'aor', id: 'alice', fields: [] });
      await store.configObjects.put({ configClass: 'other', objectType: 'x', id: '1', fields: [{ attribute: 'a', value: 'b' }] });
      assert.deepEqual(await store.configObjects.get('res_pjsip', 'endpoint', 'alice'), alice);
      await store.configObjects.put({ ...alice, fields: [{ attribute: 'context', value: 'c' }] });
      assert.deepEqual((await store.configObjects.get('res_pjsip', 'endpoint', 'alice'))?.fields, [{ attribute: 'context', value: 'c' }]);
      assert.equal((await store.configObjects.list()).length, 3);
      assert.deepEqual(
        (await store.configObjects.list('res_pjsip')).map((o) => o.objectType),
        ['aor', 'endpoint'],
      );
      assert.deepEqual(
        (await store.configObjects.list('res_pjsip', 'aor')).map((o) => o.id),
        ['alice'],
      );
      assert.equal(await store.configObjects.delete('res_pjsip', 'aor', 'alice'), true);
      assert.equal(await store.configObjects.delete('res_pjsip', 'aor', 'alice'), false);
      assert.equal(await store.configObjects.get('res_pjsip', 'aor', 'alice'), undefined);
      await store.close();
    });

    it('astdb: puts, gets, overwrites and deletes (family, key) entries that survive a reopen', async () => {
      const { store, reopen } = await harness().fresh();
      store.astdb.put('cidname', '5551234', 'Alice');
      store.astdb.put('cidname', '5551234', 'Alice Smith');
      store.astdb.put('CIDNAME', '5551234', 'other family');
      assert.equal(store.astdb.get('cidname', '5551234'), 'Alice Smith');
      assert.equal(store.astdb.get('cidname', 'missing'), undefined);
      await store.close();
      const reopened = await reopen();
      assert.equal(reopened.astdb.get('CIDNAME', '5551234'), 'other family');
      assert.equal(reopened.astdb.delete('cidname', '5551234'), true);
      assert.equal(reopened.astdb.delete('cidname', '5551234'), false);
      await reopened.close();
    });

    it('astdb: deletes a tree by family or by key prefix, with LIKE wildcards taken literally', async () => {
      const { store, reopen } = await harness().fresh();
      for (const key of ['a/1', 'a/2', 'a_b/1', 'ab', 'b/1']) store.astdb.put('fam', key, key);
      store.astdb.put('other', 'k', 'v');
      assert.equal(store.astdb.deleteTree('fam', 'a'), 2);
      assert.deepEqual(
        store.astdb.list('fam').map((e) => e.key),
        ['a_b/1', 'ab', 'b/1'],
      );
      await store.close();
      const reopened = await reopen();
      assert.deepEqual(
        reopened.astdb.list('fam').map((e) => e.key),
        ['a_b/1', 'ab', 'b/1'],
      );
      assert.equal(reopened.astdb.deleteTree('fam'), 3);
      assert.deepEqual(reopened.astdb.list(), [{ family: 'other', key: 'k', value: 'v' }]);
      await reopened.close();
    });

    it('voicemail metadata: add, move, remove and passwords survive a reopen', async () => {
      const { store, reopen } = await harness().fresh();
      const vm = store.voicemail;
      assert.ok(vm, 'the backend keeps voicemail metadata');
      const message = {
        id: 'm1',
        context: 'default',
        mailbox: '1001',
        folder: 'INBOX' as const,
        recording: 'msg0000',
        format: 'wav',
        callerId: '"Bob" <1002>',
        origTime: 1700000000,
        durationSeconds: 12,
      };
      vm.add(message);
      vm.add({ ...message, id: 'm2', origTime: 1700000100, recording: 'msg0001' });
      vm.move('m1', 'Old', 'msg0000');
      vm.remove('m2');
      vm.setPassword('default', '1001', '4321');
      assert.deepEqual(vm.list('default', '1001', 'Old'), [{ ...message, folder: 'Old' }]);
      await store.close();
      const reopened = await reopen();
      assert.deepEqual(reopened.voicemail?.list('default', '1001'), [{ ...message, folder: 'Old' }]);
      assert.equal(reopened.voicemail?.password('default', '1001'), '4321');
      await reopened.close();
    });

    it('queue members and the queue log survive a reopen', async () => {
      const { store, reopen } = await harness().fresh();
      const queues = store.queues;
      assert.ok(queues, 'the backend keeps queue members');
      const member = {
        queue: 'support',
        interface: 'PJSIP/alice',
        name: 'Alice',
        stateInterface: 'PJSIP/alice',
        penalty: 2,
        paused: true,
        pausedReason: 'lunch',
      };
      queues.saveMember(member);
      queues.saveMember({ ...member, interface: 'PJSIP/bob', name: 'Bob', paused: false, pausedReason: '' });
      queues.removeMember('support', 'PJSIP/bob');
      queues.appendLog({ time: 1700000000, callId: 'c1', queue: 'support', agent: 'NONE', event: 'ENTERQUEUE', data: ['', '1002', '1'] });
      await store.close();
      const reopened = await reopen();
      assert.deepEqual(reopened.queues?.members(), [member]);
      assert.deepEqual(reopened.queues?.log('support'), [
        { time: 1700000000, callId: 'c1', queue: 'support', agent: 'NONE', event: 'ENTERQUEUE', data: ['', '1002', '1'] },
      ]);
      await reopened.close();
    });
  });
}
