/**
 * @switchboard/signalling: the SIP stack (message, transport, transaction, dialog, UA core) and
 * the SIP channel driver on top of it.
 */
export * from './errors.js';
export * from './message/index.js';
export * from './transport/index.js';
export * from './transaction/index.js';
export * from './dialog/index.js';
export * from './ua/index.js';
export * from './driver/index.js';
