export * from './address-acl.js';
export * from './auth-failure-limiter.js';
