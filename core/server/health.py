"""Health checks: each subsystem registers one; the health endpoint runs them all.

A check returns a dict with at least {"ok": bool}; it must be fast and never raise
(a raised exception is reported as not ok with its message).
"""

from collections.abc import Callable
from typing import Any

Check = Callable[[], dict[str, Any]]
_checks: dict[str, Check] = {}


def register(name: str, check: Check) -> None:
    _checks[name] = check


def run_all() -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for name, check in sorted(_checks.items()):
        try:
            results[name] = check()
        except Exception as error:  # a broken check must not break the health endpoint
            results[name] = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    return results
