/**
 * Where a controlled channel goes next: back to the dialplan (continue), to another application
 * (move), or elsewhere through its technology (redirect). Preconditions (404/409/412) are the
 * caller's; this checks the targets.
 */
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { ChannelDriver } from '../drivers/channel-technology.js';
import { invalidArgument, notFound, unprocessable } from '../errors.js';
import { splitEndpoint } from '../originate/endpoint.js';
import type { DialplanRunner } from '../pbx/dialplan-runner.js';
import type { Channel } from './channel.js';

export interface ContinueTarget {
  context?: string;
  extension?: string;
  priority?: number;
  label?: string;
}

export class ChannelFlowControl {
  readonly #applications: ApplicationRegistry;
  readonly #runner: DialplanRunner;
  readonly #driverFor: (technology: string) => ChannelDriver | undefined;

  constructor(deps: {
    applications: ApplicationRegistry;
    dialplanRunner: DialplanRunner;
    driverFor: (technology: string) => ChannelDriver | undefined;
  }) {
    this.#applications = deps.applications;
    this.#runner = deps.dialplanRunner;
    this.#driverFor = deps.driverFor;
  }

  /**
   * Nothing given: the next priority. A context without an extension means extension `s`; a label
   * wins over a priority and must exist (404), as in the reference (SPEC 1.7 adds `label`).
   */
  continueInDialplan(channel: Channel, target: ContinueTarget): void {
    const context = target.context || undefined;
    const exten = target.extension || (context !== undefined ? 's' : undefined);
    const label = target.label || undefined;
    if (label !== undefined) {
      const priority = this.#runner.findLabel(context ?? channel.dialplan.context, exten ?? channel.dialplan.exten, label);
      if (priority === undefined) throw notFound(`Label '${label}' not found`);
      if (priority === 0) throw invalidArgument(`Label '${label}' does not name a priority`);
      this.#applications.continueInDialplan(channel, withoutUndefined({ context, exten, priority }));
      return;
    }
    const priority = target.priority;
    if (priority !== undefined && priority < 1) throw invalidArgument('Priority must be 1 or more');
    this.#applications.continueInDialplan(
      channel,
      withoutUndefined({ context, exten, priority: priority ?? (context !== undefined || exten !== undefined ? 1 : undefined) }),
    );
  }

  /** True when the channel moved; false when the destination is not registered (ApplicationMoveFailed). */
  move(channel: Channel, application: string, args: string[]): boolean {
    return this.#applications.move(channel, application, args);
  }

  /** 422 for a target that is not `tech/resource` or not of the channel's technology; 501 without driver support. */
  async redirect(channel: Channel, endpoint: string): Promise<void> {
    const target = splitEndpoint(endpoint.trim());
    if (!target) throw unprocessable(`Endpoint '${endpoint}' is not of the form technology/resource`);
    const driver = this.#driverFor(target.technology);
    const same =
      target.technology.toUpperCase() === channel.technology.toUpperCase() ||
      (driver !== undefined && driver === this.#driverFor(channel.technology));
    if (!same) throw unprocessable(`Endpoint technology '${target.technology}' differs from the channel's (${channel.technology})`);
    await channel.redirect(target.resource);
  }
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
