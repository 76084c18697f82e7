"""What text stands for a row in the vector index (each corpus declares how it reads).

A turn is indexed with its speaker and with the end of the turn it answers: "Researching
adoption agencies" only makes sense next to "What are you up to this summer?". The
content comes first so the model's 256-token window never cuts the turn itself.
"""

from django.db import connection

from retrieval.corpus import Corpus

CONTEXT_CHARS = 300


def turn_context(previous_content: str | None) -> str:
    """The end of the previous turn (at most CONTEXT_CHARS, cut at a word boundary)."""
    text = " ".join((previous_content or "").split())
    if len(text) <= CONTEXT_CHARS:
        return text
    tail = text[-CONTEXT_CHARS:]
    return tail.split(" ", 1)[1] if " " in tail else tail


def turn_text(*, speaker: str, role: str, content: str, context_text: str) -> str:
    text = f"{speaker or role}: {content}"
    return f"{text}\n(in reply to: {context_text})" if context_text else text


def item_text(*, content: str) -> str:
    return content


def texts_for(
    corpus: Corpus, owner_id: int, ids: list[int]
) -> dict[int, tuple[str, tuple[str, ...]]]:
    """{id: (text to embed, the values of `corpus.embedded_columns` it was built from)}
    for the owner's rows among `ids`.

    Those values are the guard when the vector is saved: if the row changed meanwhile,
    the stale vector is not stored.
    """
    if not ids:
        return {}
    marks = ", ".join(["%s"] * len(ids))
    read = list(dict.fromkeys([*corpus.document_columns, *corpus.embedded_columns]))
    columns = ", ".join(f"t.{c}" for c in read)
    sql = f"SELECT t.id, {columns} FROM {corpus.table} t WHERE t.{corpus.owner} = %s"
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} AND t.id IN ({marks})", [owner_id, *ids])
        rows = cursor.fetchall()
    out = {}
    for row in rows:
        values = dict(zip(read, row[1:], strict=True))
        text = corpus.document(*(values[c] or "" for c in corpus.document_columns))
        out[row[0]] = (text, tuple(values[c] for c in corpus.embedded_columns))
    return out
