"""The house-wide guards: every URL has a cross-user test, and imports point down.

## Cross-user coverage

Every API and web URL must have a cross-user test: this file fails when one has none.

How to cover an endpoint: name its URL pattern `api-...` (web pages: `web-...`) and
mark a test that shows another user's ids give 404 (the same body as a missing id,
their row unchanged) and that its lists, searches, exports or prompts never contain
the other user's rows:

    @pytest.mark.cross_user("api-memory-detail", "api-memory-restore")
    def test_another_users_id_is_a_404(...): ...

The marker (registered in pyproject.toml) may sit on a test function, a test class or a
module's `pytestmark`. The marks are read from the source of every test module under
tests/ with `ast` (tests/marks.py), not from the tests pytest happens to collect, so the
check holds however pytest is invoked (one file, -k, xdist), and imports no test module.
Engineers adding endpoints (discovery, background tasks, ...) mark their tests the same way.

## The import order

Apps own their data and sit in one downward order (docs/architecture.md):

    core < accounts < webhooks < retrieval < conversations < graph < memory < learning < skills
    < discovery < privacy

A domain module (models, services, selectors, search, jobs: anything that is not an
edge) imports only its own app and the apps before it, and never an edge. Edges (API
views, serializers, pages, forms, admin, commands, tasks, urls, app configs, the agent
tool dispatcher) may import any app. `bench` stands apart: it may import any app, and
none imports it. Imports of our own modules sit at the top of the file, except the few
in ALLOWED_LATE_IMPORTS, each with its reason.

## No cycle between apps

Draw an arrow from app A to app B for every import of B by a module of A, then no app
may reach itself: no cycle of any length. Every module counts as its app's (domain
modules, serializers, forms, app configs, template tags, the apps' agent tools) except
the edges that sit on top (ON_TOP: views and pages, APIs, admin, tasks, management
commands and the URL confs that route to them), which are nodes of their own: such an
edge may import any app, and it closes a cycle only if a module that counts for an app
imports it. Memory's agent surface (EDGES_OF_THEIR_APP: the prompt and tool views and the
MCP server, which apps above memory join through its hooks) counts as memory's although
it is an API. `gaia_site` and `bench` modules are nodes of their own too.
"""

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.marks import marked, marked_in_tests

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


def covered_url_names() -> dict[str, list[str]]:
    """url name -> the tests marked as covering it, read from every module under tests/."""
    return marked_in_tests(MARK)


def test_every_api_url_has_a_cross_user_test():
    names = {name for name, _ in api_patterns(OWNED_PREFIXES)}
    assert len(names) >= 20  # the walk finds the API at all
    missing = sorted(names - NO_USER_DATA - set(covered_url_names()))
    assert not missing, f"API URLs without a @pytest.mark.cross_user test: {missing}"


def test_cross_user_marks_name_real_api_urls():
    names = {name for name, _ in api_patterns(OWNED_PREFIXES)}
    unknown = sorted(set(covered_url_names()) - names)
    assert not unknown, f"cross_user marks naming no api-*/web-* URL pattern: {unknown}"


def test_the_scan_finds_marks_in_every_module_it_reads():
    covered = covered_url_names()
    assert (
        "tests.api.test_memories::test_another_users_id_is_a_404_like_a_missing_one_and_changes_nothing"
        in covered["api-memory-detail"]
    )


def test_the_scan_reads_marks_on_modules_classes_and_methods_and_refuses_what_it_cannot():
    source = (
        "import pytest\n"
        "URLS = ('api-a', 'api-b')\n"
        "pytestmark = [pytest.mark.django_db, pytest.mark.cross_user('api-m')]\n"
        "@pytest.mark.cross_user(*URLS)\n"
        "def test_f(): ...\n"
        "class TestC:\n"
        "    @pytest.mark.cross_user('api-c')\n"
        "    def test_g(self): ...\n"
    )
    assert marked(MARK, source, "tests.x") == {
        "api-m": ["tests.x"],
        "api-a": ["tests.x::test_f"],
        "api-b": ["tests.x::test_f"],
        "api-c": ["tests.x::TestC::test_g"],
    }
    with pytest.raises(ValueError, match="no string: name_of"):
        marked(MARK, "@pytest.mark.cross_user(name_of())\ndef test_h(): ...\n", "tests.y")


# --- The import order -------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
# webhooks just above accounts: memory, conversations, learning and privacy emit its events.
ORDER = ["core", "accounts", "webhooks", "retrieval", "conversations", "memory", "learning"]
# graph just below memory: its relations point at turns, it names items by id, and
# memory's recall follows its relations by calling it (docs/graph.md says why).
ORDER.insert(ORDER.index("memory"), "graph")
ORDER.append("skills")
ORDER.append("discovery")
ORDER.append("privacy")
# mem0's platform API: edges only (views, serializers, urls) over every app's services.
ORDER.append("mem0api")
APART = "bench"
SITE = "gaia_site"
OURS = {*ORDER, APART, SITE}
EDGE_FOLDERS = {"api", "web", "management", "templatetags", "migrations"}
EDGE_FILES = {
    "admin",
    "agent_tools",
    "api",
    "apps",
    "forms",
    "serializers",
    "tasks",
    "urls",
    "views",
    "web",
    "web_urls",
    "api_urls",
}
# The edges that sit on top in the cycle check: views and pages, APIs, admin, tasks,
# management commands, and the URL confs that route to them. Every other module counts as
# its app's.
ON_TOP_FOLDERS = {"api", "web", "management"}
ON_TOP_FILES = {"admin", "api", "api_urls", "tasks", "urls", "views", "web", "web_urls"}
# APIs that count as their app's own all the same (docs/architecture.md, "The import
# order", names them): what memory offers an agent is memory's, whoever adds to it.
EDGES_OF_THEIR_APP = {
    "memory.agent_tools",
    "memory.api.prompt",
    "memory.api.mcp_server",
    "memory.api.mcp_view",
}
# (file, module it imports inside a function): why it cannot be at the top.
ALLOWED_LATE_IMPORTS = {
    ("core/apps.py", "core.receivers"): "they import django-q2's models: only in ready()",
    ("learning/apps.py", "learning.receivers"): "they import models: only in ready()",
    ("retrieval/apps.py", "retrieval.receivers"): "they import models: only in ready()",
    ("skills/apps.py", "skills.receivers"): "they import models: only in ready()",
    ("learning/apps.py", "learning.agent_tools"): (
        "it registers extract with memory's agent surface and imports models: only in ready()"
    ),
    ("skills/apps.py", "skills.agent_tools"): (
        "it registers recall_skills and Learned procedures with memory's agent surface and "
        "imports models: only in ready()"
    ),
    ("bench/loadbench/gunicorn_conf.py", "retrieval.indexes"): (
        "a gunicorn config loads before Django: only in a worker hook"
    ),
    ("memory/api/mcp_view.py", "memory.api.mcp_server"): (
        "the MCP SDK under it takes ~0.7 s of CPU to import: by the first /mcp request, not "
        "by every process that loads the URLs"
    ),
}


@dataclass(frozen=True)
class Import:
    path: str  # the importing file, relative to the repository
    module: str  # the module it names
    top: bool  # at the top level of the file


def is_edge(module: str) -> bool:
    parts = module.split(".")
    return (
        parts[0] in (SITE, APART)
        or any(part in EDGE_FOLDERS for part in parts[1:-1])
        or (len(parts) == 2 and parts[-1] in EDGE_FILES)  # app/views.py, not a/b/apps.py
    )


def module_of(path: str) -> str:
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_in(path: str, source: str) -> list[Import]:
    """Every import of our own modules in `source`, with whether it sits at the top."""
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # "from package import module" names the module; other names, the package
            base = ROOT / node.module.replace(".", "/")
            names = sorted(
                {
                    f"{node.module}.{alias.name}"
                    if (base / f"{alias.name}.py").exists() or (base / alias.name).is_dir()
                    else node.module
                    for alias in node.names
                }
            )
        else:
            continue
        for name in names:
            if name.split(".")[0] in OURS:
                found.append(Import(path, name, id(node) in top))
    return found


def violations(path: str, source: str) -> list[str]:
    """What breaks the house rules in one file."""
    importer = module_of(path)
    app = importer.split(".")[0]
    problems = []
    for imp in imports_in(path, source):
        target_app = imp.module.split(".")[0]
        if not imp.top and (path, imp.module) not in ALLOWED_LATE_IMPORTS:
            problems.append(f"{path}: imports {imp.module} inside a function")
        if target_app == APART and app != APART:
            problems.append(f"{path}: imports {imp.module} (bench stands apart)")
            continue
        if is_edge(importer) or app not in ORDER:
            continue
        if target_app not in ORDER:
            problems.append(f"{path}: a domain module imports {imp.module}")
        elif ORDER.index(target_app) > ORDER.index(app):
            problems.append(f"{path}: imports {imp.module}, which sits above {app}")
        elif is_edge(imp.module):
            problems.append(f"{path}: a domain module imports the edge {imp.module}")
    return problems


def our_files() -> list[Path]:
    return sorted(
        p for folder in OURS for p in (ROOT / folder).rglob("*.py") if "migrations" not in p.parts
    )


def test_imports_point_down_and_sit_at_the_top():
    files = our_files()
    assert len(files) > 150  # the walk finds the code at all
    problems = [
        problem
        for p in files
        for problem in violations(p.relative_to(ROOT).as_posix(), p.read_text())
    ]
    assert not problems, "\n".join(problems)


def test_few_late_imports_are_allowed_and_each_is_still_needed():
    assert len(ALLOWED_LATE_IMPORTS) <= 8
    late = {
        (imp.path, imp.module)
        for p in our_files()
        for imp in imports_in(p.relative_to(ROOT).as_posix(), p.read_text())
        if not imp.top
    }
    assert set(ALLOWED_LATE_IMPORTS) <= late, "an allowed late import is gone: drop it"


def test_no_two_apps_import_each_other_from_domain_code():
    edges: set[tuple[str, str]] = set()
    for p in our_files():
        path = p.relative_to(ROOT).as_posix()
        if is_edge(module_of(path)):
            continue
        for imp in imports_in(path, p.read_text()):
            edges.add((path.split("/")[0], imp.module.split(".")[0]))
    assert not {(a, b) for a, b in edges if a != b and (b, a) in edges}


def on_top(module: str) -> bool:
    """A view, page, API, admin, task, management command or URL conf (see above)."""
    parts = module.split(".")
    return (
        parts[0] in (SITE, APART)
        or any(part in ON_TOP_FOLDERS for part in parts[1:-1])
        or (len(parts) == 2 and parts[-1] in ON_TOP_FILES)
    )


def node_of(module: str) -> str:
    """The node of the cycle check a module belongs to: its app, or itself (see above)."""
    app = module.split(".")[0]
    if app in ORDER and (not on_top(module) or module in EDGES_OF_THEIR_APP):
        return app
    return module


def app_cycles(files: dict[str, str]) -> list[str]:
    """Each pair of apps that reach each other through the imports of `files` (path ->
    source), with the two paths that close the cycle."""
    arrows: dict[str, set[str]] = {}
    for path, source in files.items():
        here = node_of(module_of(path))
        for imp in imports_in(path, source):
            there = node_of(imp.module)
            if there != here:
                arrows.setdefault(here, set()).add(there)

    def path_between(start: str, goal: str) -> list[str] | None:
        came_from: dict[str, str] = {start: start}
        queue = [start]
        for node in queue:
            if node == goal:
                route = [goal]
                while route[-1] != start:
                    route.append(came_from[route[-1]])
                return route[::-1]
            for step in sorted(arrows.get(node, ())):
                if step not in came_from:
                    came_from[step] = node
                    queue.append(step)
        return None

    cycles = []
    for low, app in enumerate(ORDER):
        for other in ORDER[low + 1 :]:
            up, down = path_between(app, other), path_between(other, app)
            if up and down:
                cycles.append(f"{' -> '.join(up)} -> {' -> '.join(down[1:])}")
    return cycles


def test_no_cycle_between_apps_through_domain_modules_or_their_edges():
    files = {p.relative_to(ROOT).as_posix(): p.read_text() for p in our_files()}
    cycles = app_cycles(files)
    assert not cycles, "import cycles between apps:\n" + "\n".join(cycles)


def test_the_cycle_guard_catches_a_cycle_through_an_apps_own_edge():
    files = {
        "memory/agent_tools.py": "from skills.search import skills_search\n",
        "skills/search.py": "from memory.models import KnowledgeItem\n",
    }
    assert app_cycles(files) == ["memory -> skills -> memory"]


def test_the_cycle_guard_catches_a_cycle_through_a_lower_apps_agent_tools():
    files = {
        "memory/selectors.py": "from graph.selectors import filter_keys\n",
        "graph/agent_tools.py": "from memory.models import KnowledgeItem\n",
    }
    assert app_cycles(files) == ["graph -> memory -> graph"]


def test_the_cycle_guard_catches_a_cycle_through_serializers_and_forms():
    files = {
        "memory/services.py": "from graph.services import relation_add\n",
        "graph/serializers.py": "from memory.forms import MemoryForm\n",
    }
    assert app_cycles(files) == ["graph -> memory -> graph"]


def test_the_cycle_guard_lets_an_edge_on_top_call_any_app():
    files = {
        "memory/api/memories.py": "from privacy import services\n",
        "privacy/services.py": "from memory.models import KnowledgeItem\n",
    }
    assert app_cycles(files) == []


def test_the_docs_name_the_edges_that_count_as_their_app():
    docs = (ROOT / "docs" / "architecture.md").read_text()
    for module in EDGES_OF_THEIR_APP:
        assert f"`{module.replace('.', '/')}.py`" in docs, module


def test_the_guard_catches_an_upward_import():
    assert violations("core/validation.py", "from memory.models import KnowledgeItem\n") == [
        "core/validation.py: imports memory.models, which sits above core"
    ]


def test_the_guard_catches_a_hidden_import():
    source = "def f():\n    from retrieval import keyword\n"
    assert violations("memory/services.py", source) == [
        "memory/services.py: imports retrieval.keyword inside a function"
    ]


def test_the_guard_catches_a_domain_module_importing_an_edge():
    source = "from memory.api import serializers\n"
    assert violations("memory/services.py", source) == [
        "memory/services.py: a domain module imports the edge memory.api.serializers",
    ]


def test_edges_may_call_any_app_and_nothing_imports_bench():
    assert violations("memory/api/memories.py", "from privacy import services\n") == []
    assert violations("privacy/services.py", "from bench import speed\n") == [
        "privacy/services.py: imports bench.speed (bench stands apart)",
    ]


# --- One door per question --------------------------------------------------------

# The modules through which people and agents reach items by id: the API's views, the
# tool dispatcher (REST, MCP), mem0's API. "A forgotten item is missing" is decided once,
# in memory.selectors.memory_visible.
DOORS = ["memory/api", "memory/agent_tools.py", "mem0api"]


def _attributes(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}


def _modules(*places: str) -> list[Path]:
    return sorted(
        p for place in places for p in ([ROOT / place] if place.endswith(".py")
                                        else (ROOT / place).rglob("*.py"))
    )  # fmt: skip


def test_no_door_decides_itself_whether_a_forgotten_item_is_missing():
    doors = _modules(*DOORS)
    assert len(doors) > 10
    deciding = [str(p.relative_to(ROOT)) for p in doors if "forgotten_at" in _attributes(p)]
    assert deciding == []
    assert "memory_visible" in (ROOT / "memory" / "selectors.py").read_text()


def test_mem0s_api_reaches_other_apps_tables_through_their_selectors_and_services_only():
    reading = [str(p.relative_to(ROOT)) for p in _modules("mem0api") if "objects" in _attributes(p)]
    assert reading == []
