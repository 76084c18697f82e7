// The client against a live Gaia server (tests/clients/test_typescript_client.py starts
// one and passes GAIA_TEST_URL, a person's GAIA_TEST_TOKEN and an app's
// GAIA_TEST_APP_TOKEN). Every call of the client is made once, as an agent would.
import assert from "node:assert/strict";
import { test } from "node:test";

import { jsonSchema, tool } from "ai";

import { MemoryClient, NotFoundError, memoryTools } from "../dist/index.js";

function required(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run through tests/clients/test_typescript_client.py`);
  return value;
}

const baseUrl = required("GAIA_TEST_URL");
const memory = new MemoryClient({ baseUrl, token: required("GAIA_TEST_TOKEN") });
const app = new MemoryClient({ baseUrl, token: required("GAIA_TEST_APP_TOKEN") });

test("memories: remember, recall with options, list with where, update, history, forget", async () => {
  const tea = await memory.remember("Prefers green tea in the afternoon", {
    category: "preference",
    metadata: { source: "chat", strength: 3 },
  });
  assert.equal(tea.outcome, "new");
  const porto = await memory.remember("Lives in Porto near the river", { metadata: { source: "email" } });
  const again = await memory.remember("Prefers green tea in the afternoon", { category: "preference" });
  assert.equal(again.id, tea.id);
  assert.equal(again.outcome, "deduplicated");

  const hits = await memory.recall("what does the user drink", { top_k: 1, min_relevance: 0 });
  assert.deepEqual(hits.map((h) => h.id), [tea.id]);
  const byMeta = await memory.recall("where does the user live or what do they drink", {
    min_relevance: 0,
    where: { metadata: { source: "email" } },
  });
  assert.deepEqual(byMeta.map((h) => h.id), [porto.id]);
  const page = await memory.memories({ where: { NOT: { categories: { in: ["preference"] } } } });
  assert.deepEqual(page.results.map((m) => m.id), [porto.id]);

  const changed = await memory.update(tea.id, { content: "Prefers jasmine tea in the afternoon", reason: "corrected" });
  assert.equal(changed.content, "Prefers jasmine tea in the afternoon");
  const versions = await memory.history(tea.id);
  assert.deepEqual(versions.map((v) => v.content), [
    "Prefers jasmine tea in the afternoon",
    "Prefers green tea in the afternoon",
  ]);
  await memory.forget(porto.id);
  await assert.rejects(memory.get(porto.id), NotFoundError);
});

test("turns, conversation search and tool calls", async () => {
  const turn = await memory.logTurn({ session_id: "ts-1", role: "user", content: "I booked the Lisbon flight for May" });
  assert.equal(turn.session_id, "ts-1");
  const turns = await memory.logTurns([
    { session_id: "ts-1", role: "assistant", content: "Noted: the flight is in May." },
    { session_id: "ts-1", role: "user", content: "The hotel is near Alfama" },
  ]);
  assert.deepEqual(turns.map((t) => t.role), ["assistant", "user"]);
  const found = await memory.searchConversations("Lisbon flight", { session_id: "ts-1", min_relevance: 0 });
  assert.ok(found.some((t) => t.id === turn.id));

  const failed = await memory.logToolCall("book_hotel", {
    args: { city: "Lisbon" },
    success: false,
    error: "TimeoutError: the booking API did not answer",
    session_id: "ts-1",
  });
  assert.equal(failed.success, false);
  const calls = await memory.toolCalls({ tool_name: "book_hotel", success: false });
  assert.deepEqual(calls.map((c) => c.id), [failed.id]);
});

test("prompt blocks, the tool list and a tool call", async () => {
  const prompt = await memory.systemPrompt();
  assert.match(prompt, /jasmine tea/);
  assert.equal(typeof (await memory.dynamicContext()), "string");
  const names = (await memory.tools()).map((t) => t.function.name);
  assert.ok(names.includes("recall") && names.includes("remember"), names.join(","));
  const called = await memory.callTool("recall", { query: "tea" });
  assert.equal(called.ok, true);
  const bad = await memory.callTool("recall", { qurey: "tea" });
  assert.equal(bad.ok, false);
});

test("graph: entities and relations", async () => {
  const rui = await memory.addEntity("Rui", { kind: "person", aliases: ["Rui Costa"] });
  const relation = await memory.relate("me", "partner_of", rui.id);
  const now = await memory.relations({ entity: rui.id, current: true });
  assert.deepEqual(now.map((r) => r.id), [relation.id]);
  const page = await memory.entity(rui.id);
  assert.equal(page.entity.name, "Rui");
  await memory.endRelation(relation.id);
  assert.deepEqual(await memory.relations({ entity: rui.id, current: true }), []);
  assert.ok((await memory.entities({ q: "Rui" })).some((e) => e.id === rui.id));
});

test("an app's people: each one's memory is theirs alone", async () => {
  await app.people.create("ana@example.com", { plan: "pro" });
  await app.people.create("bea@example.com");
  const ana = app.forPerson("ana@example.com");
  const bea = app.forPerson("bea@example.com");
  await ana.remember("Ana plays the cello on Sundays");
  assert.deepEqual((await ana.recall("cello", { min_relevance: 0 })).map((h) => h.content), [
    "Ana plays the cello on Sundays",
  ]);
  assert.deepEqual(await bea.recall("cello", { min_relevance: 0 }), []);
  assert.equal((await app.people.get("ana@example.com")).metadata.plan, "pro");
  const token = await app.people.issueToken("ana@example.com", "cello-coach");
  const own = new MemoryClient({ baseUrl, token: token.secret });
  assert.equal((await own.memories()).count, 1);
  await app.people.erase("ana@example.com");
  await assert.rejects(app.people.get("ana@example.com"), NotFoundError);
});

test("tool definitions run through the Vercel AI SDK's tool()", async () => {
  const defs = await memoryTools(memory);
  const tools = Object.fromEntries(
    Object.entries(defs).map(([name, d]) => [name, tool({ ...d, inputSchema: jsonSchema(d.inputSchema) })]),
  );
  assert.ok(tools.recall && tools.remember);
  const stored = await tools.remember.execute({ content: "Runs along the river every Saturday" }, { toolCallId: "1", messages: [] });
  assert.equal(stored.content, "Runs along the river every Saturday");
  const recalled = await tools.recall.execute({ query: "what does the user do on Saturdays" }, { toolCallId: "2", messages: [] });
  assert.ok(JSON.stringify(recalled).includes("Runs along the river every Saturday"), JSON.stringify(recalled));
  const refused = await tools.recall.execute({ top_k: 3 }, { toolCallId: "3", messages: [] });
  assert.ok(refused.error.fields.query, JSON.stringify(refused));
});
