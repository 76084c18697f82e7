"""The tool loop of docs/agents.md, run as written against the live server and a scripted
OpenAI-compatible chat server: context passed, memory tools on the server, both turns and
the agent's own tool calls logged."""

import json
import re
from pathlib import Path

import pytest

from accounts.services import token_create
from conversations.models import ToolCall, Turn
from memory.models import KnowledgeItem
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db(transaction=True)
DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


def _tool_loop() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    (loop,) = [b for b in blocks if "def ask(" in b]
    return loop


def _calls(*calls: tuple[str, str, dict]) -> bytes:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ],
    }
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return json.dumps({"id": "x", "object": "chat.completion", "choices": [choice]}).encode()


def test_the_documented_tool_loop_logs_turns_and_tool_calls(live_server, alice, capsys):
    secret = token_create(user=alice, name="docs")[1]
    chat = f.FakeLLM()
    chat.then(
        f.raw_200(
            _calls(
                ("c1", "remember", {"content": "User adopted a cat called Miso"}),
                ("c2", "word_count", {"txt": "typo in the argument name"}),
            )
        ),
        f.content("Welcome, Miso!"),
    )
    code = (
        _tool_loop()
        .replace("http://127.0.0.1:8000", live_server.url)
        .replace("Bearer gaia_...", f"Bearer {secret}")
        .replace("http://127.0.0.1:11434/v1", chat.url)
    )
    try:
        exec(compile(code, str(DOC), "exec"), {})  # noqa: S102
    finally:
        chat.close()
    assert capsys.readouterr().out.strip() == "Welcome, Miso!"
    user = chat.requests[0]["messages"][1]["content"]
    assert user.startswith("[Gaia Memory Context]") and user.endswith("What do you know about me?")
    assert KnowledgeItem.objects.for_user(alice).get().content == "User adopted a cat called Miso"
    failed = ToolCall.objects.for_user(alice).get()
    assert (failed.tool_name, failed.success) == ("word_count", False)
    assert failed.error.startswith("KeyError")
    assert failed.args == {"txt": "typo in the argument name"}
    turns = Turn.objects.for_user(alice).order_by("pk")
    assert [(t.role, t.content[:22]) for t in turns] == [
        ("user", "I just adopted a cat c"),
        ("assistant", "Welcome, Miso!"),
    ]
