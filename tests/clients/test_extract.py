"""The Python client's extract and MemoryMixin's `extract` tool and `extract_memories`,
against the server in process with the fake language model answering seed 002's shape."""

import httpx
import pytest
from gaia_memory import MemoryClient, MemoryMixin

from accounts.services import token_create
from memory.models import KnowledgeItem
from tests.clients.django_transport import DjangoTransport
from tests.learning import fake_llm as f
from tests.learning.test_extract_tool import BLOB, SEED_002_FACTS, SHAPES

pytestmark = pytest.mark.django_db


@pytest.fixture
def model(settings) -> f.FakeLLM:
    """The fake language model server (tests/learning/fake_llm.py) as the server's LLM."""
    server = f.FakeLLM()
    settings.GAIA_LLM_URL, settings.GAIA_LLM_MODEL = server.url, "fake-model"
    yield server
    server.close()


class _Agent:
    def __init__(self) -> None:
        self.tools: list[dict] = []

    def process_query(self, user_input: str) -> str:
        return "ok"

    def _execute_tool(self, tool_name: str, tool_args: dict) -> dict:
        raise KeyError(tool_name)


class _MemoryAgent(MemoryMixin, _Agent):
    def __init__(self, client: MemoryClient) -> None:
        self.init_memory(client=client, session_id="s", context="work")
        super().__init__()


@pytest.fixture
def agent(alice) -> _MemoryAgent:
    secret = token_create(user=alice, name="crew")[1]
    http = httpx.Client(transport=DjangoTransport())
    return _MemoryAgent(MemoryClient("http://testserver", secret, http_client=http))


def test_the_mixin_offers_extract_and_runs_it_on_the_server(model, agent, alice):
    agent.register_memory_tools()
    assert "extract" in [t["function"]["name"] for t in agent.tools]
    model.then(f.content(SHAPES["code-fence"]))
    result = agent._execute_tool("extract", {"text": BLOB, "store": True})
    assert result["ok"] and result["result"]["stored"] == 4
    assert set(KnowledgeItem.objects.for_user(alice).values_list("context", flat=True)) == {"work"}


def test_the_mixins_extract_memories_stores_a_task_output(model, agent, alice):
    model.then(f.content(SHAPES["prose-around"]))
    answer = agent.extract_memories(BLOB)
    assert answer["stored"] == 4
    assert [f["content"] for f in answer["facts"]] == SEED_002_FACTS
    item = KnowledgeItem.objects.for_user(alice).get(content=SEED_002_FACTS[2])
    assert (item.context, item.agent.name) == ("work", "crew")
