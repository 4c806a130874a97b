/**
 * Our routes validate with their own declarations (operation.ts) and serialise with
 * JSON.stringify; fastify's schema compilers (ajv, fast-json-stringify) are never used. Left to
 * fastify, it `require`s both synchronously while the server starts — about 350 ms of blocking
 * module loading on the main thread, measured with `node --cpu-prof` as the start-up event-loop
 * stall (see README, "Start-up"). Handing fastify compilers of our own keeps them unloaded; a
 * route that ever declares a fastify `schema` gets a clear error instead of silent loading.
 */
const refuse = () => {
  throw new Error('fastify route schemas are not used here: declare parameters in the operation instead');
};

export const NO_SCHEMA_COMPILERS = {
  compilersFactory: {
    buildValidator: () => refuse,
    buildSerializer: () => refuse,
  },
};
