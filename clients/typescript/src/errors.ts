/**
 * The server's errors as exceptions. Every error answer of the API has one shape,
 * `{"error": {"code", "message", "fields"?}}`; it becomes a `GaiaError` (or the subclass
 * for its status) carrying those, the HTTP status and `requestId`: the id the server
 * logged the request under (its answer's X-Request-ID; the tasks it queued log it too), to
 * quote when asking its operator. No answer at all is a `GaiaConnectionError`.
 */

export type ErrorFields = Record<string, string[]>;

export interface ErrorDetails {
  status?: number;
  code?: string;
  fields?: ErrorFields;
  requestId?: string;
}

export class GaiaError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  readonly fields: ErrorFields;
  /** The server's id for the request (X-Request-ID), when it answered. */
  readonly requestId: string | undefined;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code ?? "error";
    this.fields = details.fields ?? {};
    this.requestId = details.requestId;
  }
}

/** The server could not be reached, or did not answer in time. */
export class GaiaConnectionError extends GaiaError {}

/** 401: a missing, malformed, revoked or expired token. */
export class AuthenticationError extends GaiaError {}

/** 403: the token may not do this. */
export class PermissionDeniedError extends GaiaError {}

/** 404: no such object (another user's ids answer the same). */
export class NotFoundError extends GaiaError {}

/** 400, 413 or 415: the request was refused; `fields` names what is wrong. */
export class InvalidRequestError extends GaiaError {}

/** 429: too many requests for this token; `retryAfter` seconds, when the server said. */
export class RateLimitError extends GaiaError {
  readonly retryAfter: number | undefined;

  constructor(message: string, details: ErrorDetails & { retryAfter?: number } = {}) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}

/** 503: e.g. no language model is configured for `extract`. */
export class ServiceUnavailableError extends GaiaError {}

/** 5xx: the server failed. */
export class ServerError extends GaiaError {}

const BY_STATUS: Record<number, typeof GaiaError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  503: ServiceUnavailableError,
};

/** Seconds a Retry-After header asks for (a number of seconds or an HTTP date). */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

const TOKEN_HINT =
  " Set GAIA_TOKEN (or pass `token`) to an API token of the person whose memory this is; " +
  "it is sent as `Authorization: Bearer <token>`.";

/** The exception for an error answer (`body`: its parsed JSON, or undefined). */
export function errorFor(status: number, body: unknown, headers?: Headers): GaiaError {
  const error = (body as { error?: unknown } | undefined)?.error;
  const detail = (typeof error === "object" && error !== null ? error : {}) as {
    message?: unknown;
    code?: unknown;
    fields?: unknown;
  };
  let message = typeof detail.message === "string" && detail.message ? detail.message : `HTTP ${status}`;
  const code = typeof detail.code === "string" && detail.code ? detail.code : "error";
  const fields =
    typeof detail.fields === "object" && detail.fields !== null ? (detail.fields as ErrorFields) : undefined;
  if (status === 401) message += TOKEN_HINT;
  const requestId = headers?.get("x-request-id") || undefined;
  if (status === 429) {
    const retryAfter = retryAfterSeconds(headers?.get("retry-after") ?? null);
    return new RateLimitError(message, { status, code, fields, requestId, retryAfter });
  }
  const Kind = BY_STATUS[status] ?? (status >= 500 ? ServerError : GaiaError);
  return new Kind(message, { status, code, fields, requestId });
}
