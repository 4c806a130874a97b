import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { describe, test } from 'node:test';
import type { WorkerPost, WorkerToMain } from '../protocol.js';
import { WorkerOutbox } from './worker-outbox.js';

/** An outbox posting on a real MessagePort, so values that do not clone fail as they would in a worker. */
function realOutbox() {
  const { port1, port2 } = new MessageChannel();
  const received: WorkerPost[] = [];
  port2.on('message', (post: WorkerPost) => received.push(post));
  const outbox = new WorkerOutbox((post) => port1.postMessage(post));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const close = () => {
    port1.close();
    port2.close();
  };
  return { outbox, received, settle, close };
}

const reply = (id: number): WorkerToMain => ({ kind: 'reply', id, ok: true, result: { legId: `leg-${id}` } as never });

describe('WorkerOutbox', () => {
  test('the messages of one callback leave as one batch, in order, once it has run', async () => {
    const { outbox, received, settle, close } = realOutbox();
    outbox.post(reply(1));
    outbox.post({ kind: 'notification', notification: { type: 'legFailed', legId: 'leg-1', error: 'x' } });
    outbox.post(reply(2));
    assert.equal(received.length, 0, 'nothing is sent before the callback ends');
    await settle();
    assert.equal(received.length, 1);
    const post = received[0] as WorkerPost;
    assert.equal(post.kind, 'batch');
    assert.deepEqual(post.kind === 'batch' ? post.messages.map((m) => m.kind) : [], ['reply', 'notification', 'reply']);
    close();
  });

  test('a lone message is sent as itself, and a later callback makes a message of its own', async () => {
    const { outbox, received, settle, close } = realOutbox();
    outbox.post(reply(1));
    await settle();
    outbox.post({ kind: 'closed' });
    await settle();
    assert.deepEqual(received, [reply(1), { kind: 'closed' }]);
    close();
  });

  test('a reply that cannot be cloned becomes a failed reply, and the rest of its batch still leaves', async () => {
    const { outbox, received, settle, close } = realOutbox();
    outbox.post(reply(1));
    outbox.post({ kind: 'reply', id: 2, ok: true, result: { legId: 'x', callback: () => {} } as never });
    outbox.post({ kind: 'log', level: 'info', fields: { bad: () => {} }, msg: 'hello' });
    outbox.post(reply(3));
    await settle();
    assert.equal(received.length, 4);
    assert.deepEqual(received[0], reply(1));
    const failed = received[1] as Extract<WorkerToMain, { kind: 'reply' }>;
    assert.equal(failed.kind, 'reply');
    assert.equal(failed.id, 2);
    assert.equal(failed.ok, false);
    assert.match(failed.ok ? '' : failed.error.message, /the reply could not be sent/);
    const log = received[2] as Extract<WorkerToMain, { kind: 'log' }>;
    assert.equal(log.kind, 'log');
    assert.equal(log.level, 'error');
    assert.equal(log.msg, 'a media worker message could not be sent');
    assert.deepEqual(received[3], reply(3));
    close();
  });
});
