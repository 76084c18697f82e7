/**
 * MemoryClient: the Gaia Memory Server's agent API, the same calls as the Python client
 * (`gaia_memory.MemoryClient`). Every method returns a Promise; error answers reject with
 * a `GaiaError` subclass (./errors.js).
 *
 *     const memory = new MemoryClient({ baseUrl: "http://127.0.0.1:8000", token: "gaia_..." });
 *     await memory.remember("Prefers concise answers", { category: "preference" });
 *     for (const hit of await memory.recall("how does the user like answers")) console.log(hit.content);
 *
 * With an app token, `memory.people` manages the app's people and `memory.forPerson(id)`
 * is a client acting for one of them.
 */

import { Call, Connection, ConnectionOptions } from "./transport.js";
import type {
  ConversationSearchOptions,
  Json,
  ListOptions,
  Memory,
  NewPersonToken,
  Page,
  Person,
  RecallHit,
  RecallOptions,
  RememberOptions,
  ToolCallInput,
  ToolCallRecord,
  ToolResult,
  ToolSchema,
  Turn,
  TurnHit,
  TurnInput,
  UpdateOptions,
  When,
} from "./types.js";

export const TURN_MAX_CHARS = 100_000; // the server refuses longer turns

type Values = Record<string, unknown>;

/** The values that were given (not undefined), times as ISO 8601. */
export function given(values: Values): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    out[key] = (value instanceof Date ? value.toISOString() : value) as Json;
  }
  return out;
}

function query(values: Values): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(given(values))) {
    out[key] = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  }
  return out;
}

const seg = (value: string | number) => encodeURIComponent(String(value));

export class MemoryClient {
  protected readonly connection: Connection;
  /** The app's people (with an app token). */
  readonly people: People;

  constructor(options: ConnectionOptions = {}) {
    this.connection = new Connection(options);
    this.people = new People(this.connection);
  }

  /** A client for one of the app's people (an app token acts for them). */
  forPerson(userId: string): MemoryClient {
    return new MemoryClient(this.connection.withUser(userId));
  }

  get apiUrl(): string {
    return this.connection.apiUrl;
  }

  protected send<T>(call: Call): Promise<T> {
    return this.connection.send<T>(call);
  }

  // Memories -----------------------------------------------------------------------

  /** Store one memory; `outcome` says new, deduplicated or conflict. */
  remember(content: string, options: RememberOptions = {}): Promise<Memory> {
    return this.send({ method: "POST", path: "memories/", body: given({ content, ...options }) });
  }

  /** Store several memories in order, all or nothing (at most 1000). */
  rememberMany(entries: Array<RememberOptions & { content: string }>): Promise<Memory[]> {
    return this.send({ method: "POST", path: "memories/", body: entries.map((e) => given({ ...e })), batch: true });
  }

  /** Search memory (hybrid recall), best first. `judge: false` takes the fast path. */
  async recall(text: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    const body = given({ query: text, ...options });
    const answer = await this.send<{ results: RecallHit[] }>({ method: "POST", path: "memories/search/", body });
    return answer.results;
  }

  /** One page of memories, newest change first, under the listing filters. */
  memories(options: ListOptions = {}): Promise<Page<Memory>> {
    return this.send({ method: "GET", path: "memories/", query: query({ ...options }) });
  }

  get(memoryId: number): Promise<Memory> {
    return this.send({ method: "GET", path: `memories/${seg(memoryId)}/` });
  }

  /** Change the given fields (`reminded_at: "now"` after a reminder); the old text is kept. */
  update(memoryId: number, options: UpdateOptions): Promise<Memory> {
    return this.send({ method: "PATCH", path: `memories/${seg(memoryId)}/`, body: given({ ...options }) });
  }

  /** What a memory says now, then each earlier version, newest first. */
  async history(memoryId: number): Promise<Array<Record<string, Json>>> {
    const answer = await this.send<{ results: Array<Record<string, Json>> }>({
      method: "GET",
      path: `memories/${seg(memoryId)}/history/`,
    });
    return answer.results;
  }

  /** Forget a memory (soft: the person can restore it in the web app). */
  forget(memoryId: number): Promise<Memory> {
    return this.send({ method: "DELETE", path: `memories/${seg(memoryId)}/` });
  }

  // Conversations and tool calls ----------------------------------------------------

  /** Log one conversation turn (the session is created on first use). */
  logTurn(turn: TurnInput): Promise<Turn> {
    const body = given({ ...turn, content: turn.content.slice(0, TURN_MAX_CHARS) });
    return this.send({ method: "POST", path: "conversations/turns/", body });
  }

  /** Log several turns in one request, in order, all or nothing (waits up to 600 s). */
  logTurns(turns: TurnInput[]): Promise<Turn[]> {
    const body = turns.map((t) => given({ ...t, content: t.content.slice(0, TURN_MAX_CHARS) }));
    return this.send({ method: "POST", path: "conversations/turns/", body, batch: true });
  }

  /** Search logged turns by keywords, a time range, or both. */
  async searchConversations(text?: string, options: ConversationSearchOptions = {}): Promise<TurnHit[]> {
    const body = given({ query: text, ...options });
    const answer = await this.send<{ results: TurnHit[] }>({ method: "POST", path: "conversations/search/", body });
    return answer.results;
  }

  /** Log a call of one of the agent's own tools; a failure becomes an error lesson. */
  logToolCall(toolName: string, call: ToolCallInput = {}): Promise<ToolCallRecord> {
    const args = call.args;
    const wrapped = args === undefined || args === null || typeof args === "object" ? args : { value: args };
    const body = given({ tool_name: toolName, ...call, args: wrapped, success: call.success ?? true });
    return this.send({ method: "POST", path: "tool-calls/", body });
  }

  /** The latest logged tool calls (one page, newest first). */
  async toolCalls(filter: { session_id?: string; tool_name?: string; success?: boolean } = {}): Promise<ToolCallRecord[]> {
    const answer = await this.send<{ results: ToolCallRecord[] }>({
      method: "GET",
      path: "tool-calls/",
      query: query({ ...filter }),
    });
    return answer.results;
  }

  // Prompt blocks --------------------------------------------------------------------

  /** The stable memory block for the system prompt (identical while memory is). */
  async systemPrompt(context?: string): Promise<string> {
    const answer = await this.send<{ prompt: string }>({ method: "GET", path: "prompt/system/", query: query({ context }) });
    return answer.prompt;
  }

  /** The per-turn context (time, due items) to put before the user's message. */
  async dynamicContext(context?: string, days?: number): Promise<string> {
    const answer = await this.send<{ context: string }>({
      method: "GET",
      path: "prompt/context/",
      query: query({ context, days }),
    });
    return answer.context;
  }

  // Tools ---------------------------------------------------------------------------

  /** The memory tools as OpenAI function-calling schemas. */
  async tools(): Promise<ToolSchema[]> {
    const answer = await this.send<{ tools: ToolSchema[] }>({ method: "GET", path: "tools/" });
    return answer.tools;
  }

  /** Run a model's call of a memory tool; a bad call is `ok: false`, not a rejection. */
  callTool(name: string, args: Record<string, unknown> | string = {}): Promise<ToolResult> {
    return this.send({ method: "POST", path: "tools/call/", body: { name, arguments: args } });
  }

  /** Atomic facts of a text (store: true remembers them); needs the server's language model. */
  extract(text: string, options: { store?: boolean; context?: string } = {}): Promise<Record<string, Json>> {
    return this.send({ method: "POST", path: "memories/extract/", body: given({ text, ...options }) });
  }

  // Graph ---------------------------------------------------------------------------

  async entities(filter: { kind?: string; q?: string } = {}): Promise<Array<Record<string, Json>>> {
    const answer = await this.send<Page<Record<string, Json>>>({
      method: "GET",
      path: "graph/entities/",
      query: query({ ...filter }),
    });
    return answer.results;
  }

  entity(entityId: number): Promise<Record<string, Json>> {
    return this.send({ method: "GET", path: `graph/entities/${seg(entityId)}/` });
  }

  addEntity(name: string, options: { kind?: string; aliases?: string[] } = {}): Promise<Record<string, Json>> {
    return this.send({ method: "POST", path: "graph/entities/", body: given({ name, ...options }) });
  }

  async relations(filter: { entity?: number; current?: boolean } = {}): Promise<Array<Record<string, Json>>> {
    const answer = await this.send<Page<Record<string, Json>>>({
      method: "GET",
      path: "graph/relations/",
      query: query({ ...filter }),
    });
    return answer.results;
  }

  /** `subject` `type` `object` ("me", "partner_of", "Rui"): each end an entity id or a name. */
  relate(
    subject: number | string,
    type: string,
    object: number | string,
    options: { subject_kind?: string; object_kind?: string; valid_from?: When; memory_ids?: number[]; turn_ids?: number[] } = {},
  ): Promise<Record<string, Json>> {
    return this.send({ method: "POST", path: "graph/relations/", body: given({ subject, type, object, ...options }) });
  }

  /** The relation stopped holding (now, or `at`); it is kept with its end. */
  endRelation(relationId: number, at?: When): Promise<Record<string, Json>> {
    return this.send({ method: "POST", path: `graph/relations/${seg(relationId)}/end/`, body: given({ at }) });
  }

  /** The server's health (needs no token). */
  health(): Promise<Record<string, Json>> {
    return this.send({ method: "GET", path: "health/" });
  }
}

/** An app's own endpoints (an app token): its people and the tokens it issues them. */
export class People {
  constructor(private readonly connection: Connection) {}

  private send<T>(call: Call): Promise<T> {
    return this.connection.send<T>(call);
  }

  /** Create a person (an existing one is answered unchanged). */
  create(userId: string, metadata?: Record<string, Json>): Promise<Person> {
    return this.send({ method: "POST", path: "people/", body: given({ user_id: userId, metadata }) });
  }

  list(page?: number): Promise<Page<Person>> {
    return this.send({ method: "GET", path: "people/", query: query({ page }) });
  }

  get(userId: string): Promise<Person> {
    return this.send({ method: "GET", path: `people/${seg(userId)}/` });
  }

  /** Erase the person: everything of theirs, then the account; answers the counts. */
  erase(userId: string): Promise<Record<string, number>> {
    return this.send({ method: "DELETE", path: `people/${seg(userId)}/` });
  }

  /** Issue a token for the person's own agent (`secret` is shown only now). */
  issueToken(userId: string, name: string, agent?: string): Promise<NewPersonToken> {
    return this.send({ method: "POST", path: `people/${seg(userId)}/tokens/`, body: given({ name, agent }) });
  }
}
