/**
 * One request to the API with `fetch`: the URL, the token, the JSON body, a deadline, and
 * retries with back-off on 429 and 503 (the server's Retry-After honoured, bounded).
 */

import { GaiaConnectionError, GaiaError, RateLimitError, errorFor } from "./errors.js";

export const DEFAULT_URL = "http://127.0.0.1:8000";
export const API_ROOT = "/api/v1/";

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns them off). */
  retries?: number;
  /** The first back-off, doubled each retry, with jitter (default 500 ms). */
  baseDelayMs?: number;
  /** The longest wait before a retry; a longer Retry-After is not waited for (default 30 s). */
  maxDelayMs?: number;
}

export interface ConnectionOptions {
  /** The server's root (default: the GAIA_URL environment variable, else 127.0.0.1:8000). */
  baseUrl?: string;
  /** A person's API token, or an app token (default: the GAIA_TOKEN environment variable). */
  token?: string;
  /** With an app token: the app's id for the person every request is for. */
  userId?: string;
  /** Per request, in milliseconds (default 30 000; batch writes wait up to 600 000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Another fetch (a test's, a proxy's); default: the global one. */
  fetch?: typeof fetch;
}

export interface Call {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** A large batch: waits up to the batch timeout for its answer. */
  batch?: boolean;
}

const BATCH_TIMEOUT_MS = 600_000;
// A 503 that says so will not change by waiting (no language model is configured).
const LASTING_503 = new Set(["llm_not_configured"]);

function env(name: string): string | undefined {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return process?.env?.[name] || undefined;
}

/** The API's root for a server root; a URL that already ends in /api/v1 is kept. */
export function apiRoot(baseUrl: string): string {
  let root = baseUrl.replace(/\/+$/, "");
  if (root.endsWith("/api/v1")) root = root.slice(0, -"/api/v1".length);
  return root + API_ROOT;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Connection {
  readonly apiUrl: string;
  readonly userId: string | undefined;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly fetcher: typeof fetch;

  constructor(options: ConnectionOptions = {}) {
    this.apiUrl = apiRoot(options.baseUrl ?? env("GAIA_URL") ?? DEFAULT_URL);
    this.token = options.token ?? env("GAIA_TOKEN");
    this.userId = options.userId;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = Math.max(0, options.retry?.retries ?? 3);
    this.baseDelayMs = options.retry?.baseDelayMs ?? 500;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The same connection acting for another of an app's people. */
  withUser(userId: string | undefined, options: ConnectionOptions = {}): ConnectionOptions {
    return {
      baseUrl: this.apiUrl,
      token: this.token,
      userId,
      timeoutMs: this.timeoutMs,
      retry: { retries: this.retries, baseDelayMs: this.baseDelayMs, maxDelayMs: this.maxDelayMs },
      fetch: this.fetcher,
      ...options,
    };
  }

  url(call: Call): string {
    const url = new URL(call.path, this.apiUrl);
    const query = { ...(call.query ?? {}), ...(this.userId !== undefined ? { user_id: this.userId } : {}) };
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** Send `call`; its parsed JSON answer, or a GaiaError. */
  async send<T = unknown>(call: Call): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.once(call);
      const body = await parsed(response);
      if (response.status < 400 || (call.path === "health/" && body !== undefined)) return body as T;
      const error = errorFor(response.status, body, response.headers);
      const wait = this.backoff(error, attempt);
      if (wait === undefined) throw error;
      await sleep(wait);
    }
  }

  /** How long to wait before retrying after `error`, or undefined: do not retry. */
  private backoff(error: GaiaError, attempt: number): number | undefined {
    const retriable = error.status === 429 || (error.status === 503 && !LASTING_503.has(error.code));
    if (!retriable || attempt >= this.retries) return undefined;
    const asked = error instanceof RateLimitError ? error.retryAfter : undefined;
    if (asked !== undefined) {
      const ms = asked * 1000;
      return ms <= this.maxDelayMs ? ms : undefined;
    }
    const exponential = this.baseDelayMs * 2 ** attempt;
    return Math.min(this.maxDelayMs, exponential / 2 + Math.random() * (exponential / 2));
  }

  private async once(call: Call): Promise<Response> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers["Content-Type"] = "application/json";
    }
    const timeout = call.batch ? Math.max(BATCH_TIMEOUT_MS, this.timeoutMs) : this.timeoutMs;
    try {
      return await this.fetcher(this.url(call), {
        method: call.method,
        headers,
        body,
        signal: AbortSignal.timeout(timeout),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      if (timedOut && call.method !== "GET") {
        throw new GaiaConnectionError(
          `No answer from ${this.apiUrl} in ${timeout} ms: the write may have been stored. ` +
            "Check before sending it again (a larger `timeoutMs` waits longer).",
          { code: "timeout" },
        );
      }
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new GaiaConnectionError(`Cannot reach ${this.apiUrl}: ${reason}`, { code: "unreachable" });
    }
  }
}

async function parsed(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
