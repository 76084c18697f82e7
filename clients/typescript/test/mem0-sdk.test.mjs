// mem0's own TypeScript SDK (npm mem0ai, its platform MemoryClient) against /mem0 of a
// live server: the core calls a migrating app makes, and a second app that sees nothing.
// Run by tests/clients/test_typescript_client.py with MEM0_TELEMETRY=false (mem0's SDK
// reports usage to PostHog otherwise) and two app tokens.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MemoryClient } from "mem0ai";

function required(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run through tests/clients/test_typescript_client.py`);
  return value;
}

assert.equal(process.env.MEM0_TELEMETRY, "false");
const host = `${required("GAIA_TEST_URL")}/mem0`;
const client = new MemoryClient({ apiKey: required("GAIA_TEST_APP_TOKEN"), host });
const other = new MemoryClient({ apiKey: required("GAIA_TEST_OTHER_APP_TOKEN"), host });

test("mem0's TypeScript SDK makes the core calls against /mem0", async () => {
  await client.ping(); // rejects on a refused key
  const added = await client.add(
    [
      { role: "user", content: "Maria studies organic chemistry in Porto" },
      { role: "user", content: "Maria prefers lessons in the evening" },
    ],
    { userId: "maria-ts", agentId: "chem-tutor", metadata: { course: "chem-101" }, infer: false },
  );
  assert.deepEqual(added.results.map((m) => m.event), ["ADD", "ADD"]);
  const [first, second] = added.results.map((m) => m.id);

  const found = await client.search("what does maria study", { filters: { user_id: "maria-ts" }, topK: 1 });
  assert.deepEqual(found.results.map((m) => m.memory), ["Maria studies organic chemistry in Porto"]);
  const filtered = await client.search("maria", {
    filters: { AND: [{ user_id: "maria-ts" }, { NOT: { keywords: { icontains: "chemistry" } } }] },
    threshold: 0,
  });
  assert.deepEqual(filtered.results.map((m) => m.id), [second]);
  const page = await client.getAll({ filters: { user_id: "maria-ts" }, page: 1, pageSize: 10 });
  assert.equal(page.count, 2);

  const got = await client.get(first);
  assert.equal(got.memory, "Maria studies organic chemistry in Porto");
  assert.equal(got.agentId, "chem-tutor");
  const changed = await client.update(first, { text: "Maria studies biochemistry in Porto" });
  assert.equal(changed.memory, "Maria studies biochemistry in Porto");
  const history = await client.history(first);
  assert.deepEqual(history.map((h) => h.event), ["ADD", "UPDATE"]);
  const users = await client.users();
  assert.ok(users.results.some((e) => e.type === "user" && e.name === "maria-ts"));

  const theirs = await other.search("chemistry", { filters: { user_id: "maria-ts" }, threshold: 0 });
  assert.deepEqual(theirs.results, []);
  assert.equal((await other.getAll({ filters: { user_id: "maria-ts" } })).count, 0);
  await assert.rejects(other.get(first), (e) => e.name === "MemoryNotFoundError" || /404/.test(String(e)));

  assert.deepEqual(await client.delete(first), { message: "Memory deleted successfully!" });
  await assert.rejects(client.get(first));
  const erased = await client.deleteAll({ userId: "maria-ts" });
  assert.equal(erased.deleted, 1);
  await client.deleteUser({ entity_id: "maria-ts", entity_type: "user" });
  assert.ok(!(await client.users()).results.some((e) => e.name === "maria-ts"));
  await client.add([{ role: "user", content: "Joana plays the oboe" }], { userId: "joana-ts", infer: false });
  assert.deepEqual(await client.deleteUsers({ userId: "joana-ts" }), { message: "Entity deleted successfully." });
  assert.ok(!(await client.users()).results.some((e) => e.name === "joana-ts"));
});
