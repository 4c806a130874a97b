/**
 * The failed-login options shared by pjsip.conf `type = global` (SIP digest) and ari.conf
 * [general] (REST and events logins):
 *   auth_max_failures = 10         failures from one address within the window that block it
 *   auth_failure_window = 60       seconds
 *   auth_block_time = 300          seconds an address (or, in a lockdown, every unknown one) is refused
 *   auth_max_global_failures = 100 failures from all addresses within the window that start a lockdown
 */
import type { AuthFailureLimits } from '../security/auth-failure-limiter.js';
import type { IniOption } from './ini.js';
import { parseInteger } from './values.js';

export function authLimitHandlers(limits: Partial<AuthFailureLimits>): Record<string, (option: IniOption) => void> {
  return {
    auth_max_failures: (o) => {
      limits.maxFailures = parseInteger(o, 1, 1_000_000);
    },
    auth_failure_window: (o) => {
      limits.windowMs = parseInteger(o, 1, 86_400) * 1000;
    },
    auth_block_time: (o) => {
      limits.blockMs = parseInteger(o, 1, 86_400) * 1000;
    },
    auth_max_global_failures: (o) => {
      limits.maxGlobalFailures = parseInteger(o, 1, 100_000_000);
    },
  };
}
