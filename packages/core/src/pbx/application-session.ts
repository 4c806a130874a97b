/**
 * A channel that the API placed in an application (originate, create, snoop) has no dialplan of its
 * own to return to: when it is sent back with an explicit target it runs the dialplan from there,
 * and otherwise it is hung up, as the reference's per-application context ends.
 */
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import { CAUSE_NORMAL_CLEARING } from '../channels/hangup-causes.js';
import type { Logger } from '../util/logger.js';
import type { DialplanRunner } from './dialplan-runner.js';

export async function runInApplication(
  deps: { applications: ApplicationRegistry; dialplanRunner: DialplanRunner; log: Logger },
  channel: Channel,
  application: string,
  args: string[],
  options: { replaceChannel?: Channel } = {},
): Promise<void> {
  const exit = await deps.applications.enter(channel, application, args, options);
  switch (exit.kind) {
    case 'hangup':
      return;
    case 'failed':
      deps.log.warn({ channel: channel.name, application, reason: exit.reason }, 'could not hand channel to application; hanging up');
      await channel.hangup(CAUSE_NORMAL_CLEARING);
      return;
    case 'continue': {
      if (exit.context === undefined && exit.exten === undefined && exit.priority === undefined && exit.label === undefined) {
        await channel.hangup(CAUSE_NORMAL_CLEARING);
        return;
      }
      await deps.dialplanRunner.runTarget(channel, {
        context: exit.context ?? channel.dialplan.context,
        exten: exit.exten ?? channel.dialplan.exten,
        priority: exit.priority,
        label: exit.label,
      });
    }
  }
}
