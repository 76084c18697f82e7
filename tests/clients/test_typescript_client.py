"""The TypeScript client (clients/typescript) built with its own TypeScript compiler and
tested under Node against a live server: its node:test suites run in a subprocess with a
person's token and an app's token of this test's database.

The client's dev packages (typescript, ai) come from its package-lock.json: `make test`
runs `npm ci` there, and so does this module when they are missing. Node comes from the
machine (Debian's nodejs in CI, .ci/run).
"""

import fcntl
import os
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest

from accounts.models import AgentType
from accounts.people import app_create, app_token_create
from accounts.services import token_create
from memory.services import memory_session_note

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"
INSTALL_TIMEOUT = 600.0
# No install scripts: nothing here builds native code (mem0ai's optional peers would).
NPM_CI = ("--ignore-scripts", "--no-audit", "--no-fund")
RUN_TIMEOUT = 600.0

# redis: an app's SDK end to end, in CI's production pass too (its broker and cache)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


def _npm(*args: str, timeout: float) -> subprocess.CompletedProcess:
    npm = shutil.which("npm")
    assert npm, "npm is not installed (Debian: apt-get install nodejs npm)"
    return subprocess.run([npm, *args], cwd=CLIENT, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


@pytest.fixture(scope="session")
def built_client() -> Path:
    """The client compiled (dist/), its dev packages installed once under a lock."""
    marker = CLIENT / "node_modules" / ".package-lock.json"
    with open(CLIENT / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lockfile = CLIENT / "package-lock.json"
        if not marker.exists() or marker.stat().st_mtime < lockfile.stat().st_mtime:
            done = _npm("ci", *NPM_CI, timeout=INSTALL_TIMEOUT)
            assert done.returncode == 0, done.stderr[-4000:]
        done = _npm("run", "build", timeout=RUN_TIMEOUT)
        assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return CLIENT / "dist"


def _node_test(files: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    node = shutil.which("node")
    assert node, "node is not installed (Debian: apt-get install nodejs)"
    return subprocess.run(
        [node, "--test", "--test-reporter=tap", *files],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NO_PROXY": "127.0.0.1",
             "HOME": env.pop("HOME"), **env},
        timeout=RUN_TIMEOUT,
    )  # fmt: skip


def _agent_of(person) -> str:
    """A token of `person`'s agent, which may take a registered type, and a diary note."""
    AgentType.objects.create(name="mail_agent")
    memory_session_note(
        user=person,
        session_id="s-boat",
        content="Talked about repainting the sailing boat's hull in antifouling blue",
        context="global",
        source_turn=None,
        first=date(2026, 11, 2),
        last=date(2026, 11, 2),
    )
    return token_create(user=person, name="ts-mail-agent")[1]


def test_the_typescript_client_passes_its_tests_against_a_live_server(
    built_client, live_server, alice, bob, tmp_path, settings
):
    settings.GAIA_LLM_URL = ""
    _, person_token = token_create(user=alice, name="ts-agent")
    _, app_token = app_token_create(app=app_create(name="ts-app"), name="prod")
    _, other_token = app_token_create(app=app_create(name="ts-other-app"), name="prod")
    done = _node_test(
        ["test/live.test.mjs", "test/agents.test.mjs", "test/retry.test.mjs",
         "test/mem0-sdk.test.mjs"],
        {"GAIA_TEST_URL": live_server.url, "GAIA_TEST_TOKEN": person_token,
         "GAIA_TEST_AGENT_TOKEN": _agent_of(bob), "GAIA_TEST_AGENT_TYPE": "mail_agent",
         "GAIA_TEST_APP_TOKEN": app_token, "GAIA_TEST_OTHER_APP_TOKEN": other_token,
         "MEM0_TELEMETRY": "false", "HOME": str(tmp_path)},
    )  # fmt: skip
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    for line in ("# pass 19", "# fail 0", "# skipped 0"):
        assert line in report, report[-3000:]
