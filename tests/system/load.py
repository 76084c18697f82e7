"""Client side of the system tests: a few API calls, markers that every search backend
tokenizes as one word, and a ledger of acknowledged writes."""

import threading
from dataclasses import dataclass, field

import httpx

LOCKED = "database is locked"
API = "/api/v1"


def marker(*numbers: int) -> str:
    """A letters-only word unique to the numbers, e.g. mkbqcdx (FTS5 and tsvector agree).

    It ends in x, which no stemmer strips: "mkbe" and "mkb" would share the Porter stem
    "mkb", and two entries differing only in them would say the same thing to dedup."""
    return "mk" + "q".join("".join("abcdefghij"[int(d)] for d in str(n)) for n in numbers) + "x"


@dataclass
class Ledger:
    items: dict[int, str] = field(default_factory=dict)  # acknowledged id -> content
    forgotten: set[int] = field(default_factory=set)
    turns: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (session, marker)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, response: httpx.Response, expected: int, what: str) -> bool:
        if response.status_code != expected or LOCKED in response.text:
            with self.lock:
                self.failures.append(f"{what}: {response.status_code} {response.text[:300]}")
            return False
        return True


def client(url: str, token: str) -> httpx.Client:
    return httpx.Client(
        base_url=url + API, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )


def drive(url: str, token: str, n: int, ops: int, ledger: Ledger) -> None:
    """`ops` requests of one client: remember (one, and batches), recall, turns, forget."""
    mine: list[int] = []
    with client(url, token) as http:
        for op in range(ops):
            word = marker(n, op)
            kind = op % 5
            if kind in (0, 1):
                batch = [
                    {"content": f"Note {word}{i} kw{word}a{i} kw{word}b{i} kw{word}c{i}"}
                    for i in range(1 if kind == 0 else 3)
                ]
                response = http.post("/memories/", json=batch[0] if kind == 0 else batch)
                if ledger.check(response, 201, f"remember {word}"):
                    body = response.json()
                    for row in body if isinstance(body, list) else [body]:
                        with ledger.lock:
                            ledger.items[row["id"]] = row["content"]
                        mine.append(row["id"])
            elif kind == 2 and mine:
                last = ledger.items[mine[-1]].split()[1]
                response = http.post("/memories/search/", json={"query": last, "top_k": 20})
                if ledger.check(response, 200, f"recall {last}"):
                    ids = [hit["id"] for hit in response.json()["results"]]
                    if mine[-1] not in ids:
                        ledger.failures.append(f"recall {last} missed {mine[-1]}: {ids}")
            elif kind == 3:
                turn = {"session_id": f"s{n}", "role": "user",
                        "content": f"I really enjoy {word} on weekends"}  # fmt: skip
                response = http.post("/conversations/turns/", json=turn)
                if ledger.check(response, 201, f"turn {word}"):
                    with ledger.lock:
                        ledger.turns[response.json()["id"]] = (f"s{n}", word)
            elif kind == 4 and mine:
                victim = mine.pop(0)
                response = http.delete(f"/memories/{victim}/")
                if ledger.check(response, 200, f"forget {victim}"):
                    with ledger.lock:
                        ledger.forgotten.add(victim)
            else:
                ledger.check(http.get("/memories/", params={"page_size": 5}), 200, "list")
