"""mem0's REAL client (mem0ai 2.2.1, sync and async) against a live server at /mem0.

mem0ai needs protobuf<7 and this server runs with protobuf 7, so the SDK lives in its own
virtualenv (requirements-mem0.txt): `make test` makes it, and so does this module when it
is missing. The client runs in a subprocess of that virtualenv (tests/mem0api/
sdk_session.py) with mem0's telemetry off (MEM0_TELEMETRY=False) and its config directory
in the test's temporary folder: nothing leaves the machine.
"""

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accounts.people import app_create, app_token_create
from tests.learning import fake_llm as f
from tests.learning.fake_llm import FakeLLM

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("GAIA_MEM0_VENV", ROOT / ".venv-mem0"))
REQUIREMENTS = ROOT / "requirements-mem0.txt"
SCRIPT = Path(__file__).with_name("sdk_session.py")
INSTALL_TIMEOUT = 900.0
RUN_TIMEOUT = 600.0

# redis: an app's SDK end to end, in CI's production pass too (its broker and cache)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


@pytest.fixture(scope="session")
def mem0_python() -> Path:
    """The mem0 virtualenv's python, made (once, under a lock) when it is missing or
    older than requirements-mem0.txt."""
    python, marker = VENV / "bin" / "python", VENV / ".installed"
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(VENV.parent / ".venv-mem0.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists() or marker.stat().st_mtime < REQUIREMENTS.stat().st_mtime:
            if not python.exists():
                subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 "-r", str(REQUIREMENTS)],
                check=True,
                timeout=INSTALL_TIMEOUT,
            )  # fmt: skip
            marker.touch()
    return python


def run_sdk(python: Path, tmp_path: Path, **given: str) -> dict:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "MEM0_DIR": str(tmp_path / "mem0"),
        "MEM0_TELEMETRY": "False",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    done = subprocess.run(
        [str(python), str(SCRIPT), json.dumps(given)],
        capture_output=True,
        text=True,
        env=env,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def app_key(name: str) -> str:
    _, secret = app_token_create(app=app_create(name=name), name="prod")
    return secret


@pytest.fixture
def keys() -> dict[str, str]:
    return {"key": app_key("tutor-site"), "other_key": app_key("shop-bot")}


def memories(answer: dict) -> list[str]:
    return [m["memory"] for m in answer["results"]]


def test_mem0s_sync_and_async_clients_work_against_the_server(
    mem0_python, live_server, keys, tmp_path, settings
):
    settings.GAIA_LLM_URL = ""
    seen = run_sdk(mem0_python, tmp_path, phase="everything", host=f"{live_server.url}/mem0",
                   **keys)  # fmt: skip
    run = seen["sync"]
    assert run["ping"] == ["tutor-site", "tutor-site", None]
    assert [m["event"] for m in run["add_maria"]["results"]] == ["ADD", "ADD"]
    assert run["add_joao"]["results"][0]["user_id"] == "joao"
    assert run["add_inferred"]["status"] == "PENDING"
    assert "no LLM is configured" in run["add_inferred"]["message"]
    assert memories(run["search"]) == ["Maria studies organic chemistry in Porto"]
    assert {m["user_id"] for m in run["search_or"]["results"]} == {"maria", "joao"}
    assert set(memories(run["search_run"])) == {
        "Maria studies organic chemistry in Porto",
        "Maria prefers lessons in the evening",
    }
    assert run["search_unknown"] == {"results": []}
    assert run["get_all"]["count"] == 2 and len(run["get_all"]["results"]) == 1
    assert run["get_all"]["next"].endswith("page=2&page_size=1")
    assert run["get"]["memory"] == "Maria studies organic chemistry in Porto"
    assert run["get"]["agent_id"] == "chem-tutor" and run["get"]["run_id"] == "lesson-1"
    assert run["get"]["metadata"] == {"course": "chem-101"}
    assert run["update"]["memory"] == "Maria studies biochemistry in Porto"
    assert run["update_metadata"]["metadata"] == {"level": 2}
    assert [h["event"] for h in run["history"]] == ["ADD", "UPDATE"]
    assert run["history"][1]["changed_by"]["token"] == "tutor-site/prod"

    other = run["other"]
    assert other["search"] == {"results": []} and other["get_all"]["count"] == 0
    assert other["users"]["results"] == []
    for call in ("get", "update", "history", "delete", "batch_update", "batch_delete",
                 "delete_users"):  # fmt: skip
        assert other[call]["raised"] == "MemoryNotFoundError", call
    assert other["delete_all"]["deleted"] == 0
    assert run["after_other"]["memory"] == "Maria studies biochemistry in Porto"

    assert run["batch_update"] == {"message": "Successfully updated 1 memories"}
    assert run["get_second"]["memory"] == "Maria prefers lessons in the morning"
    users = {(e["type"], e["name"]) for e in run["users"]["results"]}
    assert {("user", "maria"), ("user", "joao"), ("agent", "chem-tutor"),
            ("run", "lesson-1"), ("run", "chat-7")} <= users  # fmt: skip
    assert run["feedback"]["raised"] == "MemoryError"
    assert "feedback is not supported" in run["feedback"]["message"]
    assert run["delete"] == {"message": "Memory deleted successfully!"}
    assert run["get_deleted"]["raised"] == "MemoryNotFoundError"
    assert run["batch_delete"] == {"message": "Successfully deleted 1 memories"}
    assert run["delete_all"]["deleted"] == 1 and run["get_all_joao"]["count"] == 0
    assert run["delete_users"] == {"message": "Entity deleted successfully."}
    assert ("user", "maria") not in {(e["type"], e["name"]) for e in run["users_after"]["results"]}
    assert run["bad_key"]["raised"] == "ValueError"
    assert "Invalid or revoked app token" in run["bad_key"]["message"]

    run = seen["async"]
    assert run["ping"] == ["tutor-site", "tutor-site"]
    assert memories(run["search"]) == ["Ana learns the violin with Mr Costa"]
    assert len(run["search_agent"]["results"]) == 2 and run["get_all"]["count"] == 2
    assert run["update"]["memory"] == "Ana learns the viola with Mr Costa"
    assert [h["event"] for h in run["history"]] == ["ADD", "UPDATE"]
    assert run["other"]["search"] == {"results": []} and run["other"]["get_all"]["count"] == 0
    assert all(e["name"] != "ana" for e in run["other"]["users"]["results"])
    for call in ("get", "delete", "batch_delete"):
        assert run["other"][call]["raised"] == "MemoryNotFoundError", call
    assert run["batch_update"] == {"message": "Successfully updated 1 memories"}
    assert ("user", "ana") in {(e["type"], e["name"]) for e in run["users"]["results"]}
    assert run["get_deleted"]["raised"] == "MemoryNotFoundError"
    assert run["delete_all"]["deleted"] == 1
    assert all(e["name"] != "ana" for e in run["users_after"]["results"])


def test_an_inferred_add_is_learned_by_extraction_with_a_model(
    mem0_python, live_server, keys, tmp_path, settings, monkeypatch
):
    model = FakeLLM()
    learned = {"op": "add", "category": "fact", "content": "User is moving to Lisbon next month"}
    model.then(f.answer({"operations": [learned]}))
    settings.GAIA_LLM_URL, settings.GAIA_LLM_MODEL = model.url, "fake-model"
    settings.GAIA_LLM_API_KEY = "test-key"
    monkeypatch.setattr("django_q.conf.Conf.SYNC", True)  # the task runs as the worker would
    try:
        seen = run_sdk(mem0_python, tmp_path, phase="learned", host=f"{live_server.url}/mem0",
                       **keys)  # fmt: skip
    finally:
        model.close()
    assert seen["add"]["status"] == "PENDING"
    assert "queued for background execution" in seen["add"]["message"]
    assert memories(seen["search"])[0] == "User is moving to Lisbon next month"
    assert seen["get_all"]["results"][0]["run_id"] == "chat-1"


def test_mem0s_filters_and_dates_select_exactly_the_persons_memories(
    mem0_python, live_server, keys, tmp_path, settings
):
    settings.GAIA_LLM_URL = ""
    seen = run_sdk(mem0_python, tmp_path, phase="filters", host=f"{live_server.url}/mem0",
                   **keys)  # fmt: skip
    ids = seen["added"]
    assert seen["get"]["created_at"].startswith("2021-02-01T00:00:00")
    expected = {
        "metadata": {ids["paris"]},
        "compare": {ids["cats"]},
        "dates": {ids["paris"]},
        "category": set(ids.values()),
        "not": {ids["cats"], ids["running"]},
    }
    for name, want in expected.items():
        assert {m["id"] for m in seen[f"search_{name}"]["results"]} == want, name
        assert {m["id"] for m in seen[f"get_all_{name}"]["results"]} == want, name
        assert seen[f"get_all_{name}"]["count"] == len(want), name
        theirs = {m["id"] for m in seen[f"other_{name}"]["results"]}
        assert not theirs & set(ids.values()), name
    assert seen["other_search_not"] == {"results": []}  # the shop's Lena: only a work memory
    records = seen["export"]["records"]
    assert seen["export"]["user_id"] == "lena"
    assert {r["content"] for r in records if r["type"] == "knowledge"} == {
        "Lena moved to Paris for a design job",
        "Lena has two cats named Miso and Tofu",
        "Lena runs a half marathon every spring",
    }
    assert seen["other_export"]["raised"] == "MemoryNotFoundError"
    assert seen["create_export"]["raised"] == "MemoryError"
    assert "get_memory_export" in seen["create_export"]["message"]
