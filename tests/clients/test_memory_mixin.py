"""MemoryMixin around a toy agent (in process): context, turns, tools, the MRO rule."""

from collections.abc import Iterator
from datetime import date

import pytest
from gaia_memory import MEMORY_TOOL_NAMES, AuthenticationError, GaiaError, MemoryClient, MemoryMixin
from gaia_memory.mixin import MEMORY_UNREACHABLE

from accounts.models import AgentType, ApiToken
from conversations.models import Session, ToolCall, Turn
from graph.models import Relation
from memory import services
from memory.models import KnowledgeItem
from skills.models import Skill
from tests.ports import HeldPort

pytestmark = pytest.mark.django_db


class ToyAgent:
    """An agent with the two hooks the mixin wraps; its 'model' is a script."""

    def __init__(self, script=None) -> None:
        self.seen: list[str] = []
        self.tools: list[dict] = [{"type": "function", "function": {"name": "calculator"}}]
        self.script = script or []

    def process_query(self, user_input: str) -> dict:
        self.seen.append(user_input)
        results = [self._execute_tool(name, args) for name, args in self.script]
        return {"status": "success", "result": f"Done ({len(results)} tool calls)."}

    def _execute_tool(self, tool_name: str, tool_args: dict):
        if tool_name == "calculator":
            return {"value": tool_args["a"] / tool_args["b"]}
        if tool_name == "weather":
            return {"status": "error", "error": "weather service down"}
        raise KeyError(tool_name)


class MyAgent(MemoryMixin, ToyAgent):
    def __init__(self, client, script=None, context="global") -> None:
        self.init_memory(client=client, session_id="toy-session", context=context)
        super().__init__(script)


def test_the_context_is_prepended_and_both_turns_are_logged_clean(memory, alice):
    services.memory_create(user=alice, content="Dentist", due_at="2099-01-01T09:00:00Z")
    agent = MyAgent(memory)
    answer = agent.process_query("When is my dentist appointment?")
    assert answer["result"] == "Done (0 tool calls)."
    seen = agent.seen[0]
    assert seen.startswith("[Gaia Memory Context]\nCurrent time:")
    assert seen.endswith("\n\nWhen is my dentist appointment?")
    turns = Turn.objects.for_user(alice).order_by("pk")
    assert [(t.session.session_id, t.role, t.content) for t in turns] == [
        ("toy-session", "user", "When is my dentist appointment?"),
        ("toy-session", "assistant", "Done (0 tool calls)."),
    ]


def test_every_other_tool_call_is_logged_with_its_outcome(memory, alice):
    agent = MyAgent(
        memory, script=[("calculator", {"a": 42, "b": 6}), ("weather", {"city": "Porto"})]
    )
    agent.process_query("Two tools please")
    calls = {c.tool_name: c for c in ToolCall.objects.for_user(alice)}
    assert calls["calculator"].success and calls["calculator"].duration_ms is not None
    assert calls["calculator"].args == {"a": 42, "b": 6}
    assert (calls["weather"].success, calls["weather"].error) == (False, "weather service down")
    assert calls["weather"].session.session_id == "toy-session"


def test_the_session_holds_the_turns_and_tool_calls_in_order_in_the_agents_context(memory, alice):
    agent = MyAgent(memory, script=[("calculator", {"a": 42, "b": 6})], context="work")
    agent.process_query("What is 42 divided by 6, for the invoice?")
    session = Session.objects.for_user(alice).get(session_id="toy-session")
    assert session.context == "work"  # not "global": the user's turn created it
    user, answer = Turn.objects.for_user(alice).order_by("timestamp", "pk")
    call = ToolCall.objects.for_user(alice).get()
    assert (user.role, answer.role) == ("user", "assistant")
    assert user.timestamp <= call.timestamp <= answer.timestamp


def test_a_tool_that_raises_is_logged_as_failed_and_the_error_still_raises(memory, alice):
    agent = MyAgent(memory, script=[("calculator", {"a": 1, "b": 0})])
    with pytest.raises(ZeroDivisionError):
        agent.process_query("Divide by zero")
    failed = ToolCall.objects.for_user(alice).get()
    assert not failed.success and failed.error.startswith("ZeroDivisionError")
    assert [t.role for t in Turn.objects.for_user(alice)] == ["user"]


def test_memory_tools_run_on_the_server_in_the_active_context(memory, alice):
    agent = MyAgent(memory, context="work")
    schemas = agent.register_memory_tools()
    agent.register_memory_tools()
    names = [tool["function"]["name"] for tool in agent.tools]
    assert names == ["calculator", *[s["function"]["name"] for s in schemas]]
    stored = agent._execute_tool("remember", '{"content": "Deploys with kubectl"}')
    assert stored["ok"] and stored["result"]["context"] == "work"
    assert not ToolCall.objects.for_user(alice).exists()  # memory tools are not logged
    assert "Deploys with kubectl" in agent.get_memory_system_prompt()
    agent.set_memory_context("personal")
    assert "Deploys with kubectl" not in agent.get_memory_system_prompt()
    assert agent._execute_tool("forget", {"id": 10**9})["error"]["code"] == "not_found"
    assert KnowledgeItem.objects.for_user(alice).get().context == "work"


def test_the_mixin_must_come_first_in_the_bases(memory):
    class WrongOrder(ToyAgent, MemoryMixin):
        def __init__(self, client) -> None:
            self.init_memory(client=client)
            super().__init__()

    with pytest.raises(TypeError, match=r"MemoryMixin before ToyAgent"):
        WrongOrder(memory)


def test_an_unreachable_memory_server_does_not_stop_the_agent(caplog):
    with HeldPort() as port:  # refuses connections, and no other server is given it
        agent = MyAgent(MemoryClient(port.url, "gaia_x", timeout=2))
        assert agent.process_query("Hello")["status"] == "success"
    assert agent.seen == ["Hello"]
    assert "Gaia memory" in caplog.text


class StartingAgent(MemoryMixin, ToyAgent):
    """Registers the memory tools and reads the memory block while it starts, as the
    README's agent does."""

    def __init__(self, client) -> None:
        self.init_memory(client=client)
        super().__init__()
        self.register_memory_tools()
        self.system_prompt = "You are helpful.\n" + self.get_memory_system_prompt()


@pytest.fixture
def unreachable() -> Iterator[MemoryClient]:
    """A client of a port that refuses connections, held for the test."""
    with HeldPort() as port:
        yield MemoryClient(port.url, "gaia_x", timeout=2)


def test_an_agent_starts_while_the_memory_server_is_down_and_gets_the_tools_later(
    memory, caplog, unreachable
):
    agent = StartingAgent(unreachable)

    assert [tool["function"]["name"] for tool in agent.tools] == ["calculator"]
    # The model is told memory is unreachable, not left to think it has none.
    assert agent.system_prompt == "You are helpful.\n" + MEMORY_UNREACHABLE
    assert "cannot be reached" in agent.system_prompt
    assert agent.process_query("Hello")["status"] == "success"
    assert "carrying on without it" in caplog.text

    agent.memory = memory  # the server is back
    assert "remember" in {tool["function"]["name"] for tool in agent.memory_tools()}


def test_a_wrong_token_still_stops_the_agent_at_start(in_process, alice):
    with pytest.raises(AuthenticationError):
        StartingAgent(MemoryClient("http://testserver", "gaia_wrong", http_client=in_process))


def test_the_mixin_runs_every_tool_the_server_offers(memory, alice, settings):
    settings.GAIA_LLM_URL = "http://127.0.0.1:9/v1"  # configured: `extract` is offered too
    offered = [t["function"]["name"] for t in memory.tools()]
    assert "relate" in offered and "extract" in offered
    assert set(offered) == set(MEMORY_TOOL_NAMES)


def test_relate_runs_on_the_server_and_is_no_failed_tool_of_the_agent(memory, alice):
    relate = {"subject": "me", "type": "partner_of", "object": "Rui"}
    recall = {"query": "partner", "where": {"categories": {"in": ["fact"]}}}
    agent = MyAgent(memory, script=[("relate", relate), ("recall", recall)])
    agent.register_memory_tools()
    agent.process_query("My partner is Rui")
    relation = Relation.objects.for_user(alice).get()
    assert (relation.subject.name, relation.type, relation.object.name) == ("me", "partner_of",
                                                                           "Rui")  # fmt: skip
    assert not ToolCall.objects.for_user(alice).exists()  # memory tools are not the agent's
    assert agent.execute_memory_tool("recall", recall)["ok"] is True


class NotedAgent(MemoryMixin, ToyAgent):
    def __init__(self, client, inject_notes: int = 0) -> None:
        self.init_memory(client=client, session_id="run-9", inject_notes=inject_notes)
        super().__init__()


def _boat_note(alice):
    return services.memory_session_note(
        user=alice,
        session_id="s-boat",
        content="Talked about repainting the sailing boat's hull in antifouling blue",
        context="global",
        source_turn=None,
        first=date(2026, 11, 2),
        last=date(2026, 11, 2),
    )


def test_the_diary_notes_that_bear_on_a_message_come_with_it_when_asked(memory, alice):
    _boat_note(alice)
    noted = NotedAgent(memory, inject_notes=2)
    noted.process_query("Which colour did I pick for the boat hull?")
    assert "antifouling blue" in noted.seen[0]
    plain = NotedAgent(memory)
    plain.process_query("Which colour did I pick for the boat hull?")
    assert "antifouling" not in plain.seen[0]


def test_an_agent_lists_forgets_by_scope_and_restores(memory, alice):
    services.memory_create(user=alice, content="Sprint review on Fridays", context="work")
    services.memory_create(user=alice, content="Standup at 9:30", context="work")
    services.memory_create(user=alice, content="Likes rooibos tea", category="preference")
    agent = NotedAgent(memory)
    assert agent.list_memories(context="work")["count"] == 2
    counted = agent.forget_memories(context="work", dry_run=True)
    assert (
        counted["count"] == 2
        and KnowledgeItem.objects.filter(forgotten_at__isnull=False).count() == 0
    )
    gone = agent.forget_memories(context="work")
    assert gone["count"] == 2 and agent.list_memories()["count"] == 1
    for item_id in gone["ids"]:
        memory.restore(item_id)
    assert memory.list_memories(context="work")["count"] == 2
    assert memory.forget_matching(categories=["preference"], dry_run=True)["forgotten"] == 1
    with pytest.raises(GaiaError) as refused:
        agent.forget_memories()
    assert refused.value.code == "invalid_arguments"


def test_an_agent_reflects_at_the_end_of_its_run(memory, alice):
    agent = NotedAgent(memory)
    agent.process_query("Forward the invoice to accounting")  # logs this run's turns
    with pytest.raises(GaiaError) as untyped:
        agent.reflect("When the user asks to forward an invoice", "Search it, forward it.")
    assert untyped.value.code == "no_agent_type"
    mine = ApiToken.objects.get(owner=alice, name="client-test").agent
    mine.agent_type = AgentType.objects.create(name="gmail_agent")
    mine.save()
    reflected = agent.reflect(
        "When the user asks to forward an invoice to accounting",
        "Search the invoice, forward it, confirm.",
        tools_used=["GMAIL_SEARCH_MESSAGES", "GMAIL_FORWARD"],
    )
    assert reflected == {"outcome": "proposed", "review": True}
    assert Skill.objects.get().contributions.get().session.session_id == "run-9"
