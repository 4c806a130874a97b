/**
 * Call metrics from core's event bus: attempts, answers and failures (by Q.850 cause) per
 * direction, and the set-up time from channel creation to answer. Channels and calls by state
 * are gauges read from the object model when scraped (metrics.ts).
 */
import type { EventBus } from '@switchboard/core';
import { Counter, Histogram, type Registry } from 'prom-client';

export interface CallCounters {
  /** Inbound channels since start (`calls processed`). */
  inboundCalls(): number;
  stop(): void;
}

export function registerCallMetrics(registry: Registry, bus: EventBus): CallCounters {
  const attempts = new Counter({
    name: 'switchboard_call_attempts_total',
    help: 'Channels created, by direction (inbound: a call arrived; outbound: the server dialled)',
    labelNames: ['direction'],
    registers: [registry],
  });
  const answers = new Counter({
    name: 'switchboard_call_answers_total',
    help: 'Channels answered (first move to Up), by direction',
    labelNames: ['direction'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'switchboard_call_failures_total',
    help: 'Channels that ended without being answered, by direction and hangup cause (Q.850 text)',
    labelNames: ['direction', 'cause'],
    registers: [registry],
  });
  const setup = new Histogram({
    name: 'switchboard_call_setup_seconds',
    help: 'Time from channel creation to answer',
    labelNames: ['direction'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers: [registry],
  });
  /** Channel id → creation time and direction, until answered or destroyed. */
  const pending = new Map<string, { created: number; direction: string; answered: boolean }>();
  let inbound = 0;
  const stop = bus.subscribe((event) => {
    switch (event.type) {
      case 'ChannelCreated': {
        // Core's snapshot has no direction; a channel that starts in Ring state is an arriving call.
        const direction = event.channel.state === 'Ring' ? 'inbound' : 'outbound';
        if (direction === 'inbound') inbound += 1;
        attempts.inc({ direction });
        pending.set(event.channel.id, { created: Date.now(), direction, answered: false });
        return;
      }
      case 'ChannelStateChange': {
        const entry = pending.get(event.channel.id);
        if (entry === undefined || entry.answered || event.channel.state !== 'Up') return;
        entry.answered = true;
        answers.inc({ direction: entry.direction });
        setup.observe({ direction: entry.direction }, (Date.now() - entry.created) / 1000);
        return;
      }
      case 'ChannelDestroyed': {
        const entry = pending.get(event.channel.id);
        pending.delete(event.channel.id);
        if (entry !== undefined && !entry.answered)
          failures.inc({ direction: entry.direction, cause: event.cause_txt || String(event.cause) });
        return;
      }
      default:
        return;
    }
  });
  return { inboundCalls: () => inbound, stop };
}
