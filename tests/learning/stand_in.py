"""A stand-in for a real model, for `memory_eval extraction` in tests and by hand.

It reads the extraction prompt like a (very literal) model would: each statement of the
latest message becomes one memory about its speaker; a question is a NOOP. Its answers
rotate through the corpus' shapes (thinking blocks, fences, prose, mem0 events, upper
case, trailing commas, Python dicts, bare arrays), so the measurement runs the same
tolerant reading a real model needs.

By hand (prints the URL to put in GAIA_LLM_URL, serves until interrupted):

    python -m tests.learning.stand_in
"""

import itertools
import json
import re
import time
from collections.abc import Callable

from tests.learning import fake_llm as f

_LATEST = re.compile(r'Latest user message(?: \(said by (".*?")\))?:\n(".*")\s*$', re.S)


def _plain(ops: list[dict]) -> str:
    return json.dumps({"operations": ops})


def _fence(ops: list[dict]) -> str:
    return f"```json\n{json.dumps({'operations': ops}, indent=2)}\n```"


def _thinking(ops: list[dict]) -> str:
    return '<think>\nThe format is {"operations": [...]}. Let me see.\n</think>\n\n' + _plain(ops)


def _r1(ops: list[dict]) -> str:
    return "Okay, one statement, one memory.\n</think>\n\n" + _fence(ops)


def _prose(ops: list[dict]) -> str:
    return f"Here are the memory operations:\n\n{_plain(ops)}\n\nLet me know if you need more!"


def _upper(ops: list[dict]) -> str:
    return _plain([{**op, "op": op["op"].upper()} for op in ops])


def _mem0(ops: list[dict]) -> str:
    events = [{"id": str(n), "text": op.get("content", ""), "event": op["op"].upper()}
              for n, op in enumerate(ops)]  # fmt: skip
    return json.dumps({"memory": [{**e, "event": "NONE" if e["event"] == "NOOP" else e["event"]}
                                  for e in events]})  # fmt: skip


def _trailing_commas(ops: list[dict]) -> str:
    return _plain(ops).replace("}", ",}").replace("]", ",]")


def _python(ops: list[dict]) -> str:
    return repr({"operations": ops})


def _array(ops: list[dict]) -> str:
    return json.dumps(ops, indent=1)


SHAPES: list[Callable[[list[dict]], str]] = [
    _plain, _fence, _thinking, _r1, _prose, _upper, _mem0, _trailing_commas, _python, _array,
]  # fmt: skip


def operations_for(prompt: str) -> list[dict]:
    """What the stand-in remembers of the latest message in an extraction prompt."""
    found = _LATEST.search(prompt)
    if not found:
        return []
    speaker = json.loads(found.group(1)) if found.group(1) else "User"
    text = json.loads(found.group(2)).strip()
    if not text or text.endswith("?"):
        return [{"op": "noop"}]
    return [{"op": "add", "category": "fact", "content": f"{speaker}: {text}"[:500]}]


def skills_for(prompt: str) -> list[dict]:
    """What the stand-in learns from a skills prompt: one procedure, written as literally
    as a careless model would (the user's first request as its trigger, everything they
    said in its procedure, for the scrubber to take out)."""
    try:
        data = json.loads(prompt.split("DATA\n", 1)[1])
    except (IndexError, ValueError):
        return []
    said = [t["content"] for t in data["conversation"] if t["role"] == "user"]
    asked = said[0] if said else ""
    tools = [c["tool"] for c in data["tool_calls"]]
    failed = [f"{c['tool']}: {c['error']}" for c in data["tool_calls"] if not c["success"]]
    if not tools:
        return []
    done_for = " ".join(said)
    return [
        {
            "trigger": f"When the user asks: {asked}"[:300],
            "procedure": f"Call {' then '.join(dict.fromkeys(tools))}, as done for: {done_for}"[
                :600
            ],
            "tools_used": list(dict.fromkeys(tools)),
            "what_didnt_work": "; ".join(failed),
            "optimal_approach": " -> ".join(dict.fromkeys(tools)),
            "success_criteria": "The last tool call succeeded.",
            "confidence": 0.6,
        }
    ]


def _system_of(body: dict) -> str:
    return next((m["content"] for m in body.get("messages", []) if m["role"] == "system"), "")


def _user_of(body: dict) -> str:
    return next((m["content"] for m in body.get("messages", []) if m["role"] == "user"), "")


def replies() -> f.Step:
    """A step answering extraction, consolidation and skill prompts (each answer in the
    next shape of the corpus where the job reads operations)."""
    extraction = extraction_replies()
    shapes = itertools.count()

    def step(h) -> None:
        system = str(_system_of(h.request_body))
        if "learned to DO" in system:
            wrap = [json.dumps, lambda v: f"```json\n{json.dumps(v, indent=2)}\n```",
                    lambda v: f"<think>\nSkills.\n</think>\n{json.dumps(v)}"]  # fmt: skip
            text = wrap[next(shapes) % len(wrap)]({"skills": skills_for(_user_of(h.request_body))})
            f.content(text)(h)
        elif system.startswith("Consolidate a finished conversation"):
            f.answer({"summary": "The agent used its tools for the user.", "facts": []})(h)
        else:
            extraction(h)

    return step


def extraction_replies() -> f.Step:
    """A step answering every extraction prompt, each time in the next shape."""
    turn = itertools.count()

    def reply(body: dict) -> str:
        prompt = next(
            (
                m["content"]
                for m in body.get("messages", [])
                if "Latest user message" in str(m.get("content"))
            ),  # fmt: skip
            "",
        )
        return SHAPES[next(turn) % len(SHAPES)](operations_for(prompt))

    return f.replying(reply)


if __name__ == "__main__":
    server = f.FakeLLM().then(replies())
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.close()
