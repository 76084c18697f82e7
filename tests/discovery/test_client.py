"""The standalone client end to end: against the process's live server, in a process of
its own without Django, and (the refusals) through Django's test client."""

import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from accounts.services import token_create, user_settings_update
from discovery import scan
from discovery.models import Finding
from tests.clients.django_transport import DjangoTransport
from tests.discovery.fakehome import SECRET

REPO = Path(__file__).resolve().parents[2]
NO_DJANGO = (
    "import sys\n"
    "from discovery import scan\n"
    "code = scan.main(sys.argv[1:])\n"
    "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'django', 'rest_framework'})\n"
    "assert not loaded, f'the client imported {loaded}'\n"
    "sys.exit(code)\n"
)


def client_args(fake, server: str, token: str, *extra: str) -> list[str]:
    return ["--server", server, "--token", token, "--home", str(fake.home),
            "--roots", str(fake.src), "--system-root", str(fake.system), *extra]  # fmt: skip


def test_the_client_posts_findings_to_a_live_server(live_server, alice, fake):
    user_settings_update(user=alice, discovery_consent=True)
    _, token = token_create(user=alice, name="laptop")
    out = StringIO()
    code = scan.main(client_args(fake, live_server.url, token, "--days", "3650"), out=out)
    assert code == 0, out.getvalue()
    assert "Sent 31 finding(s): 31 new proposal(s), skipped none." in out.getvalue()
    assert Finding.objects.filter(owner=alice, status="pending").count() == 31
    assert SECRET not in repr(list(Finding.objects.values_list("content", flat=True)))
    assert Finding.objects.get(content="Often visits github.com").sensitive
    out = StringIO()
    assert scan.main(client_args(fake, live_server.url, token, "--days", "3650"), out=out) == 0
    assert "0 new proposal(s), skipped 31 duplicate. Review" in out.getvalue()  # no "0 ..."


@pytest.mark.django_db
def test_the_client_stops_before_scanning_when_the_server_refuses(alice, fake):
    # Through Django's test client, in this test's transaction: the process's live server
    # is shared by every live-server test of the process over one in-memory SQLite
    # connection, so a request of anything else reaching it meanwhile fails this one
    # ("database table is locked"); the real network is the other tests' part.
    _, token = token_create(user=alice, name="laptop")
    out = StringIO()
    server = DjangoTransport()
    assert scan.main(client_args(fake, "http://testserver", token), out=out, transport=server) == 1
    assert "The server refused: Discovery is off for this account" in out.getvalue()
    assert re.search(r"\(HTTP 403, request [0-9a-f]{32}\)$", out.getvalue().strip())
    assert "projects:" not in out.getvalue()
    out = StringIO()
    wrong = client_args(fake, "http://testserver", "gaia_wrong")
    assert scan.main(wrong, out=out, transport=server) == 1
    assert "Invalid, expired or revoked token. (HTTP 401, request " in out.getvalue()
    assert scan.main(client_args(fake, "http://127.0.0.1:9", token), out=StringIO()) == 2
    assert not Finding.objects.exists()


def test_the_client_runs_without_django_in_its_own_process(live_server, alice, fake):
    user_settings_update(user=alice, discovery_consent=True)
    _, token = token_create(user=alice, name="laptop")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "GAIA"))}
    env["PYTHONPATH"] = str(REPO)
    args = client_args(fake, live_server.url, token, "--sources", "email", "git")
    done = subprocess.run(
        [sys.executable, "-c", NO_DJANGO, *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Sent 5 finding(s): 5 new proposal(s)" in done.stdout
    assert set(Finding.objects.values_list("scanner", flat=True)) == {"email", "git"}


def test_a_dry_run_needs_no_server(fake, capsys):
    args = ["--dry-run", "--home", str(fake.home), "--roots", str(fake.src),
            "--system-root", str(fake.system), "--sources", "manifests"]  # fmt: skip
    assert scan.main(args) == 0
    printed = capsys.readouterr().out
    assert "[manifests] Project 'tool-rs' (Cargo.toml) depends on insta, serde, tokio" in printed
    assert "Dry run: 4 finding(s), nothing sent." in printed
    assert scan.main(["--home", str(fake.home)]) == 2


def test_the_module_runs_as_python_dash_m():
    done = subprocess.run(
        [sys.executable, "-m", "discovery.scan", "--help"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "--server" in done.stdout
