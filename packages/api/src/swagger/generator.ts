/**
 * Builds the served swagger 1.1 documents (SPEC §2.1, reference README §2–3) from the resource
 * declarations. Nothing here is written by hand: a new operation or model appears in the
 * api-docs by being declared.
 */
import { type Dialect, SPEC_DIALECT } from '../dialect/dialect.js';
import type { ApiDecl, Operation, ResourceDecl } from '../http/operation.js';
import type { AllowableValues, ErrorResponseDecl, ModelDecl, ParameterDecl } from './types.js';

export const LISTING_API_VERSION = '10.0.0';
/** Every resource document of the reference carries this version; it has no meaning of its own. */
export const RESOURCE_API_VERSION = '2.0.0';

export interface SwaggerListing {
  apiVersion: string;
  swaggerVersion: '1.1';
  basePath?: string;
  apis: { path: string; description: string }[];
}

export interface SwaggerParameter {
  name: string;
  description: string;
  paramType: ParameterDecl['paramType'];
  required: boolean;
  allowMultiple: boolean;
  dataType: string;
  defaultValue?: string | number | boolean;
  allowableValues?: AllowableValues;
}

export interface SwaggerOperation {
  httpMethod: string;
  since?: readonly string[];
  summary: string;
  notes?: string;
  nickname: string;
  responseClass: string;
  upgrade?: 'websocket';
  websocketProtocol?: string;
  parameters: SwaggerParameter[];
  errorResponses: ErrorResponseDecl[];
}

export interface SwaggerModel {
  id: string;
  description: string;
  discriminator?: string;
  subTypes?: readonly string[];
  properties: Record<string, { type: string; description: string; required: boolean; allowableValues?: AllowableValues }>;
}

export interface SwaggerResourceDoc {
  apiVersion: string;
  swaggerVersion: '1.1' | '1.2';
  basePath?: string;
  resourcePath: string;
  since?: readonly string[];
  requiresModules?: readonly string[];
  apis: { path: string; description: string; operations: SwaggerOperation[] }[];
  models: Record<string, SwaggerModel>;
}

export const resourcePath = (resource: Pick<ResourceDecl, 'name'>, dialect: Dialect = SPEC_DIALECT) =>
  `/api-docs/${dialect.resourceName(resource.name)}.{format}`;

/** The listing in a dialect's names (SPEC.md's by default). */
export function buildListing(resources: readonly ResourceDecl[], basePath: string | undefined, dialect = SPEC_DIALECT): SwaggerListing {
  return {
    apiVersion: LISTING_API_VERSION,
    swaggerVersion: '1.1',
    ...(basePath === undefined ? {} : { basePath }),
    apis: resources.map((r) => ({ path: resourcePath(r, dialect), description: r.description })),
  };
}

/** One resource document in a dialect's names (SPEC.md's by default). */
export function buildResourceDoc(resource: ResourceDecl, basePath: string | undefined, dialect = SPEC_DIALECT): SwaggerResourceDoc {
  return {
    apiVersion: RESOURCE_API_VERSION,
    swaggerVersion: resource.swaggerVersion,
    ...(basePath === undefined ? {} : { basePath }),
    resourcePath: resourcePath(resource, dialect),
    ...(resource.since ? { since: resource.since } : {}),
    ...(resource.requiresModules ? { requiresModules: resource.requiresModules } : {}),
    apis: resource.apis.map((api) => apiEntry(api, dialect)),
    models: Object.fromEntries(resource.models.map((m) => [dialect.type(m.id), modelEntry(m, dialect)])),
  };
}

function apiEntry(api: ApiDecl, dialect: Dialect) {
  return {
    path: dialect.path(api.path),
    description: api.description,
    operations: api.operations.map((op) => operationEntry(op, dialect)),
  };
}

function operationEntry(op: Operation, dialect: Dialect): SwaggerOperation {
  return {
    httpMethod: op.httpMethod,
    ...(op.since ? { since: op.since } : {}),
    summary: op.summary,
    ...(op.notes ? { notes: op.notes } : {}),
    nickname: op.nickname,
    responseClass: dialect.type(op.responseClass),
    ...(op.kind === 'websocket' ? { upgrade: op.upgrade, websocketProtocol: op.websocketProtocol } : {}),
    parameters: op.parameters.map(parameterEntry),
    errorResponses: declaredErrorResponses(op, dialect),
  };
}

function parameterEntry(p: ParameterDecl): SwaggerParameter {
  return {
    name: p.name,
    description: p.description,
    paramType: p.paramType,
    required: p.required ?? false,
    allowMultiple: p.allowMultiple ?? false,
    dataType: p.dataType,
    ...(p.defaultValue === undefined ? {} : { defaultValue: p.defaultValue }),
    ...(p.allowableValues ? { allowableValues: p.allowableValues } : {}),
  };
}

function modelEntry(model: ModelDecl, dialect: Dialect): SwaggerModel {
  const properties: SwaggerModel['properties'] = {};
  for (const [name, prop] of Object.entries(model.properties)) {
    properties[dialect.property(model.id, name)] = {
      type: dialect.type(prop.type),
      description: prop.description,
      required: prop.required ?? false,
      ...(prop.allowableValues ? { allowableValues: dialect.allowableValues(model.id, name, prop.allowableValues) } : {}),
    };
  }
  return {
    id: dialect.type(model.id),
    description: model.description,
    ...(model.discriminator ? { discriminator: model.discriminator } : {}),
    ...(model.subTypes ? { subTypes: model.subTypes.map((t) => dialect.type(t)) } : {}),
    properties,
  };
}

/**
 * The operation's own error responses plus a 400 whenever its parameters can be refused by the
 * request parser (missing, outside their allowed values, not a number, too many values), so the
 * documents never hide a status the server gives.
 */
export function declaredErrorResponses(op: Operation, dialect: Dialect = SPEC_DIALECT): ErrorResponseDecl[] {
  const byCode = new Map<number, string>();
  for (const e of op.errorResponses) {
    const code = e.coreError ? dialect.status(e.coreError, e.code) : e.code;
    if (code < 400) continue; // answered as a success in this dialect
    const other = byCode.get(code);
    // Two causes of one status are one entry, as the reference writes them.
    byCode.set(code, other === undefined ? e.reason : `${other}; or ${e.reason}`);
  }
  if (!byCode.has(400) && op.parameters.some(canBeRefused)) byCode.set(400, 'Invalid parameters');
  return [...byCode].map(([code, reason]) => ({ code, reason })).sort((a, b) => a.code - b.code);
}

function canBeRefused(p: ParameterDecl): boolean {
  if (p.paramType === 'path') return false;
  return (
    p.required === true ||
    p.allowMultiple === true ||
    p.allowableValues !== undefined ||
    p.paramType === 'body' ||
    p.dataType === 'int' ||
    p.dataType === 'long' ||
    p.dataType === 'double'
  );
}
