"""The erase registry (privacy/task_records.py) declares every task there is.

An erase deletes the queued payloads and task records that name a person's ids, and it
knows which tasks name whom only from TASK_SUBJECTS. These tests find every task on
their own (every function of every `tasks.py` of our apps, every dotted task path the
code queues or schedules) and fail when one is not declared, or declared wrongly.
"""

import ast
import importlib
import inspect
from collections.abc import Callable

from learning.schedules import SCHEDULES, STARTUP_MAINTENANCE, STARTUP_SWEEPS
from privacy.task_records import OLD_PATHS, TASK_SUBJECTS, Names, undeclared
from tests.test_architecture import ORDER, ROOT

# The parameter names a task uses for each kind of id, and the ones that name no person.
ID_PARAMETERS = {"user": {"user_id", "owner_id"}, "turn": {"turn_id"}, "session": {"session_pk"}}
PERSON_PARAMETERS = set().union(*ID_PARAMETERS.values()) | {"session_id", "item_id"}


def task_modules() -> list[str]:
    """Every `tasks.py` under our apps, as module names (found on disk, not listed)."""
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for app in ORDER
        for path in (ROOT / app).rglob("tasks.py")
    )


def task_functions() -> dict[str, Callable]:
    """Every public function a tasks module offers, by the path a queue names it with:
    the tasks that exist."""
    modules = task_modules()
    found = {}
    for name in modules:
        module = importlib.import_module(name)
        for attr, func in inspect.getmembers(module, inspect.isfunction):
            if not attr.startswith("_") and func.__module__ in modules:
                found[f"{name}.{attr}"] = func
    return found


def queued_paths() -> set[str]:
    """Every dotted task path written in our code (queued, scheduled, re-queued)."""
    apps = tuple(f"{app}." for app in ORDER)
    paths = set()
    for app in ORDER:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                value = getattr(node, "value", None)
                if isinstance(node, ast.Constant) and isinstance(value, str):
                    parts = value.split(".")
                    if value.startswith(apps) and len(parts) >= 3 and parts[-2] == "tasks":
                        paths.add(value)
    return paths


def test_the_discovery_finds_the_tasks_at_all():
    functions = task_functions()
    assert len(task_modules()) >= 6 and len(functions) >= 18
    assert "skills.tasks.learn_skills" in functions
    assert "memory.embedding.tasks.embed_rows_task" not in functions  # an old path, gone
    assert {"learning.tasks.extract_turn", "memory.tasks.import_run"} <= queued_paths()


def test_every_task_function_and_every_queued_path_is_declared_for_erasure():
    paths = set(task_functions()) | queued_paths()
    paths |= {func for _, func, _ in SCHEDULES} | set(STARTUP_SWEEPS)
    paths |= {func for func, _ in STARTUP_MAINTENANCE}
    assert undeclared(TASK_SUBJECTS, paths) == []


def test_every_declaration_names_a_real_task_and_the_argument_holding_the_id():
    functions = task_functions()
    current = {path: names for path, names in TASK_SUBJECTS.items() if path not in OLD_PATHS}
    assert set(current) == set(functions), set(current) ^ set(functions)
    for path, names in current.items():
        parameters = list(inspect.signature(functions[path]).parameters)
        declared = set()
        for kind, at in names.positions():
            assert parameters[at] in ID_PARAMETERS[kind], (path, kind, parameters)
            declared.add(parameters[at])
        # a parameter that holds a person's ids must be declared (import_run's job id is not
        # one: erasing the user deletes the job)
        assert not (set(parameters) & PERSON_PARAMETERS) - declared, (path, parameters)


def test_an_old_path_still_in_task_records_is_declared_as_the_task_it_became():
    functions = task_functions()
    for old, new in OLD_PATHS.items():
        assert old not in functions and new in functions, old
        assert TASK_SUBJECTS[old] == TASK_SUBJECTS[new], old


def test_the_check_fails_on_a_registry_missing_one_task():
    """The guard cannot pass vacuously: the same check on a copy of the registry with one
    declaration removed names exactly that task."""
    paths = set(task_functions()) | queued_paths()
    for dropped in ("skills.tasks.learn_skills", "retrieval.tasks.embed_rows_task"):
        drifted = {path: names for path, names in TASK_SUBJECTS.items() if path != dropped}
        assert undeclared(drifted, paths) == [dropped]


def test_the_two_tasks_once_missing_name_their_person():
    assert TASK_SUBJECTS["skills.tasks.learn_skills"] == Names(session=0)
    assert TASK_SUBJECTS["retrieval.tasks.embed_rows_task"] == Names(user=1)
    assert TASK_SUBJECTS["memory.embedding.tasks.embed_rows_task"] == Names(user=1)
