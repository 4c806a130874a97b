/**
 * Builds the served swagger 1.1 documents (SPEC §2.1, reference README §2–3) from the resource
 * declarations. Nothing here is written by hand: a new operation or model appears in the
 * api-docs by being declared.
 */
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

export const resourcePath = (resource: Pick<ResourceDecl, 'name'>) => `/api-docs/${resource.name}.{format}`;

export function buildListing(resources: readonly ResourceDecl[], basePath: string | undefined): SwaggerListing {
  return {
    apiVersion: LISTING_API_VERSION,
    swaggerVersion: '1.1',
    ...(basePath === undefined ? {} : { basePath }),
    apis: resources.map((r) => ({ path: resourcePath(r), description: r.description })),
  };
}

export function buildResourceDoc(resource: ResourceDecl, basePath: string | undefined): SwaggerResourceDoc {
  return {
    apiVersion: RESOURCE_API_VERSION,
    swaggerVersion: resource.swaggerVersion,
    ...(basePath === undefined ? {} : { basePath }),
    resourcePath: resourcePath(resource),
    ...(resource.since ? { since: resource.since } : {}),
    ...(resource.requiresModules ? { requiresModules: resource.requiresModules } : {}),
    apis: resource.apis.map(apiEntry),
    models: Object.fromEntries(resource.models.map((m) => [m.id, modelEntry(m)])),
  };
}

function apiEntry(api: ApiDecl) {
  return { path: api.path, description: api.description, operations: api.operations.map(operationEntry) };
}

function operationEntry(op: Operation): SwaggerOperation {
  return {
    httpMethod: op.httpMethod,
    ...(op.since ? { since: op.since } : {}),
    summary: op.summary,
    ...(op.notes ? { notes: op.notes } : {}),
    nickname: op.nickname,
    responseClass: op.responseClass,
    ...(op.kind === 'websocket' ? { upgrade: op.upgrade, websocketProtocol: op.websocketProtocol } : {}),
    parameters: op.parameters.map(parameterEntry),
    errorResponses: declaredErrorResponses(op),
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

function modelEntry(model: ModelDecl): SwaggerModel {
  const properties: SwaggerModel['properties'] = {};
  for (const [name, prop] of Object.entries(model.properties)) {
    properties[name] = {
      type: prop.type,
      description: prop.description,
      required: prop.required ?? false,
      ...(prop.allowableValues ? { allowableValues: prop.allowableValues } : {}),
    };
  }
  return {
    id: model.id,
    description: model.description,
    ...(model.discriminator ? { discriminator: model.discriminator } : {}),
    ...(model.subTypes ? { subTypes: model.subTypes } : {}),
    properties,
  };
}

/**
 * The operation's own error responses plus a 400 whenever its parameters can be refused by the
 * request parser (missing, outside their allowed values, not a number, too many values), so the
 * documents never hide a status the server gives.
 */
export function declaredErrorResponses(op: Operation): ErrorResponseDecl[] {
  const declared = [...op.errorResponses];
  if (!declared.some((e) => e.code === 400) && op.parameters.some(canBeRefused)) {
    declared.push({ code: 400, reason: 'Invalid parameters' });
  }
  return declared.sort((a, b) => a.code - b.code);
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
