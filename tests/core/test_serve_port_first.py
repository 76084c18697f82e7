"""`make run` checks the port before the migrations and the rest of start-up: `serve
--check-port` ends at once, saying whether the address is free."""

import socket
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.ports import HeldPort


def test_a_free_port_passes_the_check_and_nothing_starts():
    out = StringIO()
    with HeldPort() as port:  # held as the tests hold a port for a server of their own
        call_command("serve", "--check-port", "--port", str(port.number), stdout=out)
    assert "Gaia Memory Server on" not in out.getvalue()


def test_a_busy_port_fails_the_check_naming_gaia_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CommandError, match="GAIA_PORT="):
            call_command("serve", "--check-port", "--port", str(port), stdout=StringIO())


def test_make_run_checks_the_port_first():
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert run[0].strip().endswith("manage.py serve --check-port")
