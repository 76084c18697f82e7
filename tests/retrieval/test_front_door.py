"""Retrieval's front door (docs/architecture.md, "Retrieval's front door").

- Apps declare their corpora; retrieval names no table of an app above it.
- Outside retrieval nobody writes SQL for it: callers pass typed filters, and import only
  its public modules (PUBLIC), never its internals (keyword SQL, the vector indexes, the
  generation counters, ...).
- The declarations are what the models are, and typed filters refuse what a corpus did
  not declare.
"""

import ast
import importlib.util
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.utils import timezone

import retrieval
from conversations.corpus import TURNS
from conversations.models import Turn
from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from memory.services import memory_create, memory_forget
from retrieval import pipeline
from retrieval.corpus import Corpus, declare, declared, named
from retrieval.filters import among, any_of, eq, is_set, scoped, since
from tests.test_architecture import APART, ORDER, ROOT, imports_in, our_files

# What other apps may import of retrieval: the modules its face names (retrieval/__init__.py).
PUBLIC = {f"retrieval.{name}" for name in (*retrieval.__all__, *retrieval.PUBLIC_SUBMODULES)}
# SQL that only retrieval writes: its scoping alias, its full-text machinery, its tables.
RETRIEVAL_SQL = re.compile(
    r"\bt\.owner_id\b|\bsearch_tsv\b|\w+_fts\b|\bMATCH\b|\bbm25\(|\bts_rank\b|tsquery|"
    r"\bretrieval_index\w+"
)
UPPER_APPS = ORDER[ORDER.index("retrieval") + 1 :]


def strings_in(source: str) -> list[str]:
    """Every string constant of a module (f-strings: their literal parts)."""
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def upper_tables() -> set[str]:
    """The tables of the apps above retrieval, and the full-text tables they declare."""
    tables = {
        table
        for model in apps.get_models(include_auto_created=True)
        if model._meta.app_label in UPPER_APPS
        for table in [model._meta.db_table]
    }
    return tables | {c.fts.fts for c in declared()} | {f"{c.fts.fts}_vocab" for c in declared()}


def tables_named(source: str, tables: set[str]) -> set[str]:
    words = {w for text in strings_in(source) for w in re.findall(r"\w+", text)}
    return words & tables


def retrieval_sql_in(source: str) -> list[str]:
    """Strings of `source` that are SQL for retrieval (a lone name, as a corpus declares
    its full-text table, is no SQL)."""
    return [
        text
        for text in strings_in(source)
        if RETRIEVAL_SQL.search(text) and not re.fullmatch(r"\w+", text)
    ]


def production_files() -> list[Path]:
    return [p for p in our_files() if p.relative_to(ROOT).parts[0] != APART]


def test_retrieval_names_no_table_of_an_app_above_it():
    tables = upper_tables()
    assert {"memory_knowledgeitem", "conversations_turn", "memory_knowledge_fts"} <= tables
    found = {
        str(path.relative_to(ROOT)): sorted(named_tables)
        for path in (ROOT / "retrieval").rglob("*.py")
        if "migrations" not in path.parts
        if (named_tables := tables_named(path.read_text(), tables))
    }
    assert found == {}


def test_nobody_outside_retrieval_writes_sql_for_it():
    found = {
        str(path.relative_to(ROOT)): sql
        for path in production_files()
        if path.relative_to(ROOT).parts[0] != "retrieval"
        if (sql := retrieval_sql_in(path.read_text()))
    }
    assert found == {}


def test_other_apps_import_only_retrievals_front_door():
    found = [
        f"{imp.path}: {imp.module}"
        for path in production_files()
        if path.relative_to(ROOT).parts[0] != "retrieval"
        for imp in imports_in(str(path.relative_to(ROOT)), path.read_text())
        if imp.module.split(".")[0] == "retrieval" and imp.module not in PUBLIC
    ]
    assert found == []


def test_the_face_names_modules_that_exist_and_each_is_imported_by_another_app():
    outside = {
        imp.module
        for path in production_files()
        if path.relative_to(ROOT).parts[0] != "retrieval"
        for imp in imports_in(str(path.relative_to(ROOT)), path.read_text())
    }
    for module in PUBLIC:
        assert importlib.util.find_spec(module) is not None, module
        assert module in outside, f"{module} is public but no other app uses it"
    assert {"retrieval.pipeline", "retrieval.filters", "retrieval.corpus"} <= PUBLIC
    assert "retrieval.keyword" not in PUBLIC and "retrieval.vector" not in PUBLIC


def test_the_guards_catch_what_they_forbid():
    assert tables_named('sql = f"SELECT id FROM memory_knowledgeitem t"', upper_tables())
    assert not tables_named('"run memory_backfill"', upper_tables())  # a command, no table
    assert retrieval_sql_in('where.add("t.owner_id = %s", 1)')
    assert retrieval_sql_in('f"SELECT rowid FROM {x} WHERE memory_knowledge_fts MATCH %s"')
    assert not retrieval_sql_in('"SELECT 1"')
    assert not retrieval_sql_in('FullTextSpec(fts="memory_knowledge_fts")')  # a declaration
    imports = imports_in("memory/x.py", "from retrieval.keyword import Where\n")
    assert [i.module for i in imports if i.module not in PUBLIC] == ["retrieval.keyword"]


def test_the_declared_corpora_are_the_models_tables():
    assert {c.name for c in declared()} == {"items", "turns"}
    assert named("items") is ITEMS and named("turns") is TURNS
    assert ITEMS.table == KnowledgeItem._meta.db_table
    assert TURNS.table == Turn._meta.db_table
    assert ITEMS.fts.table == ITEMS.table and TURNS.fts.table == TURNS.table
    columns = {f.column for f in KnowledgeItem._meta.concrete_fields}
    assert set(ITEMS.fields.values()) | set(ITEMS.hidden_when_set) <= columns
    assert {f.column for f in Turn._meta.concrete_fields} >= set(TURNS.fields.values())
    assert ITEMS.source and named(ITEMS.source.corpus) is TURNS


def test_a_declaration_is_refused_when_it_is_not_plain_names_or_takes_a_taken_name():
    with pytest.raises(ValueError, match="plain column names"):
        Corpus(name="x", table="t; DROP", fts=ITEMS.fts, fields={}, generation_field="value")
    other = Corpus(name="items", table=ITEMS.table, fts=ITEMS.fts, fields={}, generation_field="v")
    with pytest.raises(ValueError, match="already declared"):
        declare(other)
    declare(ITEMS)  # the same declaration again: nothing changes
    assert named("items") is ITEMS
    with pytest.raises(KeyError, match="declared: \\['items', 'turns'\\]"):
        named("notes")


def test_typed_filters_refuse_a_field_the_corpus_did_not_declare():
    with pytest.raises(ValueError, match="no filter field 'owner'"):
        scoped(ITEMS, 1, [eq("owner", 2)])
    with pytest.raises(ValueError, match="no filter field 'content; DROP'"):
        scoped(ITEMS, 1, [among("content; DROP", [1])])


@pytest.mark.django_db
def test_typed_filters_select_the_owners_rows_they_name(alice, bob):
    lisbon = memory_create(user=alice, content="Alice lives in Lisbon", category="fact")
    tea = memory_create(user=alice, content="Alice drinks green tea", category="preference")
    gone = memory_create(user=alice, content="Alice owned a red bicycle", category="fact")
    memory_forget(user=alice, item_id=gone.pk)
    memory_create(user=bob, content="Bob lives in Lisbon", category="fact")

    assert set(pipeline.in_scope(ITEMS, alice.pk)) == {lisbon.pk, tea.pk}
    assert pipeline.in_scope(ITEMS, alice.pk, [eq("category", "fact")]) == [lisbon.pk]
    assert pipeline.in_scope(ITEMS, alice.pk, [among("id", [])]) == []
    either = any_of(among("id", [tea.pk]), eq("category", "fact"))
    assert set(pipeline.in_scope(ITEMS, alice.pk, [either])) == {lisbon.pk, tea.pk}
    later = timezone.now() + timezone.timedelta(days=1)
    assert pipeline.in_scope(ITEMS, alice.pk, [since("created_at", later)]) == []
    assert pipeline.keyword_ids(ITEMS, alice.pk, "Lisbon", limit=5) == [lisbon.pk]
    assert pipeline.keyword_ids(ITEMS, alice.pk, "bicycle", limit=5) == []
    forgotten = [is_set("forgotten_at")]
    found = pipeline.keyword_ids(ITEMS, alice.pk, "bicycle", forgotten, limit=5, active_only=False)
    assert found == [gone.pk]
