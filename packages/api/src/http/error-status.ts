import type { CoreErrorCode } from '@switchboard/core';

/**
 * The one place where the object model's error codes become HTTP statuses
 * (reference README §6; SPEC §7). Every other error path goes through ApiError.
 */
export const CORE_ERROR_STATUS: Readonly<Record<CoreErrorCode, number>> = {
  invalid_argument: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  unprocessable: 422,
  recording_exists: 422,
  restart_queued: 409,
  not_implemented: 501,
  unavailable: 503,
};
