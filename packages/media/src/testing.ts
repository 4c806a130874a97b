/** @switchboard/media/testing: helpers for tests of this package and of the server that runs it. */
export { hasSysNice, realtimeSchedulingGranted, threadPolicies } from './test-support/scheduling.js';
