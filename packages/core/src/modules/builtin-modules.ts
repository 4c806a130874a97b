/**
 * Our subsystems as modules, under the names operators know from the reference. Only what can
 * really be switched off or re-read says so: the external-mailbox module can be unloaded (mailbox
 * operations then stop having an effect, SPEC §4.10) and loaded again; the dialplan module reloads
 * extensions.conf; the logger module re-reads logger.conf. The rest is part of the running server.
 */
import { ConfigError, conflict } from '../errors.js';
import { MAILBOX_MODULE } from '../mailboxes/mailbox-registry.js';
import type { ModuleRegistry } from './module-registry.js';

export interface BuiltinModuleHooks {
  applicationCount(): number;
  channelCount(technology?: string): number;
  mailboxListenerCount(): number;
  /** Re-reads extensions.conf and swaps the dialplan. */
  reloadDialplan(): void;
  /** Rereads ari.conf: users, their dialects, allowed origins and channelvars for new channels. */
  reloadAri(): void;
  /** Rereads musiconhold.conf: classes apply to music started from now on. */
  reloadMusicOnHold(): void;
  /** Rereads pjsip.conf; new and changed objects apply to new requests, calls in progress keep theirs. */
  reloadSip(): Promise<void>;
  /** Rereads chan_websocket.conf: its control message format applies to media WebSockets opened from now on. */
  reloadWebSocketChannel(): void;
  /** Re-reads logger.conf; absent when there is no log directory. */
  reloadLogger?: () => void;
  /** The external-mailbox module came back: phones need the current counts again. */
  mailboxesLoaded(): Promise<void>;
}

export function defineBuiltinModules(modules: ModuleRegistry, hooks: BuiltinModuleHooks): void {
  modules.define({
    name: 'res_ari',
    description: 'REST and WebSocket control API',
    supportLevel: 'core',
    reload: () => {
      try {
        hooks.reloadAri();
      } catch (err) {
        if (err instanceof ConfigError) throw conflict(`ari.conf was not reloaded: ${err.message}`);
        throw err;
      }
    },
  });
  modules.define({
    name: 'res_stasis',
    description: 'Applications controlled through the API',
    supportLevel: 'core',
    useCount: () => hooks.applicationCount(),
  });
  modules.define({
    name: 'res_pjsip',
    description: 'SIP channel driver, registrar and messaging',
    supportLevel: 'core',
    useCount: () => hooks.channelCount('SIP'),
    reload: async () => {
      try {
        await hooks.reloadSip();
      } catch (err) {
        // The objects in force stay; the operator learns why the file was refused (reference: 409).
        if (err instanceof ConfigError) throw conflict(`pjsip.conf was not reloaded: ${err.message}`);
        throw err;
      }
    },
  });
  modules.define({
    name: 'pbx_config',
    description: 'Text extension configuration (extensions.conf)',
    supportLevel: 'core',
    reload: () => {
      try {
        hooks.reloadDialplan();
      } catch (err) {
        // The old dialplan stays in place; the operator learns why the file was refused (reference: 409).
        if (err instanceof ConfigError) throw conflict(`extensions.conf was not reloaded: ${err.message}`);
        throw err;
      }
    },
  });
  modules.define({ name: 'app_playback', description: 'Sound file playback', supportLevel: 'core' });
  modules.define({
    name: 'chan_websocket',
    description: 'WebSocket media channel (externalMedia transport=websocket)',
    supportLevel: 'core',
    useCount: () => hooks.channelCount('WebSocket'),
    reload: () => {
      try {
        hooks.reloadWebSocketChannel();
      } catch (err) {
        if (err instanceof ConfigError) throw conflict(`chan_websocket.conf was not reloaded: ${err.message}`);
        throw err;
      }
    },
  });
  modules.define({
    name: 'res_musiconhold',
    description: 'Music on hold',
    supportLevel: 'core',
    reload: () => {
      try {
        hooks.reloadMusicOnHold();
      } catch (err) {
        if (err instanceof ConfigError) throw conflict(`musiconhold.conf was not reloaded: ${err.message}`);
        throw err;
      }
    },
  });
  modules.define({ name: 'res_stasis_device_state', description: 'Device states controlled through the API', supportLevel: 'core' });
  modules.define({
    name: MAILBOX_MODULE,
    description: 'Mailboxes controlled through the API (message waiting indication)',
    supportLevel: 'core',
    useCount: () => hooks.mailboxListenerCount(),
    unload: () => undefined,
    load: () => hooks.mailboxesLoaded(),
    reload: () => hooks.mailboxesLoaded(),
  });
  if (hooks.reloadLogger) {
    const reloadLogger = hooks.reloadLogger;
    modules.define({ name: 'logger', description: 'Log channels', supportLevel: 'core', reload: () => reloadLogger() });
  }
}
