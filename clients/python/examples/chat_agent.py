"""A chat agent with long-term memory, against any OpenAI-compatible chat server
(OpenAI, Ollama, Lemonade, llama.cpp, vLLM, LM Studio).

    pip install ./clients/python
    export GAIA_URL=http://127.0.0.1:8000 GAIA_TOKEN=gaia_...
    export LLM_URL=http://127.0.0.1:11434/v1 LLM_MODEL=qwen2.5:7b   # e.g. Ollama
    python clients/python/examples/chat_agent.py                    # chat (empty line quits)
    python clients/python/examples/chat_agent.py "I adopted a cat called Miso"

`ChatAgent` is a plain tool-calling agent that knows nothing of memory; `MemoryChatAgent`
adds it with one line of bases, MemoryMixin FIRST. The mixin prepends the per-turn
context to each message, logs both turns (the server learns from them), runs the five
memory tools on the server, and logs every other tool call, so a failing one (try
"what is 1/0?") becomes an error lesson the next system prompt warns about.
Optional: LLM_API_KEY, GAIA_CONTEXT (a memory context such as work), GAIA_SESSION.
"""

import ast
import json
import operator
import os
import sys
from typing import Any

import httpx

from gaia_memory import MemoryClient, MemoryMixin

MAX_STEPS = 8
CALCULATOR = {
    "type": "function",
    "function": {
        "name": "calculator",
        "description": "Evaluate an arithmetic expression such as (2 + 3) * 4 / 5.",
        "parameters": {
            "type": "object",
            "properties": {"expression": {"type": "string"}},
            "required": ["expression"],
        },
    },
}
_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}


def calculate(expression: str) -> float:
    """Arithmetic only: numbers, + - * / ** and parentheses."""

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.operand))
        raise ValueError(f"not arithmetic: {ast.dump(node)[:60]}")

    return value(ast.parse(expression, mode="eval").body)


def _arguments(raw: Any) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


class ChatAgent:
    """A tool-calling chat agent over /chat/completions. It has no memory of its own."""

    def __init__(self, *, llm_url: str, model: str, api_key: str = "") -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.llm = httpx.Client(base_url=llm_url.rstrip("/"), headers=headers, timeout=300)
        self.model = model
        self.tools: list[dict] = [CALCULATOR]
        self.messages: list[dict] = []

    def system_prompt(self) -> str:
        return "You are a helpful assistant. Use the calculator for arithmetic."

    def process_query(self, user_input: str) -> dict:
        if not self.messages:
            self.messages.append({"role": "system", "content": self.system_prompt()})
        self.messages.append({"role": "user", "content": user_input})
        for _ in range(MAX_STEPS):
            body = {"model": self.model, "messages": self.messages, "tools": self.tools}
            response = self.llm.post("/chat/completions", json=body)
            response.raise_for_status()
            reply = response.json()["choices"][0]["message"]
            self.messages.append(reply)
            if not reply.get("tool_calls"):
                return {"status": "success", "result": reply.get("content") or ""}
            for call in reply["tool_calls"]:
                function = call["function"]
                try:
                    result = self._execute_tool(
                        function["name"], _arguments(function.get("arguments"))
                    )
                except Exception as error:  # the model reads the error and carries on
                    result = {"status": "error", "error": f"{type(error).__name__}: {error}"}
                self.messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.get("id", ""),
                        "content": json.dumps(result),
                    }
                )
        return {"status": "error", "result": "Stopped: too many tool calls in a row."}

    def _execute_tool(self, tool_name: str, tool_args: dict) -> Any:
        if tool_name == "calculator":
            return {"value": calculate(str(tool_args.get("expression", "")))}
        raise KeyError(f"no tool named {tool_name}")


class MemoryChatAgent(MemoryMixin, ChatAgent):  # the mixin FIRST
    def __init__(self, **kwargs: Any) -> None:
        self.init_memory(
            client=MemoryClient(),  # GAIA_URL and GAIA_TOKEN
            session_id=os.environ.get("GAIA_SESSION") or None,
            context=os.environ.get("GAIA_CONTEXT", "global"),
        )
        super().__init__(**kwargs)
        self.register_memory_tools()  # adds the memory tools to self.tools

    def system_prompt(self) -> str:
        return f"{super().system_prompt()}\n\n{self.get_memory_system_prompt()}"


def main() -> None:
    agent = MemoryChatAgent(
        llm_url=os.environ.get("LLM_URL", "http://127.0.0.1:11434/v1"),
        model=os.environ.get("LLM_MODEL", "qwen2.5:7b"),
        api_key=os.environ.get("LLM_API_KEY", ""),
    )
    questions = [" ".join(sys.argv[1:])] if sys.argv[1:] else iter(lambda: input("> "), "")
    for question in questions:
        print(agent.process_query(question)["result"])


if __name__ == "__main__":
    main()
