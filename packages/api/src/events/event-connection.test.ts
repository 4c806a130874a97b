import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { silentLogger } from '@switchboard/core';
import type { WebSocket } from 'ws';
import { type Harness, startHarness } from '../testing/harness.js';
import { EventConnection, MAX_BUFFERED_BYTES } from './event-connection.js';

/** The part of a ws socket the connection uses; writes complete only when the test says so. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  terminated = false;
  readonly sent: string[] = [];
  readonly #callbacks: ((err?: Error) => void)[] = [];

  send(text: string, callback: (err?: Error) => void): void {
    this.sent.push(text);
    this.#callbacks.push(callback);
  }
  flush(): void {
    for (const callback of this.#callbacks.splice(0)) callback();
  }
  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
    this.emit('close');
  }
  asWebSocket(): WebSocket {
    return this as unknown as WebSocket;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventConnection', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ writeTimeoutMs: 30, resumeWindowSeconds: 0 });
  });
  after(() => h.close());

  const connect = (applications: string[]) => new EventConnection({ core: h.core, applications, subscribeAll: false, log: silentLogger });
  /** A connection of one application on a socket, with a channel in the application. */
  const channelInApp = (application: string) => {
    const socket = new FakeSocket();
    connect([application]).attach(socket.asWebSocket());
    const channel = h.createChannel();
    h.enterApplication(channel, application);
    return { socket, channel };
  };

  test('events raised before the socket is attached are queued and flushed in order', () => {
    const connection = connect(['queued-app']);
    const channel = h.createChannel();
    h.enterApplication(channel, 'queued-app');
    channel.setVariable('A', '1');
    const socket = new FakeSocket();
    connection.attach(socket.asWebSocket());
    assert.deepEqual(
      socket.sent.map((text) => JSON.parse(text).type),
      ['AppStart', 'ChannelVarset'],
    );
    socket.terminate();
    assert.equal(h.core.applications.get('queued-app'), undefined);
  });

  test('an abandoned upgrade unregisters its applications', () => {
    const connection = connect(['abandoned-app']);
    assert.ok(h.core.applications.get('abandoned-app'));
    connection.abandon();
    assert.equal(h.core.applications.get('abandoned-app'), undefined);
    const late = new FakeSocket();
    connection.attach(late.asWebSocket());
    assert.equal(late.terminated, true);
  });

  test('a consumer whose writes make no progress within the timeout is disconnected', async () => {
    const { socket } = channelInApp('slow-app');
    socket.bufferedAmount = 1000;
    await sleep(80);
    assert.equal(socket.terminated, true);
    assert.equal(h.core.applications.get('slow-app'), undefined);
  });

  test('a consumer that keeps up is not disconnected, even when callbacks run late', async () => {
    const { socket } = channelInApp('fast-app');
    // Callbacks have not run, but the buffer is empty: everything reached the kernel.
    await sleep(80);
    assert.equal(socket.terminated, false);
    socket.flush();
    socket.terminate();
  });

  test('the watchdog counts again for a stall after writes completed and after it ran out idle', async () => {
    const { socket, channel } = channelInApp('later-slow-app');
    socket.flush();
    // Nothing pending for longer than the timeout: the idle watchdog runs out and does nothing.
    await sleep(80);
    assert.equal(socket.terminated, false);
    // Writes that keep completing within the timeout never trip it.
    for (let i = 0; i < 4; i++) {
      channel.setVariable('STEP', String(i));
      await sleep(15);
      socket.flush();
    }
    assert.equal(socket.terminated, false);
    // Then a write that never completes, with data stuck in the buffer.
    socket.bufferedAmount = 1000;
    channel.setVariable('STEP', 'stuck');
    await sleep(80);
    assert.equal(socket.terminated, true);
    assert.equal(h.core.applications.get('later-slow-app'), undefined);
  });

  test('a send buffer beyond the limit disconnects at once', () => {
    const connection = connect(['full-app']);
    const socket = new FakeSocket();
    connection.attach(socket.asWebSocket());
    socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    h.enterApplication(h.createChannel(), 'full-app');
    assert.equal(socket.terminated, true);
    assert.equal(socket.sent.length, 0);
  });

  test('an event that does not match its model is not delivered', () => {
    const connection = connect(['strict-app']);
    const socket = new FakeSocket();
    connection.attach(socket.asWebSocket());
    const sink = h.core.applications.get('strict-app')?.sink;
    const snapshot = h.createChannel().snapshot();
    sink?.({ type: 'ChannelStateChange', channel: { ...snapshot, state: 'Sideways' as never }, timestamp: new Date() });
    sink?.({ type: 'ChannelStateChange', channel: snapshot, timestamp: new Date() });
    assert.equal(socket.sent.length, 1);
    assert.equal(JSON.parse(socket.sent[0] as string).channel.state, snapshot.state);
    socket.terminate();
  });
});
