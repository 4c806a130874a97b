/**
 * rtp.conf [general]: the UDP port range media legs take their RTP (even) and RTCP (odd) ports from.
 *
 * Defaults (also when the file is missing): rtpstart = 10000, rtpend = 20000, native_sockets = yes.
 * `native_sockets` (Switchboard's own): IPv4 legs use the media package's native socket hub, which
 * reads all sockets in C and enters JavaScript once per event-loop round; `no` keeps Node's dgram.
 */
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import { type IniDocument, lastOption } from './ini.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import type { RtpConfig } from './types.js';
import { parseBool, parseInteger } from './values.js';

export function defaultRtpConfig(): RtpConfig {
  return { rtpStart: 10000, rtpEnd: 20000, nativeSockets: true };
}

export function readRtpConfig(doc: IniDocument | undefined, log: Logger): RtpConfig {
  const config = defaultRtpConfig();
  if (!doc) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name !== 'general') {
      warnUnsupportedSection(log, section);
      continue;
    }
    applyOptions({
      section,
      log,
      handlers: {
        // Below 1024 are privileged ports; RTCP needs the port above the last RTP port.
        rtpstart: (o) => {
          config.rtpStart = parseInteger(o, 1024, 65534);
        },
        rtpend: (o) => {
          config.rtpEnd = parseInteger(o, 1025, 65535);
        },
        native_sockets: (o) => {
          config.nativeSockets = parseBool(o);
        },
      },
    });
    if (config.rtpStart > config.rtpEnd) {
      const where = lastOption(section, 'rtpend') ?? lastOption(section, 'rtpstart');
      throw new ConfigError(
        where?.file ?? doc.file,
        where?.line,
        `rtpstart (${config.rtpStart}) is greater than rtpend (${config.rtpEnd})`,
      );
    }
  }
  return config;
}
