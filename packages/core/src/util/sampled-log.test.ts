import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Logger } from './logger.js';
import { SampledLog } from './sampled-log.js';

function recordingLogger(): { log: Logger; lines: Array<{ level: string; obj: unknown; msg: string | undefined }> } {
  const lines: Array<{ level: string; obj: unknown; msg: string | undefined }> = [];
  const at =
    (level: string) =>
    (obj: object | string, msg?: string): void => {
      lines.push({ level, obj, msg });
    };
  const log: Logger = { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return { log, lines };
}

describe('SampledLog', () => {
  it('writes one line per kind and interval and reports the count of the rest', () => {
    let now = 0;
    const { log, lines } = recordingLogger();
    const sampled = new SampledLog(log, { now: () => now }, 1000);
    for (let i = 0; i < 500; i++) sampled.write('debug', 'malformed', { source: '192.0.2.1' }, 'malformed request');
    assert.equal(lines.length, 1);
    assert.equal(sampled.suppressedCount('malformed'), 499);
    now = 1000;
    sampled.write('debug', 'malformed', {}, 'malformed request');
    assert.equal(lines.length, 2);
    assert.equal((lines[1].obj as { suppressed: number }).suppressed, 499);
  });

  it('keeps kinds apart and writes errors without their stack', () => {
    const { log, lines } = recordingLogger();
    const sampled = new SampledLog(log, { now: () => 0 });
    sampled.write('warn', 'a', { err: new TypeError('bad thing') }, 'a');
    sampled.write('warn', 'b', {}, 'b');
    assert.equal(lines.length, 2);
    assert.deepEqual((lines[0].obj as { err: unknown }).err, { type: 'TypeError', message: 'bad thing' });
    assert.ok(!JSON.stringify(lines[0].obj).includes('at '));
  });
});

describe('sampleMessages', () => {
  it('samples the named lines across child loggers and passes the others through', async () => {
    const { sampleMessages } = await import('./sampled-log.js');
    const lines: string[] = [];
    const make = (bindings: Record<string, unknown>): Logger => {
      const at =
        (level: string) =>
        (obj: object | string, msg?: string): void => {
          lines.push(`${level} ${msg ?? ''} ${JSON.stringify({ ...bindings, ...(obj as object) })}`);
        };
      return {
        trace: at('trace'),
        debug: at('debug'),
        info: at('info'),
        warn: at('warn'),
        error: at('error'),
        child: (b) => make({ ...bindings, ...b }),
      };
    };
    const log = sampleMessages(make({}), { now: () => 0 }, ['inbound call refused']);
    for (let i = 0; i < 50; i++) log.child({ call: i }).info({ status: 401 }, 'inbound call refused');
    log.info({}, 'call answered');
    log.info({}, 'call answered');
    assert.equal(lines.filter((l) => l.includes('inbound call refused')).length, 1);
    assert.ok(lines[0].includes('"call":0'), 'the child bindings are kept');
    assert.equal(lines.filter((l) => l.includes('call answered')).length, 2);
  });
});
