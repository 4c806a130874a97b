import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../testing/harness.js';
import { openInbox, type ReceivedEvent, refusedStatus, waitFor } from '../testing/ws-inbox.js';

const sequences = (events: readonly ReceivedEvent[]) => events.map((e) => e.sequence);

async function serverFor(options: Parameters<typeof startHarness>[0]): Promise<{ h: Harness; base: string }> {
  const h = await startHarness(options);
  const { port } = await h.server.listen('127.0.0.1', 0);
  return { h, base: `ws://127.0.0.1:${port}/ari/events?api_key=alice:secret` };
}

/** A channel entered `app` while a connection watched, then the connection went away. */
async function enteredThenGone(h: Harness, base: string, app: string) {
  const first = await openInbox(`${base}&app=${app}`);
  const channel = h.createChannel();
  h.enterApplication(channel, app);
  await first.count(1);
  await first.close();
  return channel;
}

/** What a resume from sequence 1 is given after `missed` variable changes: `expected` events. */
async function resumeAfterMissing(h: Harness, base: string, app: string, missed: number, expected: number): Promise<ReceivedEvent[]> {
  const channel = await enteredThenGone(h, base, app);
  for (let i = 0; i < missed; i += 1) channel.setVariable('V', String(i));
  const second = await openInbox(`${base}&app=${app}&resume=1`);
  await second.count(expected);
  const seen = [...second.seen];
  await second.close();
  return seen;
}

describe('event sequence numbers and resume', () => {
  let h: Harness;
  let base: string;
  before(async () => {
    ({ h, base } = await serverFor({}));
  });
  after(() => h.close());

  test('every event carries the next sequence number of its application', async () => {
    const inbox = await openInbox(`${base}&app=numbered`);
    const channel = h.createChannel();
    h.enterApplication(channel, 'numbered');
    for (let i = 0; i < 5; i += 1) channel.setVariable('N', String(i));
    await inbox.count(6);
    assert.deepEqual(sequences(inbox.seen), [1, 2, 3, 4, 5, 6]);
    assert.equal(inbox.seen[0]?.type, 'AppStart');
    await inbox.close();
  });

  test('a dropped connection resumes with what it missed, in order, then the live stream', async () => {
    const first = await openInbox(`${base}&app=resumer`);
    const channel = h.createChannel();
    h.enterApplication(channel, 'resumer');
    channel.setVariable('BEFORE', '1');
    await first.count(2);
    const lastSeen = first.seen.at(-1)?.sequence as number;
    await first.close();
    // The application stays registered while parked: the channel's events are kept, not lost.
    assert.ok(h.core.applications.get('resumer'), 'parked, not unregistered');
    for (let i = 0; i < 20; i += 1) channel.setVariable('MISSED', String(i));

    const second = await openInbox(`${base}&app=resumer&resume=${lastSeen}`);
    await second.count(20);
    channel.setVariable('LIVE', 'yes');
    await second.next((e) => e.type === 'ChannelVarset' && e.variable === 'LIVE');
    const expected = Array.from({ length: 21 }, (_, i) => lastSeen + 1 + i);
    assert.deepEqual(sequences(second.seen), expected, 'nothing lost, nothing repeated');
    assert.deepEqual(
      second.seen.slice(0, 20).map((e) => e.value),
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
    assert.equal(
      second.seen.some((e) => e.type === 'EventsLost'),
      false,
    );
    await second.close();
  });

  test('resume=app:seq pairs name the application; a point beyond the stream is refused', async () => {
    const first = await openInbox(`${base}&app=pair-a,pair-b`);
    const channel = h.createChannel();
    h.enterApplication(channel, 'pair-a');
    await first.count(1);
    await first.close();
    channel.setVariable('X', '1');
    const second = await openInbox(`${base}&app=pair-a,pair-b&resume=pair-a:1`);
    const varset = await second.next((e) => e.type === 'ChannelVarset');
    assert.equal(varset.sequence, 2);
    await second.close();
    assert.equal(await refusedStatus(`${base}&app=pair-a&resume=999`), 400);
    assert.equal(await refusedStatus(`${base}&app=pair-a&resume=other:1`), 400);
    assert.equal(await refusedStatus(`${base}&app=pair-a&resume=abc`), 400);
  });

  test('a long replay is paced by the socket instead of dropping the slow reader', async () => {
    const first = await openInbox(`${base}&app=bulk`);
    const channel = h.createChannel();
    h.enterApplication(channel, 'bulk');
    await first.count(1);
    await first.close();
    const big = 'x'.repeat(2000);
    for (let i = 0; i < 3000; i += 1) channel.setVariable('BIG', `${i}:${big}`);
    const second = await openInbox(`${base}&app=bulk&resume=1`);
    await second.count(3000, 20_000);
    assert.deepEqual(
      sequences(second.seen),
      Array.from({ length: 3000 }, (_, i) => i + 2),
    );
    await second.close();
  });
});

describe('the resume window', () => {
  let h: Harness;
  let base: string;
  before(async () => {
    ({ h, base } = await serverFor({ resumeWindowSeconds: 1, resumeMaxEvents: 5 }));
  });
  after(() => h.close());

  test('events dropped from the journal are announced first, then the kept ones follow', async () => {
    const [notice, ...replayed] = await resumeAfterMissing(h, base, 'gappy', 10, 6);
    assert.equal(notice?.type, 'EventsLost');
    assert.equal(notice?.application, 'gappy');
    assert.equal(notice?.sequence, undefined);
    assert.equal(notice?.first_lost_sequence, 2);
    assert.equal(notice?.last_lost_sequence, 6);
    assert.deepEqual(sequences(replayed), [7, 8, 9, 10, 11]);
  });

  test('after the window the application is unregistered, and a late resume is told the extent is unknown', async () => {
    await enteredThenGone(h, base, 'expiring');
    await waitFor(() => h.core.applications.get('expiring') === undefined, 3000);
    const late = await openInbox(`${base}&app=expiring&resume=1`);
    const notice = await late.next(() => true);
    assert.equal(notice.type, 'EventsLost');
    assert.equal(notice.first_lost_sequence, 2);
    assert.equal(notice.last_lost_sequence, undefined);
    await late.close();
  });
});

describe('a full journal', () => {
  let h: Harness;
  let base: string;
  before(async () => {
    ({ h, base } = await serverFor({ resumeWindowSeconds: 600, resumeMaxEvents: 2000 }));
  });
  after(() => h.close());

  test('keeps exactly the newest resume_max_events while thousands more arrive', async () => {
    // 3,200 missed: the oldest are dropped one by one, past the point where the kept array is cut.
    const [notice, ...replayed] = await resumeAfterMissing(h, base, 'busy', 3200, 2001);
    assert.equal(notice?.type, 'EventsLost');
    assert.equal(notice?.first_lost_sequence, 2);
    assert.equal(notice?.last_lost_sequence, 1201);
    assert.deepEqual(
      sequences(replayed),
      Array.from({ length: 2000 }, (_, i) => 1202 + i),
    );
  });
});
