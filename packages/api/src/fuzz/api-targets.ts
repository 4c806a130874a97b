/**
 * Fuzz targets of the API's request reading: the query string reader and the parameter parser of
 * every declared operation (query values, JSON bodies, channel variables). ApiError (400 and its
 * kin) is the expected refusal; any other exception would be a 500, which is a bug.
 */
import type { FuzzInput, FuzzTarget } from '@switchboard/core/fuzz';
import fc from 'fast-check';
import { ApiError } from '../http/api-error.js';
import { lastValues } from '../http/body.js';
import { parseParameters } from '../http/params.js';
import { parseVariables } from '../http/variables.js';
import { RESOURCES } from '../resources/index.js';
import type { JsonObject, ParameterDecl } from '../swagger/types.js';

const OPERATIONS: ReadonlyArray<readonly ParameterDecl[]> = RESOURCES.flatMap((resource) =>
  resource.apis.flatMap((api) => api.operations.map((operation) => operation.parameters as readonly ParameterDecl[])),
);

function expectingApiErrors(run: () => void): void {
  try {
    run();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  }
}

/** One input drives one operation: the first byte picks it, the rest is `query` or `query\0json`. */
function runOperation(input: FuzzInput): void {
  if (input.length === 0) return;
  const decls = OPERATIONS[input[0] % OPERATIONS.length];
  const [search = '', bodyText] = input.subarray(1).toString('utf8').split('\0', 2);
  const query = lastValues(search);
  let json: JsonObject | undefined;
  if (bodyText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(bodyText);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) json = parsed as JsonObject;
    } catch {
      // Not JSON: the body parser would have answered 400 before the parameters are read.
    }
  }
  const path: Record<string, string> = {};
  for (const decl of decls) if (decl.paramType === 'path') path[decl.name] = query[decl.name] ?? 'x';
  expectingApiErrors(() => parseParameters(decls, { path, query, json }));
  if (json !== undefined) expectingApiErrors(() => parseVariables(json));
}

const b = (text: string): FuzzInput => Buffer.from(text, 'utf8');

const NAMES = [
  'app',
  'endpoint',
  'extension',
  'context',
  'priority',
  'timeout',
  'media',
  'variables',
  'format',
  'maxDurationSeconds',
  'ifExists',
  'beep',
  'channelId',
  'subscribeAll',
  'api_key',
];
const queryArbitrary = fc
  .tuple(
    fc.nat(255),
    fc.array(
      fc.tuple(
        fc.constantFrom(...NAMES),
        fc.oneof(
          fc.string({ maxLength: 20 }),
          fc.constantFrom('-1', '1e309', '99999999999999999999', 'yes', 'NaN', '', ',,,', '%ff', '%00'),
        ),
      ),
    ),
    fc.option(fc.json({ maxDepth: 3 })),
  )
  .map(([op, pairs, body]) => {
    const search = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
    return Buffer.concat([Buffer.from([op]), b(body === null ? search : `${search}\0${body}`)]);
  });

export const apiFuzzTargets: readonly FuzzTarget[] = [
  {
    name: 'api/parameters',
    seeds: [
      Buffer.concat([Buffer.from([3]), b('app=demo&endpoint=SIP/alice&timeout=30')]),
      Buffer.concat([Buffer.from([9]), b('media=sound:hello-world,tone:ring&lang=en\0{"variables":{"CALLERID(num)":"100"}}')]),
    ],
    regressions: [Buffer.concat([Buffer.from([1]), b(`app=${'a,'.repeat(200)}`)])],
    dictionary: ['&', '=', ',', '%', '%2C', '\0{', '"variables":', '{}', '[]', 'null', '-0', '1.5', 'true'],
    arbitrary: queryArbitrary,
    check: runOperation,
  },
];
