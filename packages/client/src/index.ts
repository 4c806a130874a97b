export { AriError, type ClientOptions, createApi, type EventOf, EventStream, type EventStreamOptions } from './client.js';
export * from './generated/ari.js';
