"""Drives mem0's own SDK (mem0ai, sync and async clients) against a live server and
prints what it saw as one JSON line. Run by test_mem0_sdk.py with the python of the mem0
virtualenv: it imports mem0 and the standard library only, nothing of the server.

argv[1]: {"phase": "everything" | "learned" | "filters", "host": ..., "key": ..., "other_key": ...}
"""

import asyncio
import json
import sys
from typing import Any

from mem0 import AsyncMemoryClient, MemoryClient


def raised(call: Any) -> dict[str, Any]:
    try:
        return {"returned": call()}
    except Exception as error:  # what the SDK turned the answer into
        return {"raised": type(error).__name__, "message": getattr(error, "message", str(error))}


async def araised(call: Any) -> dict[str, Any]:
    try:
        return {"returned": await call()}
    except Exception as error:
        return {"raised": type(error).__name__, "message": getattr(error, "message", str(error))}


def sync_session(host: str, key: str, other_key: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    client = MemoryClient(api_key=key, host=host)
    seen["ping"] = [client.org_id, client.project_id, client.user_email]
    seen["add_maria"] = client.add(
        [
            {"role": "user", "content": "Maria studies organic chemistry in Porto"},
            {"role": "user", "content": "Maria prefers lessons in the evening"},
        ],
        user_id="maria",
        agent_id="chem-tutor",
        run_id="lesson-1",
        metadata={"course": "chem-101"},
        infer=False,
    )
    seen["add_joao"] = client.add(
        "Joao studies medicine in Braga", filters={"user_id": "joao"}, infer=False
    )
    seen["add_inferred"] = client.add(
        [{"role": "user", "content": "I am moving to Lisbon next month for a new job"}],
        user_id="maria",
        run_id="chat-7",
    )
    seen["search"] = client.search("what does maria study", filters={"user_id": "maria"}, top_k=1)
    seen["search_or"] = client.search(
        "studies", filters={"OR": [{"user_id": "maria"}, {"user_id": "joao"}]}, threshold=0
    )
    seen["search_run"] = client.search(
        "lessons", filters={"AND": [{"user_id": "maria"}, {"run_id": "lesson-1"}]}, threshold=0
    )
    seen["search_unknown"] = client.search("studies", filters={"user_id": "nobody"})
    seen["get_all"] = client.get_all(filters={"user_id": "maria"}, page=1, page_size=1)
    first, second = (m["id"] for m in seen["add_maria"]["results"])
    seen["get"] = client.get(first)
    seen["update"] = client.update(first, text="Maria studies biochemistry in Porto")
    seen["update_metadata"] = client.update(first, metadata={"level": 2})
    seen["history"] = client.history(first)

    other = MemoryClient(api_key=other_key, host=host)
    seen["other"] = {
        "search": other.search("studies", filters={"user_id": "maria"}, threshold=0),
        "get_all": other.get_all(filters={"user_id": "maria"}),
        "users": other.users(),
        "get": raised(lambda: other.get(first)),
        "update": raised(lambda: other.update(first, text="changed by another app")),
        "history": raised(lambda: other.history(first)),
        "delete": raised(lambda: other.delete(first)),
        "batch_update": raised(lambda: other.batch_update([{"memory_id": first, "text": "x"}])),
        "batch_delete": raised(lambda: other.batch_delete([{"memory_id": first}])),
        "delete_all": other.delete_all(user_id="maria"),
        "delete_users": raised(lambda: other.delete_users(user_id="maria")),
    }
    seen["after_other"] = client.get(first)

    seen["batch_update"] = client.batch_update(
        [{"memory_id": second, "text": "Maria prefers lessons in the morning"}]
    )
    seen["get_second"] = client.get(second)
    seen["users"] = client.users()
    seen["feedback"] = raised(lambda: client.feedback(memory_id=first, feedback="POSITIVE"))
    seen["delete"] = client.delete(first)
    seen["get_deleted"] = raised(lambda: client.get(first))
    seen["batch_delete"] = client.batch_delete([{"memory_id": second}])
    seen["delete_all"] = client.delete_all(user_id="joao")
    seen["get_all_joao"] = client.get_all(filters={"user_id": "joao"})
    seen["delete_users"] = client.delete_users(user_id="maria")
    seen["users_after"] = client.users()
    seen["bad_key"] = raised(lambda: MemoryClient(api_key="gaia_app_not-a-key", host=host))
    return seen


async def async_session(host: str, key: str, other_key: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    client = AsyncMemoryClient(api_key=key, host=host)
    other = AsyncMemoryClient(api_key=other_key, host=host)
    seen["ping"] = [client.org_id, client.project_id]
    seen["add"] = await client.add(
        [
            {"role": "user", "content": "Ana learns the violin with Mr Costa"},
            {"role": "user", "content": "Ana practises scales every morning"},
        ],
        user_id="ana",
        agent_id="music-tutor",
        infer=False,
    )
    first, second = (m["id"] for m in seen["add"]["results"])
    seen["search"] = await client.search(
        "which instrument does ana learn", filters={"user_id": "ana"}, top_k=1
    )
    seen["search_agent"] = await client.search(
        "ana", filters={"AND": [{"user_id": "ana"}, {"agent_id": "music-tutor"}]}, threshold=0
    )
    seen["get_all"] = await client.get_all(filters={"user_id": "ana"})
    seen["get"] = await client.get(first)
    seen["update"] = await client.update(first, text="Ana learns the viola with Mr Costa")
    seen["history"] = await client.history(first)
    seen["other"] = {
        "search": await other.search("violin", filters={"user_id": "ana"}, threshold=0),
        "get_all": await other.get_all(filters={"user_id": "ana"}),
        "users": await other.users(),
        "get": await araised(lambda: other.get(first)),
        "delete": await araised(lambda: other.delete(first)),
        "batch_delete": await araised(lambda: other.batch_delete([{"memory_id": first}])),
    }
    seen["batch_update"] = await client.batch_update([{"memory_id": second, "metadata": {"k": 1}}])
    seen["users"] = await client.users()
    seen["delete"] = await client.delete(first)
    seen["get_deleted"] = await araised(lambda: client.get(first))
    seen["batch_delete"] = await client.batch_delete([{"memory_id": second}])
    await client.add("Ana has a recital in June", user_id="ana", infer=False)
    seen["delete_all"] = await client.delete_all(user_id="ana")
    seen["delete_users"] = await client.delete_users(user_id="ana")
    seen["users_after"] = await client.users()
    return seen


def learned_session(host: str, key: str) -> dict[str, Any]:
    client = MemoryClient(api_key=key, host=host)
    added = client.add(
        [{"role": "user", "content": "I am moving to Lisbon next month for a new job"}],
        user_id="rui",
        run_id="chat-1",
    )
    found = client.search("where is the user moving", filters={"user_id": "rui"}, threshold=0)
    return {"add": added, "search": found, "get_all": client.get_all(filters={"user_id": "rui"})}


def filters_session(host: str, key: str, other_key: str) -> dict[str, Any]:
    """mem0's v2 filters and dates, as a migrating app uses them."""
    client, other = MemoryClient(api_key=key, host=host), MemoryClient(api_key=other_key, host=host)
    added = {
        name: client.add(content, user_id="lena", metadata=metadata, timestamp=when,
                         infer=False)["results"][0]["id"]
        for name, content, metadata, when in [
            ("paris", "Lena moved to Paris for a design job", {"topic": "work", "year": 2021},
             1612137600),  # 2021-02-01
            ("cats", "Lena has two cats named Miso and Tofu", {"topic": "home", "year": 2023},
             1685577600),  # 2023-06-01
            ("running", "Lena runs a half marathon every spring", {"topic": "sport"}, None),
        ]
    }  # fmt: skip
    other.add("Lena moved to Paris for a design job", user_id="lena",
              metadata={"topic": "work", "year": 2021}, infer=False)  # fmt: skip
    by = {
        "metadata": {"AND": [{"user_id": "lena"}, {"metadata": {"topic": "work"}}]},
        "compare": {"AND": [{"user_id": "lena"}, {"metadata": {"year": {"gte": 2022}}}]},
        "dates": {"AND": [{"user_id": "lena"}, {"created_at": {"gte": "2021-01-01"}},
                          {"created_at": {"lt": "2022-01-01"}}]},
        "category": {"AND": [{"user_id": "lena"}, {"categories": {"in": ["fact"]}}]},
        "not": {"AND": [{"user_id": "lena"}, {"NOT": {"metadata": {"topic": "work"}}}]},
    }  # fmt: skip
    seen: dict[str, Any] = {"added": added, "get": client.get(added["paris"])}
    for name, filters in by.items():
        seen[f"search_{name}"] = client.search("Lena", filters=filters, threshold=0)
        seen[f"get_all_{name}"] = client.get_all(filters=filters)
        seen[f"other_{name}"] = other.get_all(filters=filters)
    seen["other_search_not"] = other.search("Lena", filters=by["not"], threshold=0)
    seen["export"] = client.get_memory_export(filters={"user_id": "lena"})
    seen["other_export"] = raised(lambda: other.get_memory_export(filters={"user_id": "nobody"}))
    seen["create_export"] = raised(lambda: client.create_memory_export("{}", user_id="lena"))
    return seen


def main() -> None:
    given = json.loads(sys.argv[1])
    host, key, other_key = given["host"], given["key"], given["other_key"]
    if given["phase"] == "learned":
        seen = learned_session(host, key)
    elif given["phase"] == "filters":
        seen = filters_session(host, key, other_key)
    else:
        seen = {
            "sync": sync_session(host, key, other_key),
            "async": asyncio.run(async_session(host, key, other_key)),
        }
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
