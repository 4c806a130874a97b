/**
 * The OpenAPI 3.1 document (`<apiRoot>/openapi.json`), built from the same declarations as the
 * swagger 1.1 api-docs (resources, operations, parameters, models): nothing here is written by
 * hand. Models become JSON Schema 2020-12 components; Message and Event keep their discriminator
 * on `type`, each event schema extends Event with `type` fixed to its own name, so generated
 * clients see events as a discriminated union. The events WebSocket is listed with
 * `x-websocket-protocol`, since OpenAPI has no WebSocket operation of its own. Like the api-docs,
 * the document is in the reader's dialect (event, model, field, path and status names).
 */
import { type Dialect, SPEC_DIALECT } from '../dialect/dialect.js';
import type { Operation, ResourceDecl } from '../http/operation.js';
import { declaredErrorResponses, LISTING_API_VERSION } from './generator.js';
import { EventModel, MessageModel } from './models/events.js';
import type { AllowableValues, ModelDecl, ParameterDecl } from './types.js';

export type JsonSchema = { [key: string]: unknown };

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  security: { basicAuth: [] }[];
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
}

const ref = (id: string): JsonSchema => ({ $ref: `#/components/schemas/${id}` });

/** A swagger 1.1 type name (`string`, `long`, `Date`, `List[Channel]`, a model id) as JSON Schema. */
export function schemaOfType(type: string, models: ReadonlySet<string>, dialect: Dialect = SPEC_DIALECT): JsonSchema {
  const list = /^List\[(.+)\]$/.exec(type);
  if (list) return { type: 'array', items: schemaOfType(list[1] as string, models, dialect) };
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'Date':
      return { type: 'string', format: 'date-time' };
    case 'int':
      return { type: 'integer', format: 'int32' };
    case 'long':
      return { type: 'integer', format: 'int64' };
    case 'double':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
    case 'containers':
      return { type: 'object' };
  }
  return models.has(type) ? ref(dialect.type(type)) : { type: 'object', description: `(${dialect.type(type)})` };
}

function withAllowable(schema: JsonSchema, allowed: AllowableValues | undefined): JsonSchema {
  if (!allowed) return schema;
  if (allowed.valueType === 'LIST') return { ...schema, enum: [...allowed.values] };
  return {
    ...schema,
    ...(allowed.min !== undefined ? { minimum: allowed.min } : {}),
    ...(allowed.max !== undefined ? { maximum: allowed.max } : {}),
  };
}

function modelSchema(model: ModelDecl, models: ReadonlySet<string>, eventIds: ReadonlySet<string>, dialect: Dialect): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [declared, prop] of Object.entries(model.properties)) {
    const name = dialect.property(model.id, declared);
    const allowed = prop.allowableValues ? dialect.allowableValues(model.id, declared, prop.allowableValues) : undefined;
    properties[name] = { ...withAllowable(schemaOfType(prop.type, models, dialect), allowed), description: prop.description };
    if (prop.required) required.push(name);
  }
  const own: JsonSchema = { type: 'object', description: model.description, properties, ...(required.length > 0 ? { required } : {}) };
  if (model.id === MessageModel.id) {
    return { ...own, discriminator: { propertyName: 'type' } };
  }
  if (model.id === EventModel.id) {
    return { allOf: [ref(dialect.type(MessageModel.id)), { ...own, discriminator: { propertyName: 'type' } }] };
  }
  if (eventIds.has(model.id)) {
    const typed = { ...own, properties: { ...properties, type: { const: dialect.type(model.id) } }, required: [...required, 'type'] };
    return { allOf: [ref(dialect.type(EventModel.id)), typed] };
  }
  if (model.id === 'MissingParams') return { allOf: [ref(dialect.type(MessageModel.id)), own] };
  return own;
}

function parameterSchema(p: ParameterDecl, models: ReadonlySet<string>, dialect: Dialect): JsonSchema {
  const scalar = withAllowable(schemaOfType(p.dataType, models, dialect), p.allowableValues);
  const schema = p.allowMultiple ? { type: 'array', items: scalar } : scalar;
  return p.defaultValue === undefined ? schema : { ...schema, default: p.defaultValue };
}

function successResponses(op: Operation, models: ReadonlySet<string>, dialect: Dialect): Record<string, JsonSchema> {
  if (op.responseClass === 'void') return { '2XX': { description: 'Success, no content' } };
  if (op.responseClass === 'binary') {
    return {
      '200': {
        description: 'The file',
        content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
      },
    };
  }
  const content = { 'application/json': { schema: schemaOfType(op.responseClass, models, dialect) } };
  const ok = { '200': { description: 'Success', content } };
  return op.httpMethod === 'POST' ? { ...ok, '201': { description: 'Created', content } } : ok;
}

function operationObject(resource: ResourceDecl, op: Operation, models: ReadonlySet<string>, dialect: Dialect): JsonSchema {
  const tag = dialect.resourceName(resource.name);
  const parameters = op.parameters
    .filter((p) => p.paramType !== 'body')
    .map((p) => ({
      name: p.name,
      in: p.paramType,
      description: p.description,
      required: p.paramType === 'path' ? true : (p.required ?? false),
      schema: parameterSchema(p, models, dialect),
      // ARI lists are comma-separated in one value (`app=a,b`).
      ...(p.allowMultiple ? { style: 'form', explode: false } : {}),
    }));
  const body = op.parameters.filter((p) => p.paramType === 'body');
  const whole = body.find((p) => p.dataType === 'object');
  const requestBody =
    body.length === 0
      ? undefined
      : {
          required: body.some((p) => p.required),
          content: {
            'application/json': {
              schema: whole
                ? { type: 'object', description: whole.description }
                : { type: 'object', properties: Object.fromEntries(body.map((p) => [p.name, { description: p.description }])) },
            },
          },
        };
  // One response per status; reasons that share a status (a dialect can map two onto one) are joined.
  const reasons = new Map<number, string[]>();
  for (const e of declaredErrorResponses(op, dialect)) reasons.set(e.code, [...(reasons.get(e.code) ?? []), e.reason]);
  const errors = Object.fromEntries(
    [...reasons].map(([code, texts]) => [
      String(code),
      { description: texts.join('; '), content: { 'application/json': { schema: ref('Error') } } },
    ]),
  );
  return {
    operationId: `${tag}_${op.nickname}`,
    tags: [tag],
    summary: op.summary,
    ...(op.notes ? { description: op.notes } : {}),
    'x-nickname': op.nickname,
    ...(op.since ? { 'x-since': op.since } : {}),
    ...(op.kind === 'websocket' ? { 'x-websocket-protocol': op.websocketProtocol } : {}),
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...(op.kind === 'websocket' ? { '101': { description: 'Switching protocols' } } : successResponses(op, models, dialect)),
      ...errors,
    },
  };
}

/** The document in a dialect's names (SPEC.md's by default, which the typed client is generated from). */
export function buildOpenApiDocument(
  resources: readonly ResourceDecl[],
  serverUrl: string,
  dialect: Dialect = SPEC_DIALECT,
): OpenApiDocument {
  const allModels = new Map<string, ModelDecl>();
  for (const resource of resources) for (const model of resource.models) allModels.set(model.id, model);
  const ids = new Set(allModels.keys());
  const eventIds = new Set(EventModel.subTypes ?? []);
  const schemas: Record<string, JsonSchema> = {
    Error: { type: 'object', description: 'Every error answer', properties: { message: { type: 'string' } }, required: ['message'] },
  };
  for (const model of allModels.values()) schemas[dialect.type(model.id)] = modelSchema(model, ids, eventIds, dialect);
  const paths: OpenApiDocument['paths'] = {};
  for (const resource of resources) {
    for (const api of resource.apis) {
      const path = dialect.path(api.path);
      const item = paths[path] ?? { description: api.description };
      paths[path] = item;
      for (const op of api.operations) item[op.httpMethod.toLowerCase()] = operationObject(resource, op, ids, dialect);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard control API',
      version: LISTING_API_VERSION,
      description:
        'The REST interface and events WebSocket of Switchboard (ARI dialect), generated from the same declarations as /api-docs.',
    },
    servers: [{ url: serverUrl }],
    security: [{ basicAuth: [] }],
    paths,
    components: { schemas, securitySchemes: { basicAuth: { type: 'http', scheme: 'basic' } } },
  };
}
