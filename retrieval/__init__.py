"""Retrieval's front door: search over the rows other apps declare (docs/architecture.md,
"Retrieval's front door").

Other apps import only these modules (`tests/retrieval/test_front_door.py` holds them to
it); everything else here (the keyword SQL, the vector indexes and their cache, the
generation counters, fusion, rerank) is retrieval's own and may change without notice.

- `corpus`: `Corpus`, `Link`, `declare`: an app describes its searchable rows once.
- `filters`: typed filters (`eq`, `among`, `since`, `until`, `is_set`, `any_of`) on the
  fields a corpus declared; callers never pass SQL.
- `pipeline`: `hybrid` (recall, turn search), `in_scope` (ids under filters) and
  `keyword_ids` (dedup, consolidation).
- `linked`: `Also`, one more search within the same filters (recall's graph stage).
- `judge`: `Hits`, the answer of a search, as the cross-encoder judged it.
- `events`: what a write changed, announced in its transaction.
- `documents`: how a turn reads when embedded.
- `relevance`: word stems and coverage (skills' own search).
- `perspective`: "my" and "me" as stored, the holder's names.
- `when`: time as people say it ("yesterday") as a window.
- `aliases`: who a question's role word is in the owner's rows ("the physio" is Anouk).
- `asked`: the clause a question asks in, after the speaker's scene ("I have a toothache,
  who is my dentist?").
- `neighbours`: the owner's rows nearest to a write's vectors (dedup at write time).
- `embedding`: the embedder interface; `embedding.ahead` (embedding before a write's
  transaction) and `embedding.startup` (the model loaded and the backfill queued at start).
- `snapshots`, `snapshot_marks`: the on-disk index snapshots, erased with their person on
  every node.
- `fulltext_schema`, `fulltext_upkeep`: the full-text definitions the apps' migrations
  create, and their upkeep after an erase.

The modules load on import (`from retrieval import pipeline`): this package imports none
of them itself, since Django loads it before its models are ready.
"""

__all__ = [
    "aliases",
    "asked",
    "corpus",
    "documents",
    "embedding",
    "events",
    "filters",
    "fulltext_schema",
    "fulltext_upkeep",
    "judge",
    "linked",
    "neighbours",
    "perspective",
    "pipeline",
    "relevance",
    "snapshot_marks",
    "snapshots",
    "when",
]
# The public modules of its sub-packages, beside the sub-package itself.
PUBLIC_SUBMODULES = ("embedding.ahead", "embedding.startup")
