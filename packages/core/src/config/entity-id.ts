/**
 * The system's entity id (`system.entity_id`, Asterisk's `asterisk_id`): a MAC-style identifier that
 * must stay the same across restarts of one machine, so clients can tell which node they talk to.
 */
import { createHash } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';

export const ENTITY_ID_PATTERN = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

/** The first non-internal interface's MAC (interfaces sorted by name for stability), else one derived from the host name. */
export function deriveEntityId(interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces(), host: string = hostname()): string {
  for (const name of Object.keys(interfaces).sort()) {
    for (const address of interfaces[name] ?? []) {
      const mac = address.mac.toLowerCase();
      if (!address.internal && ENTITY_ID_PATTERN.test(mac) && mac !== '00:00:00:00:00:00') return mac;
    }
  }
  const bytes = createHash('sha256').update(host).digest().subarray(0, 6);
  // Mark it locally administered and unicast (IEEE 802 bits) so it can never equal a real vendor MAC.
  bytes[0] = (bytes[0] | 0x02) & 0xfe;
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(':');
}
