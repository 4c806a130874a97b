export { type SrtpKeying, SrtpSession, type UnprotectResult } from './srtp-session.js';
export { isSrtpSuiteName, masterKeyLength, SRTP_SUITES, type SrtpSuiteName } from './suites.js';
