"""The knowledge items as a searchable corpus, declared to retrieval at start-up
(`MemoryConfig.ready`). Its full-text definition is also what memory's migrations build."""

from retrieval.corpus import Corpus, Link
from retrieval.fulltext_schema import FullTextSpec

KNOWLEDGE_FTS = FullTextSpec(
    table="memory_knowledgeitem",
    fts="memory_knowledge_fts",
    columns=("content", "entity", "domain", "category"),
    weights=("A", "B", "C", "C"),
    bm25=(1.0, 0.5, 0.3, 0.3),  # content counts most
)

ITEMS = Corpus(
    name="items",
    table="memory_knowledgeitem",  # KnowledgeItem's (tests/retrieval/test_front_door.py)
    fts=KNOWLEDGE_FTS,
    fields={
        "id": "id",
        "category": "category",
        "context": "context",
        "entity": "entity",
        "sensitive": "sensitive",
        "created_at": "created_at",
        "agent": "agent_id",
        "forgotten_at": "forgotten_at",
    },
    generation_field="value",
    hidden_when_set=("forgotten_at", "superseded_by_id"),
    time="created_at",
    source=Link(column="source_turn_id", corpus="turns"),
)
