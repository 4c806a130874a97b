/**
 * Turns the OpenAPI 3.1 document into TypeScript: one interface per schema, events as the
 * discriminated union `AriEvent` (every schema that extends Event, its `type` fixed), one typed
 * method per operation grouped by resource, and the table the runtime client uses to call them.
 * The output is committed (src/generated/ari.ts) and a test keeps it equal to what this produces.
 */
import type { JsonSchema, OpenApiDocument } from '@switchboard/api';

type Schema = JsonSchema & {
  type?: string;
  $ref?: string;
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: string[];
  const?: string;
  description?: string;
  format?: string;
};

interface ParameterObject {
  name: string;
  in: 'path' | 'query';
  description: string;
  required: boolean;
  schema: Schema;
}

interface OperationObject {
  operationId: string;
  tags: string[];
  summary: string;
  'x-nickname': string;
  'x-websocket-protocol'?: string;
  parameters: ParameterObject[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

const refName = (ref: string) => ref.replace('#/components/schemas/', '');
const identifier = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
const comment = (text: string | undefined, indent = '') => (text ? `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n` : '');

/** A schema as a TypeScript type expression. */
export function typeOf(schema: Schema): string {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `${wrap(typeOf(schema.items ?? {}))}[]`;
    case 'object':
      return schema.properties ? inlineObject(schema) : 'Record<string, unknown>';
  }
  return 'unknown';
}

const wrap = (type: string) => (type.includes('|') ? `(${type})` : type);

function inlineObject(schema: Schema): string {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(
    ([name, prop]) => `${identifier(name)}${required.has(name) ? '' : '?'}: ${typeOf(prop)}`,
  );
  return `{ ${fields.join('; ')} }`;
}

function members(schema: Schema): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .map(([name, prop]) => `${comment(prop.description, '  ')}  ${identifier(name)}${required.has(name) ? '' : '?'}: ${typeOf(prop)};\n`)
    .join('');
}

function schemaDeclaration(name: string, schema: Schema): string {
  if (schema.allOf) {
    const [base, own = {}] = schema.allOf;
    return `${comment(own.description)}export interface ${name} extends ${refName(base?.$ref ?? '')} {\n${members(own)}}\n`;
  }
  return `${comment(schema.description)}export interface ${name} {\n${members(schema)}}\n`;
}

/** Schemas that extend Event: the members of the AriEvent union. */
function eventNames(doc: OpenApiDocument): string[] {
  return Object.entries(doc.components.schemas as Record<string, Schema>)
    .filter(([, schema]) => schema.allOf?.[0]?.$ref === '#/components/schemas/Event')
    .map(([name]) => name);
}

interface OperationInfo {
  resource: string;
  method: string;
  httpMethod: string;
  path: string;
  op: OperationObject;
}

function operations(doc: OpenApiDocument): OperationInfo[] {
  const found: OperationInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [httpMethod, value] of Object.entries(item)) {
      if (httpMethod === 'description') continue;
      const op = value as OperationObject;
      if (op['x-websocket-protocol'] !== undefined) continue; // the events WebSocket has its own client
      found.push({ resource: op.tags[0] ?? 'misc', method: op['x-nickname'], httpMethod: httpMethod.toUpperCase(), path, op });
    }
  }
  return found.sort((a, b) => (a.resource === b.resource ? a.method.localeCompare(b.method) : a.resource.localeCompare(b.resource)));
}

function paramsType(op: OperationObject): { type: string; required: boolean } {
  const fields: string[] = [];
  let required = false;
  for (const p of op.parameters) {
    required ||= p.required;
    fields.push(`${comment(p.description, '    ')}    ${identifier(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema)};`);
  }
  const body = op.requestBody?.content['application/json'].schema;
  if (body?.properties) {
    for (const [name, prop] of Object.entries(body.properties))
      fields.push(`${comment(prop.description, '    ')}    ${identifier(name)}?: unknown;`);
  } else if (body) {
    fields.push(`${comment(body.description, '    ')}    body?: Record<string, unknown>;`);
  }
  return { type: fields.length === 0 ? '' : `{\n${fields.join('\n')}\n  }`, required };
}

function resultType(op: OperationObject): string {
  const success = op.responses['200'] ?? op.responses['201'];
  if (!success) return 'void';
  if (success.content?.['application/octet-stream']) return 'ArrayBuffer';
  const schema = success.content?.['application/json']?.schema;
  return schema ? typeOf(schema) : 'void';
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export function generateClientSource(doc: OpenApiDocument): string {
  const out: string[] = [
    '// Generated from the OpenAPI 3.1 document (/ari/openapi.json) by src/codegen/generate.ts.',
    '// Do not edit: run `npm run build && npm run generate -w packages/client`.',
    '/* eslint-disable */',
    '',
  ];
  const schemas = doc.components.schemas as Record<string, Schema>;
  for (const [name, schema] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) out.push(schemaDeclaration(name, schema));
  const events = eventNames(doc).sort();
  out.push(
    `/** Every event the events WebSocket delivers, discriminated by \`type\`. */\nexport type AriEvent =\n${events.map((e) => `  | ${e}`).join('\n')};\n`,
  );
  out.push(`export type AriEventType = AriEvent['type'];\n`);

  const ops = operations(doc);
  const resources = [...new Set(ops.map((o) => o.resource))];
  for (const resource of resources) {
    out.push(`/** The \`${resource}\` resource. */\nexport interface ${pascal(resource)}Api {`);
    for (const info of ops.filter((o) => o.resource === resource)) {
      const params = paramsType(info.op);
      const argument = params.type === '' ? '' : `params${params.required ? '' : '?'}: ${params.type}`;
      out.push(
        `${comment(`${info.op.summary} (${info.httpMethod} ${info.path})`, '  ')}  ${info.method}(${argument}): Promise<${resultType(info.op)}>;`,
      );
    }
    out.push('}\n');
  }
  out.push(
    `/** Every REST resource of the API. */\nexport interface AriApi {\n${resources.map((r) => `  ${r}: ${pascal(r)}Api;`).join('\n')}\n}\n`,
  );

  out.push('/** How each method is called (used by the runtime client). */');
  out.push('export const OPERATIONS = [');
  for (const info of ops) {
    const body = info.op.requestBody?.content['application/json'].schema;
    const entry = {
      resource: info.resource,
      method: info.method,
      httpMethod: info.httpMethod,
      path: info.path,
      path_params: info.op.parameters.filter((p) => p.in === 'path').map((p) => p.name),
      query_params: info.op.parameters.filter((p) => p.in === 'query').map((p) => p.name),
      body_params: body?.properties ? Object.keys(body.properties) : [],
      whole_body: body !== undefined && body.properties === undefined,
      binary: resultType(info.op) === 'ArrayBuffer',
    };
    out.push(`  ${JSON.stringify(entry)},`);
  }
  out.push('] as const;\n');
  return `${out.join('\n')}`;
}
