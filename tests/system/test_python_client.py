"""`pip install ./clients/python` into a fresh virtualenv, then, against a server started as
`make run` does (`manage.py serve`): a script with MemoryClient and a toy agent using
MemoryMixin (tests/system/client_script.py), the README's Python snippet, and the example
chat agent against a scripted OpenAI-compatible chat server.
"""

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.learning import fake_llm as f

pytestmark = pytest.mark.system
ROOT = Path(__file__).resolve().parents[2]
README_URL = "http://127.0.0.1:8000"


def _client_digest() -> str:
    """The client's sources and this Python's version, hashed: what its virtualenv is of."""
    digest = hashlib.sha256(sys.version.encode())
    source = ROOT / "clients" / "python"
    for path in sorted(source.rglob("*")):
        parts = path.relative_to(source).parts
        if path.is_file() and not any(p.startswith((".", "__pycache__")) for p in parts):
            digest.update(str(parts).encode() + path.read_bytes())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="session")
def client_python(tmp_path_factory) -> Path:
    """The python of a new virtualenv with only the client package installed. Made once
    per GAIA_DATA_DIR (CI's three passes share theirs, fresh in a clean clone) and client
    source, under a lock; without GAIA_DATA_DIR, once per test run."""
    shared = os.environ.get("GAIA_DATA_DIR")
    base = Path(shared) if shared else tmp_path_factory.getbasetemp()
    base.mkdir(parents=True, exist_ok=True)
    venv = base / f"client-venv-{_client_digest()}"
    python = venv / "bin" / "python"
    with open(base / "client-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".installed").exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
            install = [str(python), "-m", "pip", "install", "-q", str(ROOT / "clients" / "python")]
            done = subprocess.run(install, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr[-3000:]
            (venv / ".installed").touch()
    return python


def _run(python: Path, *args: str, env: dict | None = None) -> str:
    done = subprocess.run(
        [str(python), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


def _readme_python() -> str:
    """The README's Python example (the fenced block that uses gaia_memory)."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    (block,) = [b for b in blocks if "gaia_memory" in b]
    return "\n".join(line.removeprefix("  ") for line in block.splitlines())


def test_a_fresh_venv_with_the_client_drives_a_running_server(deployment, client_python):
    tokens = deployment.tokens(["alice", "bob"])
    url = deployment.start_serve()
    script = str(ROOT / "tests" / "system" / "client_script.py")
    out = _run(client_python, script, url, tokens["alice"])
    assert out.strip().endswith("ALL GOOD"), out

    snippet = _readme_python().replace(README_URL, url)
    printed = _run(client_python, "-c", snippet, env={"GAIA_TOKEN": tokens["alice"]})
    assert "Prefers concise answers" in printed

    _the_example_chat_agent_remembers_and_its_failures_are_logged(client_python, url, tokens["bob"])


def _the_example_chat_agent_remembers_and_its_failures_are_logged(python, url, token) -> None:
    chat = f.FakeLLM()
    calls = [
        _tool_call("c1", "remember", {"content": "User adopted a cat called Miso"}),
        _tool_call("c2", "calculator", {"expression": "1/0"}),
    ]
    chat.then(
        f.raw_200(_reply({"role": "assistant", "content": None, "tool_calls": calls})),
        f.content("Welcome, Miso! And 1/0 has no value."),
    )
    try:
        env = {"GAIA_URL": url, "GAIA_TOKEN": token, "LLM_URL": chat.url, "LLM_MODEL": "fake"}
        example = str(ROOT / "clients" / "python" / "examples" / "chat_agent.py")
        out = _run(python, example, "I adopted a cat called Miso. What is 1/0?", env=env)
    finally:
        chat.close()
    assert out.strip() == "Welcome, Miso! And 1/0 has no value."
    first, second = chat.requests
    system, user = first["messages"]
    assert "=== MEMORY" in system["content"]
    assert user["content"].startswith("[Gaia Memory Context]")
    assert user["content"].endswith("I adopted a cat called Miso. What is 1/0?")
    names = {tool["function"]["name"] for tool in first["tools"]}
    assert {"calculator", "remember", "recall", "forget"} <= names
    results = [json.loads(m["content"]) for m in second["messages"] if m["role"] == "tool"]
    assert results[0]["ok"] is True
    assert results[1]["error"].startswith("ZeroDivisionError")

    api = httpx.Client(base_url=f"{url}/api/v1", headers={"Authorization": f"Bearer {token}"})
    found = api.post("/memories/search/", json={"query": "cat called Miso"}).json()["results"]
    assert found[0]["content"] == "User adopted a cat called Miso"
    logged = api.get("/tool-calls/").json()["results"]
    assert [(c["tool_name"], c["success"]) for c in logged] == [("calculator", False)]
    sessions = api.get("/conversations/sessions/").json()["results"]
    assert [s["turn_count"] for s in sessions] == [2]


def _tool_call(call_id: str, name: str, arguments: dict) -> dict:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"id": call_id, "type": "function", "function": function}


def _reply(message: dict) -> bytes:
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    body = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [choice]}
    return json.dumps(body).encode()
