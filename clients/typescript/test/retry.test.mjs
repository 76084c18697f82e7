// Retries and errors against a real local HTTP server (node:http) that answers 429, 503
// and 401 as the Gaia server does: no live Gaia server needed.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import {
  AuthenticationError,
  GaiaConnectionError,
  MemoryClient,
  RateLimitError,
  ServiceUnavailableError,
} from "../dist/index.js";

const seen = [];
let script = [];
let server;
let baseUrl;

function error(code, message) {
  return JSON.stringify({ error: { code, message } });
}

before(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      seen.push({ method: request.method, url: request.url, body, at: Date.now(), auth: request.headers.authorization });
      const [status, headers, text] = script.shift() ?? [500, {}, error("error", "script ran out")];
      response.writeHead(status, { "Content-Type": "application/json", ...headers });
      response.end(text);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}`;
});

after(() => new Promise((resolve) => server.close(resolve)));

const hit = { id: 7, content: "Prefers tea", score: 0.9, relevance: 0.9 };

test("a 429 is retried after the seconds its Retry-After names", async () => {
  seen.length = 0;
  script = [
    [429, { "Retry-After": "1" }, error("throttled", "Request was throttled.")],
    [200, {}, JSON.stringify({ results: [hit] })],
  ];
  const memory = new MemoryClient({ baseUrl, token: "gaia_t", retry: { baseDelayMs: 1 } });
  const hits = await memory.recall("tea");
  assert.deepEqual(hits.map((h) => h.id), [7]);
  assert.equal(seen.length, 2);
  assert.ok(seen[1].at - seen[0].at >= 950, "waited for Retry-After");
  assert.equal(seen[1].body, seen[0].body, "the same request again");
});

test("a 503 is retried with back-off, then its error is raised with the server's message", async () => {
  seen.length = 0;
  const busy = [503, {}, error("llm_unavailable", "The language model gave no usable answer (timeout).")];
  script = [busy, busy, busy];
  const memory = new MemoryClient({ baseUrl, token: "gaia_t", retry: { retries: 2, baseDelayMs: 20 } });
  await assert.rejects(memory.extract("notes"), (e) => {
    assert.ok(e instanceof ServiceUnavailableError);
    assert.equal(e.status, 503);
    assert.equal(e.code, "llm_unavailable");
    return true;
  });
  assert.equal(seen.length, 3);
});

test("a 503 that will not pass by waiting, and a Retry-After beyond the limit, are not retried", async () => {
  seen.length = 0;
  script = [[503, {}, error("llm_not_configured", "No language model is configured on this server.")]];
  const memory = new MemoryClient({ baseUrl, token: "gaia_t", retry: { maxDelayMs: 2000 } });
  await assert.rejects(memory.extract("notes"), ServiceUnavailableError);
  assert.equal(seen.length, 1);
  script = [[429, { "Retry-After": "3600" }, error("throttled", "Request was throttled.")]];
  await assert.rejects(memory.recall("tea"), (e) => e instanceof RateLimitError && e.retryAfter === 3600);
  assert.equal(seen.length, 2);
});

test("a 401 names GAIA_TOKEN and the header it is sent in", async () => {
  script = [[401, {}, error("not_authenticated", "Invalid token.")]];
  const memory = new MemoryClient({ baseUrl, token: "gaia_wrong" });
  await assert.rejects(memory.recall("tea"), (e) => {
    assert.ok(e instanceof AuthenticationError);
    assert.match(e.message, /^Invalid token\. .*GAIA_TOKEN.*Authorization: Bearer <token>/);
    return true;
  });
  assert.equal(seen.at(-1).auth, "Bearer gaia_wrong");
});

test("an app's client for one person sends user_id with every request", async () => {
  seen.length = 0;
  script = [[200, {}, JSON.stringify({ results: [] })], [201, {}, JSON.stringify({ id: 1, content: "x" })]];
  const app = new MemoryClient({ baseUrl, token: "gaia_app_t" });
  const ana = app.forPerson("ana@example.com");
  await ana.recall("tea");
  await ana.remember("x");
  assert.deepEqual(seen.map((s) => new URL(s.url, baseUrl).searchParams.get("user_id")), [
    "ana@example.com",
    "ana@example.com",
  ]);
});

test("a server that cannot be reached is a GaiaConnectionError naming it", async () => {
  const memory = new MemoryClient({ baseUrl: "http://127.0.0.1:9", token: "gaia_t", retry: { retries: 0 } });
  await assert.rejects(memory.recall("tea"), (e) => e instanceof GaiaConnectionError && /127\.0\.0\.1:9/.test(e.message));
});
