export * from './dialog.js';
export * from './incoming-invite.js';
export * from './services.js';
