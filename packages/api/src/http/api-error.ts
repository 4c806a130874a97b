/**
 * An error the HTTP layer raises itself (authentication, parameters, routing). The error handler
 * turns it into `{"message": ...}` with its status; `headers` carries e.g. WWW-Authenticate or Allow.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.headers = headers;
  }
}

export const badRequest = (message: string) => new ApiError(400, message);

/** SPEC §4.2 rule 3 names this error; the body says `MissingParams: <names>` wherever a required parameter is absent. */
export const missingParams = (names: readonly string[]) => new ApiError(400, `MissingParams: ${names.join(',')}`);
