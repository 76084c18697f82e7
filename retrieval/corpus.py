"""The searchable corpora, as the apps that own them declare them at start-up.

Retrieval owns no content table: each app describes its table once (a `Corpus`: which
table, its text, owner, time and speaker columns, the fields a search may filter on, the
columns that hide a row from search, its full-text definition, how a row reads when
embedded) and declares it from its `AppConfig.ready()`. Everything in retrieval works on
those declarations, so it never names a table of an app above it
(tests/test_architecture.py checks this).

Raw SQL built from a declaration always works on alias `t` and is always scoped by
`t.owner_id`.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from retrieval.fulltext_schema import FullTextSpec

IDENTIFIER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True)
class Link:
    """A column of a corpus holding the id of a row of another corpus (an item's source
    turn): a search of the first also searches the second, and a row takes the evidence
    of the row it links to (`retrieval.linked`)."""

    column: str
    corpus: str  # the name of the linked corpus


@dataclass(frozen=True, eq=False)  # one declaration, compared by identity
class Corpus:
    name: str
    table: str
    fts: FullTextSpec
    fields: Mapping[str, str]  # what typed filters may name -> the column it is
    generation_field: str  # IndexGeneration column bumped when this corpus changes
    hidden_when_set: tuple[str, ...] = ()  # a row with any of these set is never searched
    text: str = "content"
    owner: str = "owner_id"
    time: str = "created_at"  # when a row happened (a query naming a date looks there)
    newest: str = "id"  # what orders a sample of the owner's newest rows (`vocabulary`)
    speaker: str | None = None  # who said it (a query naming a speaker prefers theirs)
    source: Link | None = None
    # How a row reads to the embedder: `document(*values of document_columns)`.
    document_columns: tuple[str, ...] = ("content",)
    document: Callable[..., str] = field(default=lambda content: content, compare=False)
    # What a row's vector is computed from: a vector is stored only while these are as
    # they were read (an edit or an erase meanwhile leaves the row to be embedded anew).
    embedded_columns: tuple[str, ...] = ("content",)

    def __post_init__(self) -> None:
        names = [self.table, self.text, self.owner, self.time, self.newest]
        names += [self.generation_field]
        names += [*self.fields.values(), *self.hidden_when_set, *self.document_columns]
        names += [
            *self.embedded_columns,
            self.speaker or "",
            self.source.column if self.source else "",
        ]
        bad = [n for n in names if not set(n) <= IDENTIFIER]
        if bad:
            raise ValueError(f"corpus {self.name}: not plain column names: {bad}")

    @property
    def active_sql(self) -> str:
        """SQL on `t`: the rows search may return (a forgotten or replaced item never)."""
        return " AND ".join(f"t.{c} IS NULL" for c in self.hidden_when_set) or "1 = 1"

    @property
    def time_column(self) -> str:
        return f"t.{self.time}"

    @property
    def speaker_column(self) -> str | None:
        return f"t.{self.speaker}" if self.speaker else None

    @property
    def source_column(self) -> str | None:
        return f"t.{self.source.column}" if self.source else None


_declared: dict[str, Corpus] = {}


def declare(corpus: Corpus) -> None:
    """Make `corpus` searchable (from its app's `ready()`); declaring it again is a no-op,
    a different corpus under a taken name an error."""
    known = _declared.get(corpus.name)
    if known is not None and known != corpus:
        raise ValueError(f"a different corpus named {corpus.name!r} is already declared")
    _declared[corpus.name] = corpus


def named(name: str) -> Corpus:
    """The declared corpus of that name (KeyError names the declared ones)."""
    try:
        return _declared[name]
    except KeyError:
        raise KeyError(f"no corpus {name!r} is declared (declared: {sorted(_declared)})") from None


def declared() -> list[Corpus]:
    """Every declared corpus, by name (the same order whatever order the apps start in)."""
    return [_declared[name] for name in sorted(_declared)]
