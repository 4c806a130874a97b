/**
 * The Prometheus registry of the server (served at /metrics by the api package). Every metric is
 * listed in the README's "Metrics" table; metrics-docs.test.ts keeps the two in step.
 */
import { eventConnectionStats } from '@switchboard/api';
import type { Store, SwitchboardCore } from '@switchboard/core';
import type { MediaEngine } from '@switchboard/media';
import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registerCallMetrics } from './call-metrics.js';
import { registerMediaMetrics } from './media-metrics.js';
import { registerSipMetrics } from './sip-metrics.js';

export interface ServerMetrics {
  readonly registry: Registry;
  /** Inbound calls since start (also `calls processed` on the console). */
  inboundCalls(): number;
  /** For the api's onRequestDone. */
  requestDone(done: { method: string; route: string; status: number; ms: number }): void;
  render(): Promise<{ contentType: string; body: string }>;
  stop(): void;
}

export interface MetricSources {
  /** Made before the store opens so that store latency lands in it (timedStore). */
  registry: Registry;
  core: SwitchboardCore;
  media: MediaEngine;
  store: Store;
  sipRegistrations(): { state: string }[];
}

/** A call is a bridge with members, or a channel in no bridge (as `core show calls` counts). */
function callsByState(core: SwitchboardCore): Map<string, number> {
  const states = new Map<string, number>();
  const bridged = new Set<string>();
  const stateOf = (ids: readonly string[]) => {
    const members = ids.map((id) => core.channels.get(id)?.state).filter((s) => s !== undefined);
    if (members.length > 0 && members.every((s) => s === 'Up')) return 'up';
    if (members.some((s) => s === 'Ringing' || s === 'Ring')) return 'ringing';
    return 'setup';
  };
  for (const bridge of core.bridges.list()) {
    const ids = bridge.snapshot().channels;
    if (ids.length === 0) continue;
    for (const id of ids) bridged.add(id);
    const state = stateOf(ids);
    states.set(state, (states.get(state) ?? 0) + 1);
  }
  for (const channel of core.channels.list()) {
    if (bridged.has(channel.id)) continue;
    const state = stateOf([channel.id]);
    states.set(state, (states.get(state) ?? 0) + 1);
  }
  return states;
}

export function createServerMetrics(sources: MetricSources): ServerMetrics {
  const { core } = sources;
  const registry = sources.registry;
  // Node's own process metrics, among them nodejs_eventloop_lag_* (the main loop's lag).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  new Gauge({
    name: 'switchboard_channels',
    help: 'Live channels by state (Down, Rsrvd, OffHook, Dialing, Ring, Ringing, Up, Busy, …)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const channel of core.channels.list()) this.inc({ state: channel.state });
    },
  });
  new Gauge({
    name: 'switchboard_calls',
    help: 'Live calls (a bridge with members, or a channel in no bridge) by state: setup, ringing, up',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const state of ['setup', 'ringing', 'up']) this.set({ state }, 0);
      for (const [state, n] of callsByState(core)) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'switchboard_bridges',
    help: 'Live bridges',
    registers: [registry],
    collect() {
      this.set(core.bridges.list().length);
    },
  });
  new Gauge({
    name: 'switchboard_endpoints',
    help: 'Endpoints by technology and state (online: reachable contact; offline; unknown)',
    labelNames: ['technology', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const endpoint of core.endpoints.list()) this.inc({ technology: endpoint.technology, state: endpoint.state ?? 'unknown' });
    },
  });
  new Gauge({
    name: 'switchboard_sip_contacts',
    help: 'Registered SIP contacts that have not expired',
    registers: [registry],
    async collect() {
      const now = Date.now();
      this.set((await sources.store.contacts.all()).filter((c) => c.expiresAt > now).length);
    },
  });
  new Gauge({
    name: 'switchboard_sip_outbound_registrations',
    help: 'Outbound registrations (type=registration) by state: registered, registering, waiting, …',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of sources.sipRegistrations()) this.inc({ state: r.state });
    },
  });
  new Gauge({
    name: 'switchboard_events_websocket_connections',
    help: 'Open events WebSockets',
    registers: [registry],
    collect() {
      this.set(eventConnectionStats().connections);
    },
  });
  new Gauge({
    name: 'switchboard_events_websocket_queued_bytes',
    help: 'Bytes written to events WebSockets and not yet sent, over all connections',
    registers: [registry],
    collect() {
      this.set(eventConnectionStats().queuedBytes);
    },
  });
  const apiRequests = new Counter({
    name: 'switchboard_api_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const apiLatency = new Histogram({
    name: 'switchboard_api_request_duration_seconds',
    help: 'HTTP request latency by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  const calls = registerCallMetrics(registry, core.bus);
  const stopSip = registerSipMetrics(registry);
  const mediaMetrics = registerMediaMetrics(registry, sources.media);

  return {
    registry,
    inboundCalls: () => calls.inboundCalls(),
    requestDone: ({ method, route, status, ms }) => {
      apiRequests.inc({ method, route, status: String(status) });
      apiLatency.observe({ method, route }, ms / 1000);
    },
    render: async () => {
      await mediaMetrics.refresh();
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    stop: () => {
      calls.stop();
      stopSip();
    },
  };
}
