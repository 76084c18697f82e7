/** How a call's values become a JSON body or a query string. */

import type { Json } from "./types.js";

export type Values = Record<string, unknown>;

/** The values that were given (not undefined), times as ISO 8601. */
export function given(values: Values): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    out[key] = (value instanceof Date ? value.toISOString() : value) as Json;
  }
  return out;
}

/** The given values as query-string text (objects, such as `where`, as JSON). */
export function query(values: Values): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(given(values))) {
    out[key] = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  }
  return out;
}

/** A path segment (an id, a person's external id) encoded for the URL. */
export const seg = (value: string | number) => encodeURIComponent(String(value));
