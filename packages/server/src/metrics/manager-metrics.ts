/**
 * The manager interface's counters (connections, logins, actions, events, dropped slow readers) as
 * Prometheus metrics. They are read from the manager server at each scrape, so the manager keeps
 * plain numbers and knows nothing of prom-client. With manager.conf disabled every value is 0.
 */
import type { ManagerServer } from '@switchboard/manager';
import { Counter, Gauge, type Registry } from 'prom-client';

/** A counter whose value is read from elsewhere at scrape time (it only ever grows). */
function mirroredCounter(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

export function registerManagerMetrics(registry: Registry, manager: () => ManagerServer | undefined): void {
  const counters = () => manager()?.counters;
  mirroredCounter(
    registry,
    'switchboard_manager_connections_total',
    'Manager connections accepted',
    () => counters()?.connectionsAccepted ?? 0,
  );
  mirroredCounter(
    registry,
    'switchboard_manager_connections_rejected_total',
    'Manager connections refused by a limit',
    () => counters()?.connectionsRejected ?? 0,
  );
  mirroredCounter(registry, 'switchboard_manager_logins_total', 'Successful manager logins', () => counters()?.loginsAccepted ?? 0);
  mirroredCounter(registry, 'switchboard_manager_login_failures_total', 'Failed manager logins', () => counters()?.loginsFailed ?? 0);
  mirroredCounter(registry, 'switchboard_manager_events_total', 'Events written to manager sessions', () => counters()?.eventsSent ?? 0);
  mirroredCounter(
    registry,
    'switchboard_manager_slow_clients_dropped_total',
    'Manager sessions dropped for not reading',
    () => counters()?.slowClientsDropped ?? 0,
  );
  new Counter({
    name: 'switchboard_manager_actions_total',
    help: 'Manager actions asked for, by action ((unknown) for a name the server does not have)',
    labelNames: ['action'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [action, count] of counters()?.actions ?? []) this.inc({ action }, count);
    },
  });
  new Gauge({
    name: 'switchboard_manager_sessions',
    help: 'Open manager sessions (authenticated: logged in)',
    labelNames: ['authenticated'],
    registers: [registry],
    collect() {
      const sessions = manager()?.sessionCount ?? { total: 0, authenticated: 0 };
      this.set({ authenticated: 'yes' }, sessions.authenticated);
      this.set({ authenticated: 'no' }, sessions.total - sessions.authenticated);
    },
  });
}
