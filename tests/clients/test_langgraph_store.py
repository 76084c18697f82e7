"""GaiaStore (gaia_memory.langgraph_store) with the real `langgraph` package: the store's
operations, sync over the in-process transport and async over real HTTP, and a LangGraph
graph that remembers across threads through it."""

import asyncio
from typing import Annotated, TypedDict

import pytest
from gaia_memory import AsyncMemoryClient
from gaia_memory.langgraph_store import GaiaStore
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.store.base import BaseStore

from memory.models import KnowledgeItem


@pytest.fixture
def store(memory) -> GaiaStore:
    return GaiaStore(memory)


def test_put_get_search_and_delete_keep_langgraphs_meaning(store, alice, bob):
    ns = ("profile", "alice")
    store.put(ns, "drink", {"content": "Prefers green tea in the afternoon", "stars": 4})
    store.put(ns, "city", {"text": "Lives in Porto near the river", "stars": 2})
    store.put(("work", "alice"), "desk", {"note": "Desk 4B, second floor"}, index=["note"])
    store.put(ns, "twin", {"content": "Prefers green tea in the afternoon", "stars": 1})

    got = store.get(ns, "drink")
    assert got.value == {"content": "Prefers green tea in the afternoon", "stars": 4}
    assert (got.namespace, got.key) == (ns, "drink")
    assert store.get(ns, "missing") is None and store.get(("work", "alice"), "drink") is None
    assert store.get(ns, "twin").value["stars"] == 1  # same text, another key: its own item

    store.put(ns, "drink", {"content": "Prefers jasmine tea in the afternoon", "stars": 5})
    assert store.get(ns, "drink").value["stars"] == 5
    item = KnowledgeItem.objects.for_user(alice).get(metadata__langgraph_key="drink")
    assert item.content == "Prefers jasmine tea in the afternoon" and item.context == "profile"

    found = store.search(("profile",), query="what does alice drink", limit=1)
    assert [(h.key, h.namespace) for h in found] == [("drink", ns)]
    assert found[0].score is not None
    assert {h.key for h in store.search(("profile", "alice"))} == {"drink", "city", "twin"}
    assert [h.key for h in store.search(ns, filter={"stars": {"$gte": 3}})] == ["drink"]
    assert [h.key for h in store.search(ns, filter={"stars": 2})] == ["city"]
    assert [h.key for h in store.search(("work",), query="where is the desk")] == ["desk"]
    assert len(store.search(ns, limit=2)) == 2 and len(store.search(ns, offset=2)) == 1

    assert store.list_namespaces() == [("profile", "alice"), ("work", "alice")]
    assert store.list_namespaces(prefix=("work",)) == [("work", "alice")]
    assert store.list_namespaces(suffix=("alice",), max_depth=1) == [("profile",), ("work",)]
    assert store.list_namespaces(prefix=("*", "alice"), limit=1) == [("profile", "alice")]

    store.delete(ns, "city")
    assert store.get(ns, "city") is None
    assert KnowledgeItem.objects.for_user(bob).count() == 0


def test_the_async_store_does_the_same_over_real_http(live_server, alice_token):
    async def run() -> tuple:
        async with AsyncMemoryClient(live_server.url, alice_token) as client:
            store = GaiaStore(async_client=client)
            await store.aput(("notes",), "k1", {"content": "The boiler service is in October"})
            got = await store.aget(("notes",), "k1")
            hits = await store.asearch(("notes",), query="when is the boiler service")
            spaces = await store.alist_namespaces()
            await store.adelete(("notes",), "k1")
            return got.value, [h.key for h in hits], spaces, await store.aget(("notes",), "k1")

    value, keys, spaces, gone = asyncio.run(run())
    assert value == {"content": "The boiler service is in October"}
    assert keys == ["k1"] and spaces == [("notes",)] and gone is None


class State(TypedDict):
    messages: Annotated[list, add_messages]
    user: str


def remember_or_recall(state: State, *, store: BaseStore) -> dict:
    """A graph node with no model: "remember: X" stores X, anything else is answered with
    what the store finds for it."""
    text = state["messages"][-1].content
    ns = ("memories", state["user"])
    if text.startswith("remember: "):
        fact = text.removeprefix("remember: ")
        store.put(ns, f"fact-{len(store.search(ns, limit=100))}", {"content": fact})
        return {"messages": [("ai", "Noted.")]}
    hits = store.search(ns, query=text, limit=1)
    return {"messages": [("ai", hits[0].value["content"] if hits else "I don't know.")]}


def test_a_langgraph_graph_remembers_across_threads_with_the_store(memory):
    builder = StateGraph(State)
    builder.add_node("memory", remember_or_recall)
    builder.add_edge(START, "memory")
    builder.add_edge("memory", END)
    graph = builder.compile(checkpointer=InMemorySaver(), store=GaiaStore(memory))

    def say(thread: str, text: str) -> str:
        config = {"configurable": {"thread_id": thread}}
        out = graph.invoke({"messages": [("user", text)], "user": "alice"}, config)
        return out["messages"][-1].content

    assert say("monday", "remember: Alice's sister Rita lives in Braga") == "Noted."
    assert say("monday", "remember: Alice takes her coffee black") == "Noted."
    assert say("friday", "where does my sister live?") == "Alice's sister Rita lives in Braga"
    assert say("friday", "how do I take my coffee?") == "Alice takes her coffee black"


def test_a_store_needs_a_client(memory):
    with pytest.raises(TypeError):
        GaiaStore()
    with pytest.raises(TypeError, match="async"):
        GaiaStore(async_client=AsyncMemoryClient("http://127.0.0.1:9", "gaia_x")).get(("a",), "k")
    assert isinstance(GaiaStore(memory), BaseStore)
