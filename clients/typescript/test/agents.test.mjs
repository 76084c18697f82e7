// What an agent does with the client beyond remember and recall, against a live server
// (tests/clients/test_typescript_client.py passes GAIA_TEST_URL and GAIA_TEST_AGENT_TOKEN,
// the token of another person than live.test.mjs's, whose agent may take the type
// GAIA_TEST_AGENT_TYPE, and who has a diary note about repainting a boat's hull): list and
// forget by scope with a dry run, restore, phrasings and what time was read, the diary
// notes of a message, its reflection as a proposed skill, its agents, the graph's aliases,
// merge and split, and the same tools through the AI SDK.
import assert from "node:assert/strict";
import { test } from "node:test";

import { jsonSchema, tool } from "ai";

import { MemoryClient, NotFoundError, memoryTools } from "../dist/index.js";

function required(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run through tests/clients/test_typescript_client.py`);
  return value;
}

const memory = new MemoryClient({ baseUrl: required("GAIA_TEST_URL"), token: required("GAIA_TEST_AGENT_TOKEN") });
const run = { toolCallId: "1", messages: [] };

test("list, forget by scope with a dry run and counts, restore", async () => {
  const review = await memory.remember("Sprint review on Fridays at 15:00", { context: "work" });
  const standup = await memory.remember("Standup at 9:30 in the small room", { context: "work" });
  const tea = await memory.remember("Likes rooibos tea after dinner", { category: "preference" });

  const work = await memory.listMemories({ context: "work", page_size: 1 });
  assert.equal(work.count, 2);
  assert.equal(work.results.length, 1);
  assert.ok(work.next, "a second page");

  const counted = await memory.forgetMatching({ context: "work", dry_run: true });
  assert.deepEqual(counted, { forgotten: 2, dry_run: true, ids: [review.id, standup.id].sort((a, b) => a - b) });
  assert.equal((await memory.listMemories({ context: "work" })).count, 2);

  const gone = await memory.forgetMatching({ context: "work" });
  assert.equal(gone.forgotten, 2);
  await assert.rejects(memory.get(review.id), (error) => {
    assert.ok(error instanceof NotFoundError);
    assert.match(error.requestId, /^[0-9a-f]{32}$/); // the id the server logged it under
    return true;
  });
  const kept = await memory.listMemories({ include_forgotten: true, context: "work" });
  assert.ok(kept.results.every((m) => m.forgotten_at), JSON.stringify(kept.results));

  const back = await memory.restore(review.id);
  assert.equal(back.content, "Sprint review on Fridays at 15:00");
  assert.deepEqual((await memory.listMemories({ context: "work" })).results.map((m) => m.id), [review.id]);

  const byCategory = await memory.forgetMatching({ categories: ["preference"], older_than: "30d", dry_run: true });
  assert.equal(byCategory.forgotten, 0); // stored just now: not older than 30 days
  assert.equal((await memory.get(tea.id)).id, tea.id);
  await assert.rejects(memory.forgetMatching({}), (error) => error.status === 400);
});

test("phrasings fused with the query, and the time the query named", async () => {
  const ferry = await memory.remember("Takes the 7:40 ferry to Barreiro on weekdays");
  const hits = await memory.recall("how do I get to the office", {
    queries: ["commute by boat across the river", "ferry to Barreiro"],
    min_relevance: 0,
  });
  assert.equal(hits[0].id, ferry.id);
  assert.equal(hits.time_read, null);
  assert.equal(typeof hits.judged, "boolean");

  await memory.logTurn({ session_id: "ts-commute", role: "user", content: "The ferry was late again this morning" });
  const said = await memory.searchConversations("what did I say about the ferry yesterday", {
    queries: ["ferry late"],
  });
  assert.equal(said.time_read.said, "yesterday", JSON.stringify(said.time_read));
  assert.ok(said.time_read.from < said.time_read.to);
});

test("the diary notes that bear on the user's message, in the per-turn context", async () => {
  const plain = await memory.dynamicContext({ query: "which colour for the boat hull?" });
  assert.ok(!plain.includes("antifouling"), plain);
  const noted = await memory.dynamicContext({ query: "which colour for the boat hull?", notes: 2 });
  assert.match(noted, /antifouling blue/);
  assert.equal(typeof (await memory.dynamicContext("global", 7)), "string"); // the older form
});

test("an agent's reflection becomes a proposed skill once the agent has a type", async () => {
  await memory.logTurn({ session_id: "ts-run-1", role: "user", content: "Forward the March invoice to accounting" });
  const untyped = await memory.proposeSkill("ts-run-1", "When the user asks to forward an invoice", "Search it, forward it.");
  assert.equal(untyped.ok, false);
  assert.equal(untyped.error.code, "no_agent_type");

  const [me] = await memory.agents();
  assert.equal(me.current, true);
  const typed = await memory.updateAgent(me.id, { agent_type: required("GAIA_TEST_AGENT_TYPE") });
  assert.equal(typed.agent_type, required("GAIA_TEST_AGENT_TYPE"));
  const proposed = await memory.proposeSkill(
    "ts-run-1",
    "When the user asks to forward an invoice to accounting",
    "Search the invoice by month, forward it to the accounting address, confirm.",
    { tools_used: ["GMAIL_SEARCH_MESSAGES", "GMAIL_FORWARD"], gotchas: "Attach the PDF, not a link." },
  );
  assert.equal(proposed.ok, true, JSON.stringify(proposed.error));
  assert.deepEqual(proposed.result, { outcome: "proposed", review: true });
  assert.deepEqual(await memory.recallSkills("forward an invoice"), []); // not reviewed yet
});

test("graph: aliases, merge and split", async () => {
  const rui = await memory.addEntity("Rui", { kind: "person" });
  const named = await memory.entityAliases(rui.id, { add: ["Rui Costa"] });
  assert.ok(named.entity.aliases.includes("Rui Costa"));
  const costa = await memory.addEntity("R. Costa", { kind: "person" });
  const merged = await memory.mergeEntities(rui.id, costa.id);
  assert.ok(merged.aliases.includes("R. Costa"), JSON.stringify(merged));
  const split = await memory.splitEntity(rui.id, "Rui Senior", { aliases: ["R. Costa"] });
  assert.equal(split.name, "Rui Senior");
  const lives = await memory.relate("me", "lives_in", "Porto", { object_kind: "place" });
  const moved = await memory.relate("me", "lives_in", "Lisbon", { object_kind: "place" });
  const ended = (await memory.relations({ current: false })).find((r) => r.id === lives.id);
  assert.equal(ended.ended_by, moved.id);
});

test("list_memories and forget as AI SDK tools", async () => {
  await memory.remember("Parking spot is B12 at the office garage", { context: "commute" });
  const defs = await memoryTools(memory);
  const tools = Object.fromEntries(
    Object.entries(defs).map(([name, d]) => [name, tool({ ...d, inputSchema: jsonSchema(d.inputSchema) })]),
  );
  for (const name of ["list_memories", "forget", "propose_skill", "recall_skills"]) assert.ok(tools[name], name);
  const listed = await tools.list_memories.execute({ context: "commute" }, run);
  assert.deepEqual(listed.results.map((m) => m.content), ["Parking spot is B12 at the office garage"]);
  const counted = await tools.forget.execute({ context: "commute", dry_run: true }, run);
  assert.equal(counted.count, 1);
  assert.equal(counted.forgotten, false);
  const gone = await tools.forget.execute({ context: "commute" }, run);
  assert.equal(gone.count, 1);
  assert.equal((await tools.list_memories.execute({ context: "commute" }, run)).count, 0);
  const refused = await tools.forget.execute({ scope: "commute" }, run);
  assert.equal(refused.error.code, "invalid_arguments", JSON.stringify(refused));
});
