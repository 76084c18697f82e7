/** The shapes the API answers (the fields a client reads; the server may send more). */

export type When = Date | string;
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Memory {
  id: number;
  content: string;
  category: string;
  context: string;
  entity: string;
  domain: string;
  sensitive: boolean;
  pinned: boolean;
  source: string;
  confidence: number;
  importance: number;
  metadata?: Record<string, Json>;
  created_at: string;
  updated_at: string;
  due_at?: string | null;
  /** On a write: what it did ("new", "deduplicated", "conflict"). */
  outcome?: string;
  deduplicated?: boolean;
  conflicts_with?: number | null;
  [field: string]: unknown;
}

export interface RecallHit extends Memory {
  score: number;
  relevance: number;
  matched_by: string;
  via: string;
}

export interface Turn {
  id: number;
  session_id: string;
  role: string;
  content: string;
  speaker: string;
  context: string;
  created_at: string;
  extraction_status: string;
  [field: string]: unknown;
}

export interface TurnHit {
  id: number;
  session_id: string;
  role: string;
  content: string;
  speaker: string;
  score: number;
  matched_by: string;
  [field: string]: unknown;
}

export interface ToolCallRecord {
  id: number;
  session_id: string | null;
  tool_name: string;
  args: Json;
  result_summary: string;
  success: boolean;
  error: string;
  duration_ms: number | null;
  [field: string]: unknown;
}

export interface ToolResult {
  name: string;
  ok: boolean;
  result: Json;
  error: { code: string; message: string; fields?: Record<string, string[]> } | null;
}

/** An OpenAI function-calling schema of one memory tool (GET tools/). */
export interface ToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface Person {
  user_id: string;
  metadata: Record<string, Json>;
  created_at: string;
}

export interface NewPersonToken {
  id: number;
  name: string;
  secret: string;
  [field: string]: unknown;
}

/** A condition tree on items (mem0's filter grammar without the entity fields). */
export type Where = Record<string, unknown>;

export interface RememberOptions {
  category?: string;
  context?: string;
  entity?: string;
  domain?: string;
  sensitive?: boolean;
  pinned?: boolean;
  due_at?: When;
  source_turn?: number;
  metadata?: Record<string, Json>;
}

export interface RecallOptions {
  top_k?: number;
  category?: string;
  context?: string;
  entity?: string;
  agent?: string;
  include_sensitive?: boolean;
  time_from?: When;
  time_to?: When;
  min_relevance?: number;
  judge?: boolean;
  where?: Where;
}

export interface UpdateOptions extends Omit<RememberOptions, "source_turn"> {
  content?: string;
  reminded_at?: When | "now";
  reason?: string;
}

export interface ListOptions {
  category?: string;
  context?: string;
  agent?: string;
  entity?: string;
  source?: string;
  ordering?: string;
  where?: Where;
  page?: number;
  page_size?: number;
}

export interface TurnInput {
  session_id: string;
  role: "user" | "assistant" | "system" | "tool";
  content: string;
  context?: string;
  speaker?: string;
  timestamp?: When;
}

export interface ToolCallInput {
  args?: Json;
  result_summary?: string;
  success?: boolean;
  error?: string;
  duration_ms?: number;
  session_id?: string;
  timestamp?: When;
}

export interface ConversationSearchOptions {
  top_k?: number;
  session_id?: string;
  role?: string;
  time_from?: When;
  time_to?: When;
  min_relevance?: number;
  judge?: boolean;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}
