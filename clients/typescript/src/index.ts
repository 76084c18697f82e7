export { MemoryClient, People, TURN_MAX_CHARS } from "./client.js";
export { GraphCalls } from "./graph.js";
export type { RelateOptions, SplitOptions } from "./graph.js";
export { memoryTools } from "./ai.js";
export type { MemoryToolDefinition } from "./ai.js";
export { API_ROOT, DEFAULT_URL, apiRoot } from "./transport.js";
export type { ConnectionOptions, RetryOptions } from "./transport.js";
export {
  AuthenticationError,
  GaiaConnectionError,
  GaiaError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
} from "./errors.js";
export type * from "./types.js";
