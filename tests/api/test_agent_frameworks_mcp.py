"""The OpenAI Agents SDK and Pydantic AI (the real packages, requirements-agents.txt)
connect to /mcp of a live server, list the memory tools and call `recall`; no language
model is involved: Pydantic AI's agent runs with its FunctionModel, a scripted model.

The two frameworks take about 3 s of CPU to import, and every test process collects this
file: each test imports the one it drives.
"""

import asyncio
import json

import pytest

from accounts.services import token_create
from memory import agent_tools
from memory.services import memory_create

pytestmark = pytest.mark.django_db(transaction=True)
SECRET = "Alice keeps her passport in the blue drawer"


@pytest.fixture
def served(live_server, alice, bob, settings) -> dict[str, str]:
    settings.GAIA_LLM_URL = ""
    memory_create(user=alice, content=SECRET)
    memory_create(user=bob, content="Bob keeps his passport in the blue drawer too")
    return {
        "url": f"{live_server.url}/mcp",
        "alice": token_create(user=alice, name="agents-sdk")[1],
        "bob": token_create(user=bob, name="agents-sdk")[1],
    }


def test_the_openai_agents_sdk_lists_and_calls_the_memory_tools(served):
    from agents.mcp import MCPServerStreamableHttp

    async def run(token: str) -> tuple[list[str], dict, dict]:
        params = {"url": served["url"], "headers": {"Authorization": f"Bearer {token}"}}
        async with MCPServerStreamableHttp(params=params, client_session_timeout_seconds=60,
                                           use_structured_content=True) as server:  # fmt: skip
            names = [tool.name for tool in await server.list_tools()]
            found = await server.call_tool("recall", {"query": "where is the passport"})
            missing = await server.call_tool("forget", {"id": 999999})
        return names, found.structured_content, {"is_error": missing.is_error,
                                                **missing.structured_content}  # fmt: skip

    names, found, missing = asyncio.run(run(served["alice"]))
    assert names == agent_tools.TOOL_NAMES
    assert [hit["content"] for hit in found["results"]] == [SECRET]
    assert missing["is_error"] is True and missing["error"]["code"] == "not_found"
    _, theirs, _ = asyncio.run(run(served["bob"]))
    assert SECRET not in json.dumps(theirs)


def test_pydantic_ais_agent_calls_recall_over_mcp_with_a_scripted_model(served):
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def model(messages: list, info: object) -> ModelResponse:
        returned = [p for m in messages for p in m.parts if p.part_kind == "tool-return"]
        if not returned:
            offered = sorted(tool.name for tool in info.function_tools)
            assert offered == sorted(agent_tools.TOOL_NAMES)
            return ModelResponse(parts=[ToolCallPart("recall", {"query": "passport"})])
        return ModelResponse(parts=[TextPart(json.dumps(returned[0].content, default=str))])

    async def run(token: str) -> tuple[list[str], str, str]:
        toolset = MCPToolset(served["url"], headers={"Authorization": f"Bearer {token}"})
        agent = Agent(FunctionModel(model), toolsets=[toolset])
        async with agent:
            listed = [tool.name for tool in await toolset.list_tools()]
            direct = await toolset.direct_call_tool("recall", {"query": "blue drawer"})
            answer = (await agent.run("Where is my passport?")).output
        return listed, json.dumps(direct, default=str), answer

    listed, direct, answer = asyncio.run(run(served["alice"]))
    assert listed == agent_tools.TOOL_NAMES
    assert SECRET in direct and SECRET in answer
    _, direct, answer = asyncio.run(run(served["bob"]))
    assert SECRET not in direct and SECRET not in answer and "Bob keeps" in answer
