/**
 * The declaration vocabulary of the control API. Every operation, parameter and model is written
 * once in these shapes; request validation, handler parameter types and the served swagger 1.1
 * documents are all derived from them (see ../http/params.ts and ./generator.ts).
 */
import type { CoreErrorCode } from '@switchboard/core';

export type AllowableValues =
  | { readonly valueType: 'LIST'; readonly values: readonly string[] }
  | { readonly valueType: 'RANGE'; readonly min?: number; readonly max?: number };

/** Parameter data types used by the reference's declarations. */
export type ParameterDataType = 'string' | 'int' | 'long' | 'double' | 'boolean' | 'containers' | 'object';

export interface ParameterDecl {
  readonly name: string;
  readonly description: string;
  /** `body` parameters of type `containers` are read from the JSON body key of the same name; `object` takes the whole body. */
  readonly paramType: 'query' | 'path' | 'body';
  readonly dataType: ParameterDataType;
  readonly required?: boolean;
  readonly allowMultiple?: boolean;
  readonly defaultValue?: string | number | boolean;
  readonly allowableValues?: AllowableValues;
}

export interface ErrorResponseDecl {
  readonly code: number;
  readonly reason: string;
  /** The core error this answer stands for, when a dialect gives it another status. */
  readonly coreError?: CoreErrorCode;
}

export interface PropertyDecl {
  /** A primitive (`string`, `int`, `long`, `double`, `boolean`, `Date`, `object`), a model id, or `List[T]`. */
  readonly type: string;
  readonly description: string;
  readonly required?: boolean;
  readonly allowableValues?: AllowableValues;
}

export interface ModelDecl {
  readonly id: string;
  readonly description: string;
  readonly properties: Readonly<Record<string, PropertyDecl>>;
  readonly discriminator?: string;
  readonly subTypes?: readonly string[];
}

/** A JSON object as received in a body. */
export type JsonObject = { [key: string]: unknown };

type ScalarOf<P extends ParameterDecl> = P['dataType'] extends 'int' | 'long' | 'double'
  ? number
  : P['dataType'] extends 'boolean'
    ? boolean
    : P['dataType'] extends 'object'
      ? JsonObject
      : P['dataType'] extends 'containers'
        ? unknown
        : P['allowableValues'] extends { readonly valueType: 'LIST'; readonly values: readonly (infer V)[] }
          ? V
          : string;

type ValueOf<P extends ParameterDecl> = P['allowMultiple'] extends true ? ScalarOf<P>[] : ScalarOf<P>;

type AlwaysPresent<P extends ParameterDecl> = P['required'] extends true
  ? true
  : P extends { readonly defaultValue: string | number | boolean }
    ? true
    : false;

/** The typed parameter object a handler receives, computed from its declarations. */
export type ParamValues<Ps extends readonly ParameterDecl[]> = {
  [P in Ps[number] as P['name']]: AlwaysPresent<P> extends true ? ValueOf<P> : ValueOf<P> | undefined;
};

/**
 * Parsed parameters before the declaration-specific typing above is applied: scalars, lists of
 * scalars, a JSON object (`object` body) or any JSON value (`containers` body).
 */
export type RawParamValues = Record<string, unknown>;

/**
 * A model that declares at least every field of `T` (a snapshot or event type of core): a field
 * added to core without a declaration here fails to compile instead of surprising clients.
 */
export type ModelFor<T> = Omit<ModelDecl, 'properties'> & {
  readonly properties: { readonly [K in keyof Required<T>]: PropertyDecl } & Readonly<Record<string, PropertyDecl>>;
};

/** A LIST of allowable values that must name every member of the union `T`. */
export function listOfAll<T extends string>() {
  return <const V extends readonly T[]>(
    values: V & ([Exclude<T, V[number]>] extends [never] ? unknown : { missing: Exclude<T, V[number]> }),
  ): AllowableValues => ({ valueType: 'LIST', values });
}
