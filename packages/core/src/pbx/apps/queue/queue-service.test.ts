import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventBus } from '../../../events/event-bus.js';
import { openStore } from '../../../store/sqlite-store.js';
import { silentLogger } from '../../../util/logger.js';
import { defaultQueue, type QueuesConfig } from './queue-config.js';
import { QueueService } from './queue-service.js';

describe('queue members across a restart', () => {
  it('keeps dynamic members and their pause in SQLite, and writes queue_log to SQLite and the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'queues-'));
    try {
      const support = {
        ...defaultQueue('support'),
        members: [{ interface: 'SIP/desk', penalty: 0, name: 'Desk', stateInterface: 'SIP/desk' }],
      };
      const config: QueuesConfig = { persistentMembers: true, queues: new Map([['support', support]]), rules: new Map() };
      const logFile = join(dir, 'log', 'queue_log');
      const make = (store: ReturnType<typeof openStore>) =>
        new QueueService({
          config: () => config,
          store: store.queues,
          bus: new EventBus(),
          deviceState: () => 'NOT_INUSE',
          logFile,
          log: silentLogger,
        });

      const first = openStore(join(dir, 'data'));
      const service = make(first);
      assert.equal(
        service.addMember('support', { interface: 'SIP/alice', penalty: 2, name: 'Alice', stateInterface: 'SIP/alice' }),
        'ADDED',
      );
      assert.equal(
        service.addMember('support', { interface: 'SIP/alice', penalty: 2, name: 'Alice', stateInterface: 'SIP/alice' }),
        'MEMBERALREADY',
      );
      assert.equal(service.addMember('sales', { interface: 'SIP/bob', penalty: 0, name: 'Bob', stateInterface: 'SIP/bob' }), 'NOSUCHQUEUE');
      assert.equal(service.setPaused('', 'SIP/alice', true, 'lunch'), true);
      assert.equal(service.removeMember('support', 'SIP/desk'), 'NOTDYNAMIC');
      await first.close();

      const second = openStore(join(dir, 'data'));
      const restarted = make(second);
      const members = restarted.list()[0].members;
      assert.deepEqual(
        members.map((m) => [m.interface, m.membership, m.penalty, m.paused, m.paused_reason]),
        [
          ['SIP/desk', 'static', 0, false, ''],
          ['SIP/alice', 'dynamic', 2, true, 'lunch'],
        ],
      );
      assert.equal(restarted.removeMember('support', 'SIP/alice'), 'REMOVED');
      const events = second.queues.log('support').map((e) => e.event);
      assert.deepEqual(events, ['QUEUESTART', 'ADDMEMBER', 'PAUSE', 'QUEUESTART', 'REMOVEMEMBER']);
      await second.close();
      const lines = readFileSync(logFile, 'utf8').trim().split('\n');
      assert.equal(lines.length, 5);
      assert.match(lines[1], /^\d+\|NONE\|support\|Alice\|ADDMEMBER$/);
      assert.match(lines[2], /^\d+\|NONE\|support\|Alice\|PAUSE\|lunch$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
