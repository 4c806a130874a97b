export * from './channel-names.js';
export * from './hangup-causes.js';
export * from './identify.js';
export * from './inbound-call.js';
export * from './ip-match.js';
export * from './sdp.js';
export * from './sip-driver.js';
