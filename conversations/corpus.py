"""Conversation turns as a searchable corpus, declared to retrieval at start-up
(`ConversationsConfig.ready`). Its full-text definitions are also what conversations'
migrations build."""

from retrieval.corpus import Corpus
from retrieval.documents import turn_text
from retrieval.fulltext_schema import FullTextSpec

TURN_FTS = FullTextSpec(
    table="conversations_turn",
    fts="conversations_turn_fts",
    columns=("content", "speaker"),
    weights=("A", "B"),
    bm25=(1.0, 0.5),
)
# Since conversations 0003: the previous turn of the session is indexed with each turn
# (a reply is found by the words of the question it answers).
TURN_FTS_CONTEXT = FullTextSpec(
    table="conversations_turn",
    fts="conversations_turn_fts",
    columns=("content", "speaker", "context_text"),
    weights=("A", "B", "C"),
    bm25=(1.0, 0.5, 0.5),
)


def _as_embedded(content: str, speaker: str, role: str, context_text: str) -> str:
    return turn_text(content=content, speaker=speaker, role=role, context_text=context_text)


TURNS = Corpus(
    name="turns",
    table="conversations_turn",  # Turn's (tests/retrieval/test_front_door.py)
    fts=TURN_FTS_CONTEXT,
    fields={"id": "id", "session": "session_id", "role": "role", "timestamp": "timestamp"},
    generation_field="turn_value",
    time="timestamp",
    newest="timestamp",
    speaker="speaker",
    # A turn is embedded with the end of the turn it answers: erasing that turn clears
    # this copy, and a vector computed from it before must not be stored after.
    document_columns=("content", "speaker", "role", "context_text"),
    document=_as_embedded,
    embedded_columns=("content", "context_text"),
)
