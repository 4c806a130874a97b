import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Channel } from '../../../channels/channel.js';
import { ConfigError } from '../../../errors.js';
import { EventBus } from '../../../events/event-bus.js';
import { silentLogger } from '../../../util/logger.js';
import { membersToRing } from './queue-app.js';
import { defaultQueue, type QueuesConfig, readQueuesConfig } from './queue-config.js';
import { isEmpty } from './queue-members.js';
import { dialOptionsFor, parseQueueOptions } from './queue-options.js';
import { initialRange, penaltyRangeAt, readQueueRules, withinRange } from './queue-rules.js';
import { callerPriority, insertionIndex, type QueueCaller, QueueService } from './queue-service.js';
import { MemoryQueueStore } from './queue-store.js';

function withConf(files: Record<string, string>, check: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'queuerules-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    check(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const caller = (penaltyRange = {}): QueueCaller => ({
  channel: {} as Channel,
  joinedAt: Date.now(),
  originalPosition: 1,
  penaltyRange,
  ringing: false,
  priority: 0,
});

describe('queue penalty rules (queuerules.conf)', () => {
  it('reads rules in time order and the queue’s defaultrule', () => {
    withConf(
      {
        'queuerules.conf': '[widen]\npenaltychange => 60,+2,-1\npenaltychange => 30,1\n\n[fixed]\npenaltychange => 10,5,2\n',
        'queues.conf': '[support]\nstrategy = linear\ndefaultrule = widen\n',
      },
      (dir) => {
        const rules = readQueueRules(dir, silentLogger);
        assert.deepEqual(rules.get('widen'), [
          { afterSeconds: 30, max: { relative: false, value: 1 } },
          { afterSeconds: 60, max: { relative: true, value: 2 }, min: { relative: true, value: -1 } },
        ]);
        const queues = readQueuesConfig(dir, silentLogger);
        assert.equal(queues.queues.get('support')?.defaultRule, 'widen');
        assert.ok(queues.rules.has('fixed'));
      },
    );
    withConf({ 'queuerules.conf': '[bad]\npenaltychange => soon,1\n' }, (dir) => {
      assert.throws(() => readQueueRules(dir, silentLogger), ConfigError);
    });
  });

  it('widens the caller’s range as it waits, from QUEUE_MAX_PENALTY / QUEUE_MIN_PENALTY', () => {
    const steps = [
      { afterSeconds: 30, max: { relative: false, value: 1 } },
      { afterSeconds: 60, max: { relative: true, value: 2 }, min: { relative: true, value: -1 } },
    ];
    const start = initialRange((name) => ({ QUEUE_MAX_PENALTY: '0', QUEUE_MIN_PENALTY: '1' })[name]);
    assert.deepEqual(start, { max: 0, min: 1 });
    assert.deepEqual(penaltyRangeAt(steps, 10, { max: 0 }), { max: 0 });
    assert.deepEqual(penaltyRangeAt(steps, 30, { max: 0 }), { max: 1, min: undefined });
    assert.deepEqual(penaltyRangeAt(steps, 90, { max: 0, min: 1 }), { max: 3, min: 0 });
    assert.deepEqual(
      initialRange(() => undefined),
      { max: undefined, min: undefined },
    );
    assert.equal(withinRange(3, { max: 2 }), false);
    assert.equal(withinRange(0, { min: 1 }), false);
    assert.equal(withinRange(5, {}), true);
  });

  it('offers only members inside the range, and `penalty` makes the others count as empty', () => {
    const support = {
      ...defaultQueue('support'),
      strategy: 'linear' as const,
      members: [
        { interface: 'SIP/first', penalty: 0, name: 'First', stateInterface: 'SIP/first' },
        { interface: 'SIP/second', penalty: 3, name: 'Second', stateInterface: 'SIP/second' },
      ],
    };
    const config: QueuesConfig = { persistentMembers: false, queues: new Map([['support', support]]), rules: new Map() };
    const service = new QueueService({
      config: () => config,
      store: new MemoryQueueStore(),
      bus: new EventBus(),
      deviceState: () => 'NOT_INUSE',
      log: silentLogger,
    });
    const queue = service.get('support');
    assert.ok(queue);
    const narrow = caller({ min: 1 });
    queue.callers.push(narrow);
    assert.deepEqual(
      membersToRing(service, queue, narrow, Date.now()).map((m) => m.name),
      ['Second'],
    );
    assert.equal(
      isEmpty(queue.members, ['penalty'], support, () => 'NOT_INUSE', Date.now(), { max: 2, min: 1 }),
      true,
    );
    assert.equal(
      isEmpty(queue.members, ['penalty'], support, () => 'NOT_INUSE', Date.now(), { max: 3 }),
      false,
    );
  });
});

describe('queue weight', () => {
  it('keeps a shared member for the heavier queue while a caller waits there', () => {
    const shared = { interface: 'SIP/agent', penalty: 0, name: 'Agent', stateInterface: 'SIP/agent' };
    const vip = { ...defaultQueue('vip'), weight: 10, members: [shared] };
    const general = { ...defaultQueue('general'), members: [shared, { ...shared, interface: 'SIP/other', name: 'Other' }] };
    const config: QueuesConfig = {
      persistentMembers: false,
      queues: new Map([
        ['vip', vip],
        ['general', general],
      ]),
      rules: new Map(),
    };
    const service = new QueueService({
      config: () => config,
      store: new MemoryQueueStore(),
      bus: new EventBus(),
      deviceState: () => 'NOT_INUSE',
      log: silentLogger,
    });
    const vipQueue = service.get('vip');
    const generalQueue = service.get('general');
    assert.ok(vipQueue && generalQueue);
    const ordinary = caller();
    generalQueue.callers.push(ordinary);
    assert.deepEqual(
      membersToRing(service, generalQueue, ordinary, Date.now()).map((m) => m.name),
      ['Agent', 'Other'],
    );
    const important = caller();
    vipQueue.callers.push(important);
    assert.deepEqual(
      membersToRing(service, generalQueue, ordinary, Date.now()).map((m) => m.name),
      ['Other'],
    );
    assert.deepEqual(
      membersToRing(service, vipQueue, important, Date.now()).map((m) => m.name),
      ['Agent'],
    );
    // Once the heavier queue's caller is being offered, the member is no longer held back for it.
    important.ringing = true;
    assert.equal(membersToRing(service, generalQueue, ordinary, Date.now()).length, 2);
  });
});

describe('QUEUE_PRIO', () => {
  it('places a caller ahead of lower priorities and behind equal or higher ones', () => {
    const line = [5, 5, 0, 0].map((priority) => ({ ...caller(), priority }));
    assert.equal(insertionIndex(line, 10), 0);
    assert.equal(insertionIndex(line, 5), 2);
    assert.equal(insertionIndex(line, 0), 4);
    assert.equal(insertionIndex([], 3), 0);
    assert.deepEqual(['7', ' 2 ', '', 'high', undefined].map(callerPriority), [7, 2, 0, 0, 0]);
  });
});

describe('Queue() options', () => {
  it('reads the letters and keeps music while members ring unless r', () => {
    const options = parseQueueOptions('cnhHtXq');
    assert.deepEqual(options, {
      continueAfterMember: true,
      noRetry: true,
      ringing: false,
      dialFeatures: 'hHtX',
      unsupported: ['q'],
    });
    assert.equal(dialOptionsFor(options, 'jazz'), 'm(jazz)ghHtX');
    assert.equal(dialOptionsFor(parseQueueOptions('r'), ''), '');
    assert.equal(dialOptionsFor(parseQueueOptions(''), ''), 'm(default)');
  });
});
