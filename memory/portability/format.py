"""The export file's format: its constants and record fields, the one rule for its text
(valid Unicode, no NUL, bounded nesting; `repaired` makes text valid), and reading its
lines (`parse`), with errors that name the line."""

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from django.core.exceptions import ValidationError

FORMAT = "gaia-memory-export"
VERSION = 3
VERSIONS = (1, 2, 3)
LINE_MAX = 1_000_000  # bytes (characters) per line
DEPTH_MAX = 32
KINDS = ("session", "turn", "tool_call", "knowledge", "entity", "relation")
COUNTED = {"session": "sessions", "turn": "turns", "tool_call": "tool_calls",
           "knowledge": "knowledge", "entity": "entities", "relation": "relations"}  # fmt: skip
ITEM_FIELDS = [
    "id", "category", "content", "domain", "context", "entity", "sensitive", "pinned", "source",
    "confidence", "importance", "metadata", "use_count", "created_at", "updated_at",
    "last_used", "due_at", "reminded_at", "forgotten_at",
]  # fmt: skip
VERSION_FIELDS = [
    "content", "category", "domain", "context", "entity", "sensitive", "confidence",
    "metadata", "due_at", "source", "created_at", "change_source", "token_name", "reason",
]  # fmt: skip
FIELDS = {
    "header": {"type", "format", "version", "exported_at", "username"},
    "end": {"type", "records", "counts", "repaired"},
    "session": {"type", "session_id", "context", "created_at", "last_turn_at",
                "consolidated_at", "summary"},
    "turn": {"type", "id", "session_id", "role", "speaker", "content", "context", "timestamp",
             "created_at", "consolidated_at", "extraction_status", "agent"},
    "tool_call": {"type", "id", "session_id", "tool_name", "args", "result_summary",
                  "success", "error", "duration_ms", "timestamp", "agent"},
    "knowledge": {"type", *ITEM_FIELDS, "superseded_by", "source_turn", "versions", "agent"},
    "entity": {"type", "id", "name", "kind", "holder", "aliases", "items", "created_at",
               "updated_at"},
    "relation": {"type", "id", "subject", "relation", "object", "valid_from", "valid_to",
                 "ended_by", "items", "turns", "created_at"},
}  # fmt: skip
# Fields of graph records naming other records of the file: (field, kind it names, many).
REFERENCES = {
    "entity": [("items", "knowledge", True)],
    "relation": [("subject", "entity", False), ("object", "entity", False),
                 ("ended_by", "relation", False), ("items", "knowledge", True),
                 ("turns", "turn", True)],
}  # fmt: skip
REFERENCES_MAX = 10_000  # ids in one list field


# --- Text validity. Private for now: the shared rule of every door will replace it.

_BAD_TEXT = re.compile("[\ud800-\udfff\x00]")


def _text_problem(text: str) -> str | None:
    found = _BAD_TEXT.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "a NUL character"
    return f"a lone surrogate (U+{ord(found.group()):04X})"


def _invalid_text(value: Any) -> str | None:
    """What is wrong with the text in a decoded JSON value (keys included), or None."""
    stack = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > DEPTH_MAX:
            return f"nesting deeper than {DEPTH_MAX} levels"
        if isinstance(current, str):
            problem = _text_problem(current)
            if problem:
                return problem
        elif isinstance(current, dict):
            stack.extend((key, depth + 1) for key in current)
            stack.extend((item, depth + 1) for item in current.values())
        elif isinstance(current, list):
            stack.extend((item, depth + 1) for item in current)
    return None


def repaired(value: Any) -> tuple[Any, bool]:
    """`value` with bad text (see _invalid_text) and non-finite numbers made valid:
    surrogates become U+FFFD, NUL characters go, NaN and infinities become null."""
    if isinstance(value, str):
        if _BAD_TEXT.search(value) is None:
            return value, False
        return _BAD_TEXT.sub(lambda m: "" if m.group() == "\x00" else "\ufffd", value), True
    if isinstance(value, float):
        return (value, False) if value == value and abs(value) != float("inf") else (None, True)
    if isinstance(value, dict):
        pairs = [(repaired(k), repaired(v)) for k, v in value.items()]
        changed = any(k[1] or v[1] for k, v in pairs)
        return ({k[0]: v[0] for k, v in pairs} if changed else value), changed
    if isinstance(value, list):
        items = [repaired(item) for item in value]
        changed = any(flag for _, flag in items)
        return ([item for item, _ in items] if changed else value), changed
    return value, False


def line_error(number: int, error: ValidationError | str) -> ValidationError:
    if isinstance(error, str):
        return ValidationError({f"line {number}": error})
    if hasattr(error, "error_dict"):
        messages = [f"{name}: {m}" for name, ms in error.message_dict.items() for m in ms]
    else:
        messages = error.messages
    return ValidationError({f"line {number}": messages})


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def parse(lines: Iterable[bytes | str], after: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each non-blank line after line `after`; ValidationError
    naming a bad line."""
    for number, raw in enumerate(lines, start=1):
        if number <= after:
            continue
        if len(raw) > LINE_MAX:
            raise line_error(number, f"Longer than {LINE_MAX} bytes.")
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise line_error(number, "Not valid UTF-8.") from None
        text = raw.removeprefix("\ufeff") if number == 1 else raw
        if not text.strip():
            continue
        try:
            record = json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            raise line_error(number, "Not valid JSON.") from None
        if not isinstance(record, dict):
            raise line_error(number, "Each line must be a JSON object.")
        problem = _invalid_text(record)
        if problem:
            raise line_error(number, f"Holds {problem}: text must be valid Unicode.")
        yield number, record


def is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63
