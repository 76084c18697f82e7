"""The PostgreSQL pass's list (tests/backend_tests.txt, docs/testing.md) is current: every
test function is in it once, the code it was measured against is the code whose SQL
differs by backend today, and the selection rule keeps every such line run."""

from tests.backend_selection import (
    ALWAYS,
    ROOT,
    SPREAD,
    backend_lines,
    backend_modules,
    every_test_function,
    function_of,
    pass_ids,
    read_list,
    spread_selection,
)

HOW = "run `make backend-tests-new` (or `make backend-tests`) on PostgreSQL and commit the list"


def test_every_test_function_is_listed_for_postgresql_or_as_neutral():
    listed = read_list()
    postgres, neutral = set(listed["postgres"]), set(listed["neutral"])
    assert not postgres & neutral, f"listed twice: {sorted(postgres & neutral)}"
    everything = set(every_test_function())
    assert len(everything) > 1000  # the walk finds the tests at all
    unlisted = sorted(everything - postgres - neutral)
    assert not unlisted, f"tests not measured for the PostgreSQL pass ({HOW}): {unlisted}"
    gone = sorted((postgres | neutral) - everything)
    assert not gone, f"listed tests that no longer exist ({HOW}): {gone}"


def test_the_list_was_measured_against_todays_backend_specific_modules():
    assert sorted(backend_modules()) == read_list()["modules"], HOW


def test_the_backend_specific_modules_are_found_in_the_source():
    modules = backend_modules()
    assert {"retrieval/keyword.py", "privacy/reclaim.py", "core/server/health_checks.py"} <= set(
        modules
    )
    assert not any(m.startswith("discovery/scanners/") for m in modules)  # a browser's sqlite3
    assert not any("migrations" in m for m in modules)  # run by every PostgreSQL test run


def test_a_function_that_runs_sql_or_reads_the_vendor_is_backend_specific():
    source = (
        "from django.db import connection\n"
        "QUERY = 'SELECT id FROM t WHERE x = %s'\n"
        "def reads():\n    with connection.cursor() as c:\n        c.execute('SELECT 1')\n"
        "def branches():\n    if connection.vendor == 'sqlite':\n        return 1\n    return 2\n"
        "def names():\n    return run(QUERY)\n"
        "def plain():\n    return 3\n"
    )
    found = backend_lines(source)
    assert set(found) == {"reads", "branches", "names"}
    assert found["branches"] == {7, 8, 9}


def test_every_line_keeps_spread_tests_or_all_of_its_own():
    rare = {f"t{i}" for i in range(3)}
    common = {f"c{i}" for i in range(SPREAD * 3)}
    per_line = {("m.py", 1): rare, ("m.py", 2): common | rare}
    chosen = spread_selection(per_line, {t: 1.0 for t in common | rare})
    assert rare <= chosen
    assert len(chosen & (common | rare)) == SPREAD


def test_the_pass_runs_the_sweep_and_only_tests_that_exist():
    ids = pass_ids()
    assert set(ALWAYS) <= set(ids)
    for test_id in ids:
        assert (ROOT / test_id.split("::")[0]).exists(), test_id


def test_a_parametrized_case_counts_as_its_function():
    assert function_of("tests/a/test_b.py::test_c[x-y]|run") == "tests/a/test_b.py::test_c"
    assert function_of("tests/a/test_b.py::test_c|setup") == "tests/a/test_b.py::test_c"
