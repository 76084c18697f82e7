"""A bounded asyncio httpx load on loopback: weighted endpoints, latency percentiles,
spread over one or more servers with or without person affinity."""

import asyncio
import contextlib
import itertools
import random
import time
import zlib
from dataclasses import dataclass, field

import httpx

from bench.loadbench.seed import words
from bench.synthetic import TextSource

QUESTIONS = TextSource(9).questions(2000)
MIX = {"recall": 60, "remember": 20, "turns": 15, "list": 5}
WRITES = {"remember": 55, "turns": 45}  # --writes-only: every request a write
# Idle connections are dropped before gunicorn's keep-alive (2 s) closes them: reusing one
# the server was closing at that moment failed as ReadError or RemoteProtocolError (one in
# ~350 requests over four servers at 1,000 people, whose connections sat idle for seconds).
KEEPALIVE_EXPIRY = 1.0


@dataclass
class Results:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    samples: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    per_server: list[int] = field(default_factory=list)  # requests each server answered


def affinity_server(token: str, servers: int) -> int:
    """The server a person's requests go to with affinity: a CRC-32 of the whole
    Authorization header modulo the servers. The load-balancer recipe (docs/operating.md,
    person affinity) hashes the same header its own way: one token, one server."""
    return zlib.crc32(f"Bearer {token}".encode()) % servers


class Router:
    """Picks the server of each request: round robin (no affinity), or by the token."""

    def __init__(self, servers: int, affinity: bool) -> None:
        self.servers, self.affinity = servers, affinity
        self._turn = itertools.count()

    def pick(self, token: str) -> int:
        if self.affinity:
            return affinity_server(token, self.servers)
        return next(self._turn) % self.servers


def _request(kind: str, rng: random.Random) -> tuple[str, str, dict | None]:
    if kind == "recall":
        # Half in the words remembered during the load, half in those of bulk-seeded rows.
        query = words(rng, 3) if rng.random() < 0.5 else QUESTIONS[rng.randrange(len(QUESTIONS))]
        return "POST", "/api/v1/memories/search/", {"query": query, "top_k": 5}
    if kind == "remember":
        return "POST", "/api/v1/memories/", {"content": "User " + words(rng, 8)}
    if kind == "turns":
        body = {"session_id": f"bench{rng.randrange(20)}", "role": "assistant",
                "content": "Noted: " + words(rng, 10)}  # fmt: skip
        return "POST", "/api/v1/conversations/turns/", body
    return "GET", "/api/v1/memories/?page_size=20", None


async def _client(clients, router, tokens, deadline, results, seed, mix) -> None:
    rng = random.Random(seed)
    kinds, weights = list(mix), list(mix.values())
    while time.monotonic() < deadline:
        kind = rng.choices(kinds, weights)[0]
        method, path, body = _request(kind, rng)
        token = rng.choice(tokens)
        server = router.pick(token)
        results.per_server[server] += 1
        headers = {"Authorization": f"Bearer {token}"}
        started = time.perf_counter()
        try:
            response = await clients[server].request(method, path, json=body, headers=headers)
            ok = response.status_code in (200, 201)
            detail = f"{kind} {response.status_code} {response.text[:200]}"
        except httpx.HTTPError as error:
            ok, detail = False, f"{kind} {type(error).__name__}"
        results.latencies.setdefault(kind, []).append(time.perf_counter() - started)
        if not ok:
            results.errors[kind] = results.errors.get(kind, 0) + 1
            if len(results.samples) < 5:
                results.samples.append(detail)


async def run(
    urls: list[str],
    tokens: list[str],
    duration: float,
    concurrency: int,
    mix: dict | None = None,
    affinity: bool = False,
) -> Results:
    """`concurrency` clients for `duration` seconds, each request sent to the server the
    router picks among `urls` (the same seeds every run: both routings ask the same)."""
    results = Results(per_server=[0] * len(urls))
    router = Router(len(urls), affinity)
    limits = httpx.Limits(
        max_connections=concurrency,
        max_keepalive_connections=concurrency,
        keepalive_expiry=KEEPALIVE_EXPIRY,
    )
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, limits=limits, timeout=60)
            )
            for url in urls
        ]
        started = time.monotonic()
        deadline = started + duration
        await asyncio.gather(
            *(
                _client(clients, router, tokens, deadline, results, i, mix or MIX)
                for i in range(concurrency)
            )
        )
        results.elapsed = time.monotonic() - started
    return results


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def table(results: Results) -> list[str]:
    lines = [f"{'endpoint':<10}{'requests':>10}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}"
             f"{'p99 ms':>9}{'errors':>8}"]  # fmt: skip
    every: list[float] = []
    for kind in [*(k for k in MIX if k in results.latencies), "all"]:
        values = every if kind == "all" else results.latencies.get(kind, [])
        if kind != "all":
            every.extend(values)
        errors = sum(results.errors.values()) if kind == "all" else results.errors.get(kind, 0)
        rate = len(values) / results.elapsed if results.elapsed else 0.0
        lines.append(
            f"{kind:<10}{len(values):>10}{rate:>9.1f}"
            + "".join(f"{percentile(values, q) * 1000:>9.1f}" for q in (0.5, 0.95, 0.99))
            + f"{errors:>8}"
        )
    return lines
