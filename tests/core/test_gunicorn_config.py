"""How a web worker ends: with the exit code gunicorn was leaving with, through os._exit."""

import pytest

from core.server import gunicorn_config


@pytest.fixture
def exits(monkeypatch):
    codes: list[int] = []
    monkeypatch.setattr(gunicorn_config.logging, "shutdown", lambda: None)  # pytest's handlers
    monkeypatch.setattr(gunicorn_config.os, "_exit", codes.append)
    return codes


def _leaving(error: BaseException | None) -> None:
    """Call the hook as gunicorn does: in a `finally` while the worker's exit unwinds."""
    try:
        try:
            if error is not None:
                raise error
        finally:
            gunicorn_config.worker_exit(None, None)
    except BaseException:  # what unwound is not this test's concern
        pass


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (SystemExit(0), 0),
        (SystemExit(None), 0),  # sys.exit()
        (SystemExit(3), 3),  # gunicorn's "worker failed to boot"
        (SystemExit("could not load the app"), 1),
        (RuntimeError("crash"), 1),
        (None, 0),
    ],
)
def test_the_worker_ends_with_the_code_it_was_leaving_with(exits, error, code):
    _leaving(error)
    assert exits == [code]
