export * from './address-acl.js';
export * from './auth-failure-limiter.js';
export * from './address-range.js';
