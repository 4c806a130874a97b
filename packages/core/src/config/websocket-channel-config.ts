/**
 * chan_websocket.conf [global] (the reference's file for its WebSocket media channel): the format
 * of the text control messages on media WebSockets (externalMedia `transport=websocket`).
 *
 *   control_message_format = plain-text (default) | json
 *
 * A call can choose its own with `transport_data=f(json)` (websocket-dial-options.ts).
 */
import type { Logger } from '../util/logger.js';
import type { IniDocument } from './ini.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import type { WebSocketChannelConfig } from './types.js';
import { invalid } from './values.js';

export const CONTROL_MESSAGE_FORMATS = ['plain-text', 'json'] as const;

export function defaultWebSocketChannelConfig(): WebSocketChannelConfig {
  return { controlMessageFormat: 'plain-text' };
}

export function readWebSocketChannelConfig(doc: IniDocument | undefined, log: Logger): WebSocketChannelConfig {
  const config = defaultWebSocketChannelConfig();
  if (!doc) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name !== 'global') {
      warnUnsupportedSection(log, section);
      continue;
    }
    applyOptions({
      section,
      log,
      handlers: {
        control_message_format: (o) => {
          const value = o.value.trim().toLowerCase();
          if (value !== 'plain-text' && value !== 'json') throw invalid(o, 'must be plain-text or json');
          config.controlMessageFormat = value;
        },
      },
    });
  }
  return config;
}
