/**
 * RFC 3261 §17 timer values (Table 4 of Appendix A), with Timer L and M from RFC 6026 §8.
 * Names follow the RFC so that each use reads like the section it implements.
 */

/** RTT estimate. */
export const T1 = 500;
/** Maximum retransmit interval for non-INVITE requests and INVITE responses. */
export const T2 = 4000;
/** Maximum duration a message remains in the network. */
export const T4 = 5000;

/** INVITE request retransmit interval, initially; doubles each time (UDP only). §17.1.1.2 */
export const TIMER_A = T1;
/** INVITE transaction timeout. §17.1.1.2 */
export const TIMER_B = 64 * T1;
/** Wait time for response retransmits: at least 32 s on UDP, 0 on reliable transports. §17.1.1.2 */
export const TIMER_D = 32000;
/** Non-INVITE request retransmit interval, initially (UDP only). §17.1.2.2 */
export const TIMER_E = T1;
/** Non-INVITE transaction timeout. §17.1.2.2 */
export const TIMER_F = 64 * T1;
/** INVITE response retransmit interval, initially (UDP only). §17.2.1 */
export const TIMER_G = T1;
/** Wait time for ACK receipt. §17.2.1 */
export const TIMER_H = 64 * T1;
/** Wait time for ACK retransmits: T4 on UDP, 0 on reliable transports. §17.2.1 */
export const TIMER_I = T4;
/** Wait time for non-INVITE request retransmits: 64*T1 on UDP, 0 on reliable. §17.2.2 */
export const TIMER_J = 64 * T1;
/** Wait time for response retransmits: T4 on UDP, 0 on reliable. §17.1.2.2 */
export const TIMER_K = T4;
/** Wait time for accepted INVITE request retransmits. RFC 6026 §8.7 */
export const TIMER_L = 64 * T1;
/** Wait time for retransmission of 2xx to INVITE or additional 2xx from other branches. RFC 6026 §8.4 */
export const TIMER_M = 64 * T1;

export const TIMER_NAMES = ['A', 'B', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M'] as const;
export type TimerName = (typeof TIMER_NAMES)[number];
