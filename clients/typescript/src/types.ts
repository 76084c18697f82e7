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
  /** Up to 4 other phrasings (words the question lacks, a hypothetical answer), fused with it. */
  queries?: string[];
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
  /** Only private items (true) or only the others (false); default both. */
  sensitive?: boolean;
  include_superseded?: boolean;
  /** Forgotten items too (they carry `forgotten_at`), e.g. to restore one. */
  include_forgotten?: boolean;
  ordering?: string;
  where?: Where;
  page?: number;
  page_size?: number;
}

/** Forget by scope: every active memory matching all the given filters (at least one). */
export interface ForgetScope {
  context?: string;
  entity?: string;
  /** An age: "12h", "30d", "2w", "6m", "1y". */
  older_than?: string;
  categories?: string[];
  /** Only count what would go. */
  dry_run?: boolean;
}

export interface ForgetResult {
  /** How many were forgotten (or, in a dry run, would be). */
  forgotten: number;
  dry_run: boolean;
  /** Their ids: each can be brought back with `restore`. */
  ids: number[];
}

/** What a search read of a time in the query ("yesterday", "about a week ago"). */
export interface TimeRead {
  from: string;
  to: string;
  said: string;
  /** false: nothing of the user's falls in the window, so it narrowed nothing. */
  used: boolean;
}

/**
 * A search's hits, best first (an array), with what the server read of the query:
 * `time_read` (null when the query names no time) and `judged` (whether the relevance
 * judge chose them; `judge_note` says why not).
 */
export type Found<T> = T[] & { time_read: TimeRead | null; judged: boolean; judge_note: string };

export interface DynamicContextOptions {
  context?: string;
  /** Items due within this many days (default the server's). */
  days?: number;
  /** The user's message, for `notes`. */
  query?: string;
  /** Also this many diary notes of earlier conversations that bear on `query`. */
  notes?: number;
}

/** An agent's reflection at the end of a run (`proposeSkill`), besides trigger and procedure. */
export interface Reflection {
  tools_used?: string[];
  what_worked?: string;
  what_didnt_work?: string;
  gotchas?: string;
  optimal_approach?: string;
  unnecessary_tools?: string[];
  success_criteria?: string;
  confidence?: number;
}

export interface Skill {
  id: number;
  agent_type: string;
  trigger: string;
  procedure: string;
  tools_used: string[];
  confidence: number;
  [field: string]: unknown;
}

export interface SkillHit {
  skill: Skill;
  relevance: number;
}

export interface Agent {
  id: number;
  name: string;
  agent_type: string | null;
  default_context: string;
  description: string;
  /** The agent this token acts as. */
  current: boolean;
  [field: string]: unknown;
}

export interface Entity {
  id: number;
  kind: string;
  name: string;
  /** The person themselves ("me"). */
  holder: boolean;
  aliases: string[];
  created_at: string;
  updated_at: string;
}

export interface Relation {
  id: number;
  subject: { id: number; kind: string; name: string };
  type: string;
  object: { id: number; kind: string; name: string };
  /** "Rui works at Atelier Norte". */
  sentence: string;
  valid_from: string | null;
  valid_to: string | null;
  current: boolean;
  /** The relation that ended this one (a newer fact contradicted it). */
  ended_by: number | null;
  memory_ids: number[];
  turn_ids: number[];
  created_at: string;
}

export interface EntityPage {
  entity: Entity;
  relations_now: Relation[];
  relations_before: Relation[];
  memories: Array<{ id: number; content: string; category: string; entity: string; created_at: string }>;
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
  /** Up to 4 other phrasings, fused with the query into one ranking. */
  queries?: string[];
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}
