/**
 * Queue() and the member applications and functions of the original:
 *
 *   AddQueueMember(queue[,interface[,penalty[,options[,membername[,stateinterface]]]]])  AQMSTATUS
 *   RemoveQueueMember(queue[,interface])                                               RQMSTATUS
 *   PauseQueueMember([queue],interface[,options[,reason]])                             PQMSTATUS
 *   UnpauseQueueMember([queue],interface[,options[,reason]])                           UPQMSTATUS
 *   QUEUE_MEMBER(queue,logged|free|ready|count|penalty|paused|ringinuse[,interface])
 *   QUEUE_VARIABLES(queue)   sets QUEUEMAX, QUEUESTRATEGY, QUEUECALLS, QUEUEHOLDTIME,
 *                            QUEUECOMPLETED, QUEUEABANDONED, QUEUESRVLEVEL, QUEUESRVLEVELPERF
 *
 * The interface defaults to the calling channel's device (`SIP/alice`).
 */
import type { Channel } from '../../../channels/channel.js';
import type { DialplanApplication } from '../../dialplan-app.js';
import type { DialplanRunner } from '../../dialplan-runner.js';
import type { DialplanFunction } from '../../pbx-services.js';
import { queueApplication } from './queue-app.js';
import { isAvailable } from './queue-members.js';
import { type QueueDeps, QueueService, queueAverages } from './queue-service.js';

function deviceOf(channel: Channel): string {
  return `${channel.technology}/${channel.endpoint}`;
}

export function installQueues(deps: QueueDeps & { runner: DialplanRunner }): QueueService {
  const service = new QueueService(deps);

  const addQueueMember: DialplanApplication = async (
    { channel, log },
    [queue = '', iface = '', penalty = '', _options = '', name = '', state = ''],
  ) => {
    const device = iface.trim() || deviceOf(channel);
    const penaltyNumber = Number(penalty || '0');
    if (!Number.isInteger(penaltyNumber) || penaltyNumber < 0) {
      log.warn({ penalty }, 'AddQueueMember: penalty must be a whole number');
      channel.setVariable('AQMSTATUS', 'FAILED');
      return { kind: 'next' };
    }
    const status = service.addMember(queue.trim(), {
      interface: device,
      penalty: penaltyNumber,
      name: name.trim() || device,
      stateInterface: state.trim() || device,
    });
    channel.setVariable('AQMSTATUS', status);
    return { kind: 'next' };
  };

  const removeQueueMember: DialplanApplication = async ({ channel }, [queue = '', iface = '']) => {
    channel.setVariable('RQMSTATUS', service.removeMember(queue.trim(), iface.trim() || deviceOf(channel)));
    return { kind: 'next' };
  };

  const pause =
    (paused: boolean, variable: string, done: string): DialplanApplication =>
    async ({ channel }, [queue = '', iface = '', _options = '', reason = '']) => {
      const found = service.setPaused(queue.trim(), iface.trim() || deviceOf(channel), paused, reason.trim());
      channel.setVariable(variable, found ? done : 'NOTFOUND');
      return { kind: 'next' };
    };

  const queueMember: DialplanFunction = {
    read: (ctx, args) => {
      const [name = '', option = '', iface = ''] = args.split(',').map((a) => a.trim());
      const queue = service.get(name);
      if (!queue) return '';
      const now = Date.now();
      const members = queue.members;
      const one = members.find((m) => m.interface.toLowerCase() === (iface || deviceOf(ctx.channel)).toLowerCase());
      switch (option.toLowerCase()) {
        case 'logged':
          return String(members.filter((m) => service.deviceState(m.stateInterface) !== 'UNAVAILABLE').length);
        case 'free':
          return String(members.filter((m) => isAvailable(m, queue.config, service.deviceState(m.stateInterface), now)).length);
        case 'ready':
          return String(members.filter((m) => isAvailable(m, queue.config, service.deviceState(m.stateInterface), now)).length);
        case 'count':
          return String(members.length);
        case 'penalty':
          return one ? String(one.penalty) : '';
        case 'paused':
          return one ? (one.paused ? '1' : '0') : '';
        case 'ringinuse':
          return queue.config.ringInUse ? '1' : '0';
        default:
          ctx.log.warn({ option }, 'QUEUE_MEMBER(): unknown option');
          return '';
      }
    },
  };

  const queueVariables: DialplanFunction = {
    read: (ctx, args) => {
      const queue = service.get(args.trim());
      if (!queue) return '';
      const { channel } = ctx;
      channel.setVariable('QUEUEMAX', String(queue.config.maxLen));
      channel.setVariable('QUEUESTRATEGY', queue.config.strategy);
      channel.setVariable('QUEUECALLS', String(queue.callers.length));
      channel.setVariable('QUEUEHOLDTIME', String(queueAverages(queue).holdtime));
      channel.setVariable('QUEUECOMPLETED', String(queue.completed));
      channel.setVariable('QUEUEABANDONED', String(queue.abandoned));
      channel.setVariable('QUEUESRVLEVEL', String(queue.config.serviceLevel));
      const perf = queue.completed === 0 ? 0 : (100 * queue.completedInServiceLevel) / queue.completed;
      channel.setVariable('QUEUESRVLEVELPERF', perf.toFixed(1));
      return '';
    },
  };

  deps.runner.registerApplication('Queue', queueApplication(service, deps.bus));
  deps.runner.registerApplication('AddQueueMember', addQueueMember);
  deps.runner.registerApplication('RemoveQueueMember', removeQueueMember);
  deps.runner.registerApplication('PauseQueueMember', pause(true, 'PQMSTATUS', 'PAUSED'));
  deps.runner.registerApplication('UnpauseQueueMember', pause(false, 'UPQMSTATUS', 'UNPAUSED'));
  deps.runner.registerFunction('QUEUE_MEMBER', queueMember);
  deps.runner.registerFunction('QUEUE_VARIABLES', queueVariables);
  return service;
}
