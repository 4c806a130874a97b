/**
 * MixMonitor(file.ext[,options[,command]]) and StopMixMonitor([id]) in the dialplan, on the
 * recording manager that exists (mixmonitor-service.ts). MixMonitor returns at once: the channel
 * goes on with the dialplan (typically a Dial) while it is recorded; MIXMONITOR_FILENAME holds the
 * mixed file's path.
 */
import { CoreError } from '../../../errors.js';
import type { DialplanApplication } from '../../dialplan-app.js';
import type { DialplanRunner } from '../../dialplan-runner.js';
import { MixMonitorOptionError, parseMixMonitorOptions } from './mixmonitor-options.js';
import { MixMonitorError, type MixMonitorDeps, MixMonitorService } from './mixmonitor-service.js';

export function installMixMonitor(deps: MixMonitorDeps & { runner: DialplanRunner }): MixMonitorService {
  const service = new MixMonitorService(deps);

  const mixMonitor: DialplanApplication = async ({ channel, log }, [file = '', options = '', command = '']) => {
    if (file === '') {
      log.warn('MixMonitor requires a file name');
      return { kind: 'next' };
    }
    try {
      const parsed = parseMixMonitorOptions(options);
      const started = await service.start(channel, { file, options: parsed, ...(command === '' ? {} : { command }) });
      channel.setVariable('MIXMONITOR_FILENAME', started.file);
      if (parsed.idVariable) channel.setVariable(parsed.idVariable, started.id);
    } catch (err) {
      if (!(err instanceof MixMonitorError || err instanceof MixMonitorOptionError || err instanceof CoreError)) throw err;
      log.warn({ channel: channel.name, file, reason: err.message }, 'MixMonitor could not start');
    }
    return { kind: 'next' };
  };

  const stopMixMonitor: DialplanApplication = async ({ channel }, [id]) => {
    await service.stop(channel, id);
    return { kind: 'next' };
  };

  deps.runner.registerApplication('MixMonitor', mixMonitor);
  deps.runner.registerApplication('StopMixMonitor', stopMixMonitor);
  return service;
}
