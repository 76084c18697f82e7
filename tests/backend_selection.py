"""Which tests CI runs on PostgreSQL (docs/testing.md): those that run the code whose SQL
differs by backend, found by per-test coverage and written to tests/backend_tests.txt.

    python -m tests.backend_selection write        # measure every test, write the list
    python -m tests.backend_selection write --new  # measure only the tests not listed yet
    python -m tests.backend_selection write --reuse  # the last measurement again (var/reports/)
    python -m tests.backend_selection ids          # the PostgreSQL pass's tests, for pytest
    python -m tests.backend_selection cov-args     # pytest-cov's arguments for those modules
    python -m tests.backend_selection report DATA  # backend-specific lines a run ran

Backend-specific code is found in the source, not listed by hand: a function of our apps
that branches on a connection's `vendor`, runs SQL through a cursor, or holds (or names a
module-level) SQL text. Its modules are the backend-specific modules. A test is selected
when coverage on PostgreSQL shows it running lines of those functions and it is needed so
that every such line runs in at least SPREAD selected tests (or in every test that runs
it, where fewer do); `--new` selects a new test whenever it runs any such line. The
migrations need no selection: every PostgreSQL run migrates its test database first.
"""

import argparse
import ast
import os
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from xml.etree import ElementTree

from coverage import CoverageData
from coverage.python import PythonParser

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "backend_tests.txt"
APPS = (
    "core accounts webhooks retrieval conversations graph memory learning skills discovery "
    "privacy mem0api".split()
)
# Run on PostgreSQL whatever coverage says: the isolation sweep (every URL, every job).
ALWAYS = (
    "tests/security/test_isolation_sweep.py",
    "tests/security/test_isolation_tasks.py",
    "tests/mem0api/test_isolation_sweep.py",
)
# Never in the list: the system tests run on PostgreSQL + Redis in a pass of their own.
APART = "tests/system/"
SPREAD = 15
SQL = re.compile(
    r"\b(SELECT|INSERT|UPDATE|DELETE|VACUUM|PRAGMA|CREATE|DROP|ANALYZE|REINDEX)\b"
    r"|\bMATCH\b|tsquery|tsvector|bm25\("
)
SQL_ATTRIBUTES = {"vendor", "cursor", "execute", "executemany"}
DJANGO_CONNECTION = re.compile(r"^from django\.db import .*\bconnections?\b", re.MULTILINE)


def _sql_names(tree: ast.Module) -> set[str]:
    """Module-level names bound to SQL text."""
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for text in ast.walk(node.value)
        if isinstance(text, ast.Constant) and isinstance(text.value, str) and SQL.search(text.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _speaks_sql(function: ast.AST, sql_names: set[str]) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and node.attr in SQL_ATTRIBUTES:
            return True
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and SQL.search(node.value)
        ):
            return True
        if isinstance(node, ast.Name) and node.id in sql_names:
            return True
    return False


def backend_lines(source: str) -> dict[str, set[int]]:
    """qualified function name -> its statements' lines (as coverage counts them), for each
    function of `source` whose SQL differs by backend (see the module docstring)."""
    tree = ast.parse(source)
    sql_names = _sql_names(tree)
    parser = PythonParser(text=source)
    parser.parse_source()
    found: dict[str, set[int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                is_function = not isinstance(child, ast.ClassDef)
                if is_function and _speaks_sql(child, sql_names):
                    body = range(child.body[0].lineno, child.end_lineno + 1)
                    found[name] = set(body) & parser.statements
                visit(child, f"{name}.")

    visit(tree, "")
    return found


def _statement_of(path: Path) -> PythonParser:
    parser = PythonParser(text=path.read_text())
    parser.parse_source()
    return parser


def backend_modules() -> dict[str, dict[str, set[int]]]:
    """path -> backend-specific functions, for every module of our apps (no migrations)."""
    found = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            source = path.read_text()
            if ".vendor" not in source and not DJANGO_CONNECTION.search(source):
                continue  # no database connection of Django's (a browser's sqlite3 file is not)
            if functions := backend_lines(source):
                found[path.relative_to(ROOT).as_posix()] = functions
    return found


def backend_packages() -> list[str]:
    """The apps holding backend-specific modules (what coverage measures)."""
    return sorted({module.split("/")[0] for module in backend_modules()})


def every_test_function(root: Path = ROOT / "tests") -> list[str]:
    """The id of every test function under tests/ but tests/system, read with ast
    (`path::name`, `path::Class::name`; a parametrized function is one id)."""
    ids = []
    for path in sorted(root.rglob("test_*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where.startswith(APART):
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("test_"):
                    ids.append(f"{where}::{node.name}")
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                ids.extend(
                    f"{where}::{node.name}::{item.name}"
                    for item in node.body
                    if isinstance(item, ast.FunctionDef) and item.name.startswith("test_")
                )
    return ids


def read_list(path: Path = LIST) -> dict[str, list[str]]:
    """The sections of the list file: modules, postgres, neutral."""
    sections: dict[str, list[str]] = {"modules": [], "postgres": [], "neutral": []}
    current = None
    for line in path.read_text().splitlines() if path.exists() else []:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        elif current is not None:
            current.append(line)
    return sections


HEADER = """\
# The tests CI runs on PostgreSQL (besides the isolation sweep and tests/system): those
# that run the code whose SQL differs by backend. Written by `make backend-tests`
# (tests/backend_selection.py, docs/testing.md) from per-test coverage on PostgreSQL:
# do not edit by hand. Every test function is listed once, postgres or neutral.
"""


def write_list(modules: Iterable[str], postgres: Iterable[str], neutral: Iterable[str]) -> None:
    parts = [HEADER]
    for name, rows in (("modules", modules), ("postgres", postgres), ("neutral", neutral)):
        parts.append(f"\n[{name}]\n" + "".join(f"{row}\n" for row in sorted(set(rows))))
    LIST.write_text("".join(parts))


def function_of(context: str) -> str:
    """A coverage context (`path::name[param]|run`) -> the test function's id."""
    return re.sub(r"\[.*\]$", "", context.rsplit("|", 1)[0])


def tests_per_line(data_file: Path, modules: dict[str, dict[str, set[int]]]):
    """(module, line) -> the test functions that ran it, for every backend-specific line."""
    data = CoverageData(basename=str(data_file))
    data.read()
    measured = {Path(f).resolve().relative_to(ROOT).as_posix(): f for f in data.measured_files()}
    found: dict[tuple[str, int], set[str]] = {}
    for module, functions in modules.items():
        if module not in measured:
            continue
        lines = set().union(*functions.values())
        parser = _statement_of(ROOT / module)
        for line, contexts in data.contexts_by_lineno(measured[module]).items():
            statement = parser.first_line(line)
            if statement in lines:
                tests = found.setdefault((module, statement), set())
                tests |= {function_of(c) for c in contexts if c}
    return found


def spread_selection(
    per_line: dict[tuple[str, int], set[str]], seconds: dict[str, float]
) -> set[str]:
    """The tests that run every line in at least SPREAD of them (every test that runs a line
    run by fewer): the tests of the rarer paths all, and for the paths nearly every test
    takes (a write's generation bump, every recall's keyword query) the quickest tests that
    together give each line SPREAD runs."""
    chosen = {t for tests in per_line.values() if len(tests) <= SPREAD for t in tests}
    short = {
        line: SPREAD - len(tests & chosen)
        for line, tests in per_line.items()
        if len(tests) > SPREAD and len(tests & chosen) < SPREAD
    }
    lines_of: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for line, tests in per_line.items():
        for test in tests - chosen:
            lines_of[test].add(line)
    while short:
        best = max(
            lines_of,
            key=lambda t: (len(lines_of[t] & short.keys()) / (seconds.get(t, 1.0) + 0.05), t),
        )
        chosen.add(best)
        for line in lines_of.pop(best) & short.keys():
            short[line] -= 1
            if not short[line]:
                del short[line]
    return chosen


def junit_seconds(report: Path) -> dict[str, float]:
    """test function id -> seconds, summed over its cases, from a JUnit XML report."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ElementTree.parse(report).iter("testcase"):
        module = case.get("classname", "")
        path = module.replace(".", "/") + ".py"
        if module and (ROOT / path).exists():
            seconds[function_of(f"{path}::{case.get('name')}")] += float(case.get("time", 0))
    return seconds


def measure(targets: list[str], data_file: Path, report: Path, workers: str) -> None:
    """Run `targets` on PostgreSQL with per-test coverage of the backend-specific modules."""
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        sys.exit("Set DATABASE_URL to a PostgreSQL database: the selection is measured there.")
    packages = backend_packages()
    env = {**os.environ, "COVERAGE_FILE": str(data_file)}
    command = [sys.executable, "-m", "pytest", "-n", workers, "--dist", "loadfile"]
    command += ["-m", "not own_sqlite", "-p", "no:randomly", f"--junitxml={report}"]
    command += [f"--cov={package}" for package in packages]
    command += ["--cov-context=test", "--cov-report=", *targets]
    status = subprocess.call(command, cwd=ROOT, env=env)
    if status not in (0, 1):  # 1: a failing test still measured the others
        sys.exit(f"pytest ended with {status}: no list written")


def write(new_only: bool, workers: str, folder: Path, reuse: bool = False) -> None:
    modules = backend_modules()
    everything = every_test_function()
    listed = read_list()
    if new_only and sorted(modules) != listed["modules"]:
        sys.exit(
            "The backend-specific modules are not those the list was measured against: "
            "measure every test again (`make backend-tests`)."
        )
    known = set(listed["postgres"]) | set(listed["neutral"]) if new_only else set()
    targets = [t for t in everything if t not in known]
    folder.mkdir(parents=True, exist_ok=True)
    data_file, report = folder / "backend.coverage", folder / "backend-tests.xml"
    if targets:
        if not reuse:
            targets_or_all = targets if new_only else ["tests", f"--ignore={APART}"]
            measure(targets_or_all, data_file, report, workers)
        per_line = tests_per_line(data_file, modules)
        if new_only:
            chosen = {t for tests in per_line.values() for t in tests}
        else:
            chosen = spread_selection(per_line, junit_seconds(report))
    else:
        chosen = set()
    exists = set(everything)
    postgres = {t for t in listed["postgres"] if t in exists and t in known} | (
        chosen & set(targets)
    )
    write_list(modules, postgres, exists - postgres)
    print(
        f"{LIST.relative_to(ROOT)}: {len(postgres)} of {len(exists)} test functions for "
        f"PostgreSQL, {len(modules)} backend-specific modules"
    )


def pass_ids() -> list[str]:
    """What the PostgreSQL pass runs: the sweep's files and the listed tests beside them."""
    selected = [t for t in read_list()["postgres"] if t.split("::")[0] not in ALWAYS]
    return [*ALWAYS, *selected]


def report(data_file: Path) -> str:
    """Per backend-specific module: its backend-specific lines, and how many `data_file`
    saw run (in any test or at set-up: the migrations run there)."""
    data = CoverageData(basename=str(data_file))
    data.read()
    measured = {Path(f).resolve().relative_to(ROOT).as_posix(): f for f in data.measured_files()}
    rows, total, ran_total = [], 0, 0
    for module, functions in backend_modules().items():
        lines = set().union(*functions.values())
        measured_lines = data.lines(measured[module]) or () if module in measured else ()
        ran = lines & _statement_of(ROOT / module).first_lines(measured_lines)
        total, ran_total = total + len(lines), ran_total + len(ran)
        rows.append(f"{module:<52} {len(ran):>5} / {len(lines):<5}")
    rows.append(f"{'all backend-specific lines':<52} {ran_total:>5} / {total:<5}")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write")
    writing.add_argument("--new", action="store_true", help="measure unlisted tests only")
    writing.add_argument("--workers", default=os.environ.get("TEST_WORKERS", "2"))
    writing.add_argument("--folder", type=Path, default=ROOT / "var" / "reports")
    writing.add_argument(
        "--reuse", action="store_true", help="read the folder's last measurement, run nothing"
    )
    commands.add_parser("ids")
    commands.add_parser("cov-args")
    reporting = commands.add_parser("report")
    reporting.add_argument("data", type=Path)
    arguments = parser.parse_args()
    if arguments.command == "write":
        write(arguments.new, arguments.workers, arguments.folder, arguments.reuse)
    elif arguments.command == "ids":
        print("\n".join(pass_ids()))
    elif arguments.command == "cov-args":
        print(" ".join([*(f"--cov={p}" for p in backend_packages()), "--cov-report="]))
    else:
        print(report(arguments.data))


if __name__ == "__main__":
    main()
