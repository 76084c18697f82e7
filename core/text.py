"""The one rule for text from outside: every string, JSON key and JSON value that a
request, form, tool call, import line or scan hands in must be valid Unicode text.

Valid text is a sequence of Unicode scalar values. JSON lets a client write a lone
surrogate (`"\\ud800"`); Python keeps it in a str, but UTF-8 cannot encode it, so the
database, every JSON answer and every page that shows it would fail later, long after
the request that stored it. NUL is refused where it is checked here: PostgreSQL stores
it in neither text nor jsonb (plain text fields drop it instead, `clean_text`).

Error messages never quote the bad text back: such an answer could not be encoded
either. `repair_text` and `repair_data` turn bad text into valid text (each lone
surrogate becomes U+FFFD), for rows stored before this rule and for text read from the
local machine (file names that are not UTF-8).
"""

import re
import unicodedata
from typing import Any

from django.core.exceptions import ValidationError

_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_MESSAGE = (
    "Not valid text: it contains a lone surrogate (U+D800 to U+DFFF), which is not a "
    "Unicode character."
)
NUL_MESSAGE = "Text may not contain NUL characters."


def text_problem(value: str, *, nul: bool = True) -> str | None:
    """Why `value` is not valid text (None when it is); NUL counts only when `nul`."""
    if _SURROGATE.search(value):
        return SURROGATE_MESSAGE
    if nul and "\x00" in value:
        return NUL_MESSAGE
    return None


def data_problem(value: Any, *, nul: bool = True) -> tuple[str, str] | None:
    """The first string (a key or a value) in a JSON-like value that is not valid text,
    as (dotted path, message): ("metadata.tags.0", ...); None when all are valid.

    Iterative, so a body nested as deeply as the JSON parser allows cannot exhaust the
    stack here.
    """
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            problem = text_problem(node, nul=nul)
            if problem:
                return ".".join(path), problem
        elif isinstance(node, dict):
            for key, item in reversed(list(node.items())):
                if isinstance(key, str):
                    problem = text_problem(key, nul=nul)
                    if problem:
                        return ".".join((*path, repair_text(key))), problem
                stack.append(((*path, str(key)), item))
        elif isinstance(node, (list, tuple)):
            stack.extend(((*path, str(i)), item) for i, item in reversed(list(enumerate(node))))
    return None


def check_text(value: str, *, field: str, nul: bool = True) -> None:
    """Raise a ValidationError naming `field` when `value` is not valid text."""
    problem = text_problem(value, nul=nul)
    if problem:
        raise ValidationError({field: problem}, code="invalid_text")


def check_data(value: Any, *, field: str = "", nul: bool = True) -> None:
    """Raise a ValidationError naming the bad string's path (under `field`, if given)."""
    found = data_problem(value, nul=nul)
    if found:
        path, problem = found
        name = ".".join(part for part in (field, path) if part) or "non_field_errors"
        raise ValidationError({name: problem}, code="invalid_text")


def repair_text(value: str) -> str:
    """`value` with each lone surrogate replaced by U+FFFD (split pairs are joined)."""
    if not _SURROGATE.search(value):
        return value
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def repair_data(value: Any) -> Any:
    """A JSON-like value with every key and string repaired (`repair_text`)."""
    if isinstance(value, str):
        return repair_text(value)
    if isinstance(value, dict):
        return {
            (repair_text(k) if isinstance(k, str) else k): repair_data(v) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [repair_data(item) for item in value]
    return value


def repair_json_column(model: Any, name: str) -> int:
    """Repair the JSON column `name` of every row of `model` in place (for migrations:
    rows stored before this rule); returns how many rows changed."""
    bad = [
        (pk, fixed)
        for pk, value in model.objects.values_list("pk", name).iterator(chunk_size=500)
        if (fixed := repair_data(value)) != value
    ]  # collected first: SQLite may not update a table while a cursor reads it
    for pk, fixed in bad:
        model.objects.filter(pk=pk).update(**{name: fixed})
    return len(bad)


# Apostrophes and quotation marks as phones and word processors type them ("I’m", “my
# dentist”), and the prime and modifier letter people paste for them.
_TYPOGRAPHIC = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u02bc": "'",
     "\u2032": "'", "\u00b4": "'", "\u201c": '"', "\u201d": '"',
     "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"'}
)  # fmt: skip


def as_typed(text: str) -> str:
    """A question as if typed on a plain keyboard, so that how it was typed does not
    change what it asks: compatibility forms folded (NFKC: fullwidth letters, no-break
    spaces, ligatures), invisible format characters dropped (zero-width spaces, joiners,
    bidirectional marks), typographic apostrophes and quotation marks made plain ("I’m"
    reads as "I'm"). For reading a question, never for text that is stored."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return text.translate(_TYPOGRAPHIC)
