export * from './user-agent-core.js';
