export * from './local-address.js';
export * from './transport.js';
export * from './udp-transport.js';
export * from './via-received.js';
