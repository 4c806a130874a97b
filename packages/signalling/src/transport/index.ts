export * from './local-address.js';
export * from './message-observers.js';
export { type DroppedDatagrams, droppedSipDatagrams } from './native-datagram-socket.js';
export * from './stream-framer.js';
export * from './stream-transport.js';
export * from './transport.js';
export * from './udp-transport.js';
export * from './via-received.js';
export * from './ws-transport.js';
