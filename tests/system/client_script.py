"""Runs in a fresh virtualenv that holds only gaia-memory-client (and httpx): MemoryClient,
AsyncMemoryClient and a toy agent with MemoryMixin against a running server.

Usage: python client_script.py URL TOKEN. Prints one line per check and "ALL GOOD" last;
any failed check ends it with a traceback and a non-zero exit.
"""

import asyncio
import importlib.util
import sys
import time

from gaia_memory import (
    AsyncMemoryClient,
    InvalidRequestError,
    MemoryClient,
    MemoryMixin,
    NotFoundError,
)

URL, TOKEN = sys.argv[1], sys.argv[2]
LESSON_WAIT = 90.0


def check(what: str) -> None:
    print(f"ok: {what}", flush=True)


class ToyAgent:
    """An agent whose 'model' calls one tool that fails, then answers."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def process_query(self, user_input: str) -> dict:
        self.seen.append(user_input)
        try:
            self._execute_tool("flaky_calendar", {"day": "Friday"})
        except ConnectionError:
            return {"status": "success", "result": "The calendar is down; I will retry later."}
        return {"status": "success", "result": "Booked."}

    def _execute_tool(self, tool_name: str, tool_args: dict):
        raise ConnectionError("calendar.example is unreachable")


class MyAgent(MemoryMixin, ToyAgent):
    def __init__(self, client: MemoryClient) -> None:
        self.init_memory(client=client, session_id="toy-agent")
        super().__init__()


def main() -> None:
    assert importlib.util.find_spec("django") is None, "not a fresh environment"
    memory = MemoryClient(URL, TOKEN)
    stored = memory.remember("Prefers green tea in the afternoon", category="preference")
    assert [hit.id for hit in memory.recall("which tea")] == [stored.id]
    assert memory.update(stored.id, context="home").context == "home"
    try:
        memory.remember("")
        raise AssertionError("an empty memory was accepted")
    except InvalidRequestError as error:
        assert "content" in error.fields
    check("MemoryClient remembers, recalls, updates; errors are exceptions")

    async def asynchronous() -> None:
        async with AsyncMemoryClient(URL, TOKEN) as client:
            hits = await client.recall("green tea")
            assert [hit.id for hit in hits] == [stored.id]
            try:
                await client.forget(10**12)
                raise AssertionError("a missing id was forgotten")
            except NotFoundError:
                pass

    asyncio.run(asynchronous())
    check("AsyncMemoryClient recalls; a missing id is NotFoundError")

    agent = MyAgent(memory)
    answer = agent.process_query("Book the dentist on Friday")
    assert answer["result"].startswith("The calendar is down")
    assert agent.seen[0].startswith("[Gaia Memory Context]\nCurrent time:")
    assert agent.seen[0].endswith("\n\nBook the dentist on Friday")
    check("the per-turn context is prepended to the agent's input")

    turns = memory.search_conversations(session_id="toy-agent", time_from="2000-01-01")
    assert sorted((t.role, t.content) for t in turns) == [
        ("assistant", "The calendar is down; I will retry later."),
        ("user", "Book the dentist on Friday"),
    ], turns
    check("both turns are logged, the user's without the context")

    (call,) = memory.tool_calls(session_id="toy-agent")
    assert (call.tool_name, call.success) == ("flaky_calendar", False)
    assert call.error.startswith("ConnectionError: calendar.example is unreachable")
    assert call.duration_ms is not None
    check("the failing tool call is logged with its error and duration")

    deadline = time.monotonic() + LESSON_WAIT
    while True:
        lessons = memory.recall("flaky_calendar failed", category="error")
        if any("calendar.example is unreachable" in hit.content for hit in lessons):
            break
        assert time.monotonic() < deadline, "no error lesson appeared"
        time.sleep(0.5)
    assert "calendar.example is unreachable" in memory.system_prompt()
    check("the failure became an error lesson, shown in the system prompt")
    print("ALL GOOD")


if __name__ == "__main__":
    main()
