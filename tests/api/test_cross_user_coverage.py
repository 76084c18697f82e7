"""Every API and web URL must have a cross-user test: this file fails when one has none.

How to cover an endpoint: name its URL pattern `api-...` (web pages: `web-...`) and
mark a test that shows another user's ids give 404 (the same body as a missing id,
their row unchanged) and that its lists, searches, exports or prompts never contain
the other user's rows:

    @pytest.mark.cross_user("api-memory-detail", "api-memory-restore")
    def test_another_users_id_is_a_404(...): ...

The marker (registered in pyproject.toml) may sit on a test function, a test class or a
module's `pytestmark`. The marks are found by importing every test module under tests/
and reading them, not from the tests pytest happens to collect, so the check holds
however pytest is invoked (one file, -k, xdist). Engineers adding endpoints (discovery,
background tasks, ...) mark their tests the same way.
"""

import importlib
import pkgutil
from collections.abc import Iterator

from django.urls import URLPattern, URLResolver, get_resolver

import tests

MARK = "cross_user"


OWNED_PREFIXES = ("api-", "web-")
# Pages with no user data behind them (tested in tests/web/test_accounts.py).
NO_USER_DATA = {"web-login", "web-logout", "web-signup", "web-password-change"}


def api_patterns(prefixes: tuple[str, ...] = ("api-",)) -> Iterator[tuple[str, URLPattern]]:
    """(name, pattern) for every URL pattern named with one of `prefixes`, at any depth."""

    def walk(patterns):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns)
            elif isinstance(entry, URLPattern) and (entry.name or "").startswith(prefixes):
                yield entry.name, entry

    yield from walk(get_resolver().url_patterns)


def _marks_of(obj) -> list:
    marks = getattr(obj, "pytestmark", [])
    return marks if isinstance(marks, list) else [marks]


def covered_url_names() -> dict[str, list[str]]:
    """url name -> the tests marked as covering it, from every module under tests/."""
    covered: dict[str, list[str]] = {}
    for module_info in pkgutil.walk_packages(tests.__path__, prefix="tests."):
        if not module_info.name.rsplit(".", 1)[-1].startswith("test_"):
            continue
        module = importlib.import_module(module_info.name)
        holders = [(module_info.name, module)]
        for attr, value in vars(module).items():
            if attr.startswith(("test_", "Test")):
                holders.append((f"{module_info.name}::{attr}", value))
                if isinstance(value, type):
                    holders.extend(
                        (f"{module_info.name}::{attr}::{name}", method)
                        for name, method in vars(value).items()
                        if name.startswith("test_")
                    )
        for where, holder in holders:
            for mark in _marks_of(holder):
                if getattr(mark, "name", None) == MARK:
                    for url_name in mark.args:
                        covered.setdefault(url_name, []).append(where)
    return covered


def test_every_api_url_has_a_cross_user_test():
    names = {name for name, _ in api_patterns(OWNED_PREFIXES)}
    assert len(names) >= 20  # the walk finds the API at all
    missing = sorted(names - NO_USER_DATA - set(covered_url_names()))
    assert not missing, f"API URLs without a @pytest.mark.cross_user test: {missing}"


def test_cross_user_marks_name_real_api_urls():
    names = {name for name, _ in api_patterns(OWNED_PREFIXES)}
    unknown = sorted(set(covered_url_names()) - names)
    assert not unknown, f"cross_user marks naming no api-*/web-* URL pattern: {unknown}"


def test_the_scan_finds_marks_in_modules_it_imports_itself():
    covered = covered_url_names()
    assert (
        "tests.api.test_memories::test_another_users_id_is_a_404_like_a_missing_one_and_changes_nothing"
        in covered["api-memory-detail"]
    )
