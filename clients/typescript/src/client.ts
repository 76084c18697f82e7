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

import { GraphCalls } from "./graph.js";
import { Call, Connection, ConnectionOptions } from "./transport.js";
import type {
  Agent,
  ConversationSearchOptions,
  DynamicContextOptions,
  ForgetResult,
  ForgetScope,
  Found,
  Json,
  ListOptions,
  Memory,
  NewPersonToken,
  Page,
  Person,
  RecallHit,
  RecallOptions,
  Reflection,
  RememberOptions,
  SkillHit,
  ToolCallInput,
  ToolCallRecord,
  ToolResult,
  ToolSchema,
  Turn,
  TurnHit,
  TurnInput,
  UpdateOptions,
} from "./types.js";
import { given, query, seg } from "./values.js";

export const TURN_MAX_CHARS = 100_000; // the server refuses longer turns

interface SearchAnswer<T> {
  results: T[];
  time_read?: Found<T>["time_read"];
  judged?: boolean;
  judge_note?: string;
}

/**
 * The hits as an array that also carries what the server read of the query (as
 * properties that are not enumerable: the array compares and serialises as its hits).
 */
function found<T>(answer: SearchAnswer<T>): Found<T> {
  const read = { time_read: answer.time_read ?? null, judged: answer.judged ?? false, judge_note: answer.judge_note ?? "" };
  const hits = [...answer.results];
  for (const [key, value] of Object.entries(read)) Object.defineProperty(hits, key, { value, enumerable: false });
  return hits as Found<T>;
}

export class MemoryClient extends GraphCalls {
  /** The app's people (with an app token). */
  readonly people: People;

  constructor(options: ConnectionOptions = {}) {
    super(new Connection(options));
    this.people = new People(this.connection);
  }

  /** A client for one of the app's people (an app token acts for them). */
  forPerson(userId: string): MemoryClient {
    return new MemoryClient(this.connection.withUser(userId));
  }

  get apiUrl(): string {
    return this.connection.apiUrl;
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

  /**
   * Search memory (hybrid recall), best first. `judge: false` takes the fast path; `where`
   * filters the items before ranking; `queries`: up to 4 other phrasings of the question.
   * A time in the query ("yesterday") narrows the search: the answer's `time_read` says
   * what was read.
   */
  async recall(text: string, options: RecallOptions = {}): Promise<Found<RecallHit>> {
    const body = given({ query: text, ...options });
    return found(await this.send<SearchAnswer<RecallHit>>({ method: "POST", path: "memories/search/", body }));
  }

  /** One page of memories, newest change first, under the listing filters. */
  memories(options: ListOptions = {}): Promise<Page<Memory>> {
    return this.send({ method: "GET", path: "memories/", query: query({ ...options }) });
  }

  /**
   * One page of stored memories under the filters, newest change first, as an agent
   * lists them (`{ results, count, next }`); the same call as `memories`.
   */
  listMemories(options: ListOptions = {}): Promise<Page<Memory>> {
    return this.memories(options);
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

  /** Forget a memory (soft: it can be restored, here with `restore` or in the web app). */
  forget(memoryId: number): Promise<Memory> {
    return this.send({ method: "DELETE", path: `memories/${seg(memoryId)}/` });
  }

  /**
   * Forget every active memory matching all the given filters: a scope (`context`,
   * `entity`), an age (`older_than`: "30d", "6m") and `categories`. `dry_run: true` only
   * counts. Each forgotten memory can be brought back with `restore(id)`.
   */
  forgetMatching(scope: ForgetScope): Promise<ForgetResult> {
    return this.send({ method: "POST", path: "memories/forget/", body: given({ ...scope }) });
  }

  /** Bring a forgotten memory back exactly as it was. */
  restore(memoryId: number): Promise<Memory> {
    return this.send({ method: "POST", path: `memories/${seg(memoryId)}/restore/` });
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

  /**
   * Search logged turns by keywords, a time range, or both (`queries`: up to 4 other
   * phrasings). The answer's `time_read` says what time the query named.
   */
  async searchConversations(text?: string, options: ConversationSearchOptions = {}): Promise<Found<TurnHit>> {
    const body = given({ query: text, ...options });
    return found(await this.send<SearchAnswer<TurnHit>>({ method: "POST", path: "conversations/search/", body }));
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

  /**
   * The per-turn context (time, due items) to put before the user's message; with
   * `notes` and the message as `query`, that many diary notes of earlier conversations
   * that bear on it. Takes the options, or (as before) `context` and `days`.
   */
  async dynamicContext(options: DynamicContextOptions | string = {}, days?: number): Promise<string> {
    const asked = typeof options === "string" ? { context: options, days } : { days, ...options };
    const answer = await this.send<{ context: string }>({ method: "GET", path: "prompt/context/", query: query(asked) });
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

  /**
   * Document, at the end of a run, a procedure this agent learned in `sessionId` (its
   * self-reflection): scrubbed of personal details and reviewed by staff; needs an agent of
   * a registered type. `result.outcome` says proposed, validated, known, ...; a refusal is
   * `ok: false` with `error.code` (such as `no_agent_type`).
   */
  proposeSkill(sessionId: string, trigger: string, procedure: string, reflection: Reflection = {}): Promise<ToolResult> {
    return this.callTool("propose_skill", { session_id: sessionId, trigger, procedure, ...given({ ...reflection }) });
  }

  /** Procedures agents of this token's agent type learned, best first (empty without a type). */
  async recallSkills(text: string, options: { top_k?: number; min_relevance?: number } = {}): Promise<SkillHit[]> {
    const answer = await this.send<{ results: SkillHit[] }>({ method: "POST", path: "skills/search/", body: given({ query: text, ...options }) });
    return answer.results;
  }

  /** The user's agents (`current` marks the one this token acts as). */
  async agents(): Promise<Agent[]> {
    const answer = await this.send<Page<Agent>>({ method: "GET", path: "agents/" });
    return answer.results;
  }

  /** Change an agent's default context (where writes naming none go), description or type. */
  updateAgent(agentId: number, change: { default_context?: string; description?: string; agent_type?: string }): Promise<Agent> {
    return this.send({ method: "PATCH", path: `agents/${seg(agentId)}/`, body: given({ ...change }) });
  }

  /** Atomic facts of a text (store: true remembers them); needs the server's language model. */
  extract(text: string, options: { store?: boolean; context?: string } = {}): Promise<Record<string, Json>> {
    return this.send({ method: "POST", path: "memories/extract/", body: given({ text, ...options }) });
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
