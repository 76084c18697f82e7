"""From a model's answer to JSON, the way local models really answer.

Servers often ignore JSON mode, and models wrap their JSON: a `<think>` block first
(Qwen3, DeepSeek-R1 distills, whose opening tag is often in the prompt template so only
`</think>` arrives), a code fence (```` ```json ````), a sentence before and after
(Llama), a trailing comma, single quotes and Python's True/None, a Markdown escape
(`knowledge\\_id`, Mistral). `json_values` yields every JSON value such an answer may
hold, most likely first; the job's reader (`learning.llm.shapes`) takes the first it
can use. Nothing here guesses at content: a value is either valid JSON after these
unambiguous repairs, or it is not used.
"""

import json
import re
from collections.abc import Iterator
from typing import Any

_THINK_TAGS = r"think|thinking|reasoning|thought"
_THINK_BLOCK = re.compile(rf"<({_THINK_TAGS})>.*?</\1\s*>", re.S | re.I)
_THINK_CLOSE = re.compile(rf"</(?:{_THINK_TAGS})\s*>", re.I)
_THINK_OPEN = re.compile(rf"<(?:{_THINK_TAGS})>", re.I)
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+-]*[ \t]*\r?\n?(.*?)(?:```|\Z)", re.S)
_ESCAPES = set('"\\/bfnrtu')
_LITERALS = {"True": "true", "False": "false", "None": "null"}
MAX_SCAN = 200_000  # characters searched for JSON; answers are bounded far below by tokens
MAX_STARTS = 200  # opening brackets tried, so prose full of braces stays cheap


class AnswerError(ValueError):
    """An answer with nothing usable in it; `kind` is invalid_json or schema."""

    def __init__(self, reason: str, kind: str = "invalid_json") -> None:
        super().__init__(reason)
        self.kind = kind


def strip_thinking(text: str) -> str:
    """The answer without its reasoning: closed blocks removed, and when a closing tag
    arrives without its opening one (the template opened it), what comes after it."""
    text = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:  # thinking that never ended: the answer was cut off inside it
        text = text[: opened.start()]
    return text.strip().lstrip("\ufeff")


def _relaxed(text: str) -> str:
    """Unambiguous repairs, outside strings: trailing commas dropped, comments dropped,
    single-quoted strings double-quoted, True/False/None; inside strings: invalid
    escapes (`\\_`) and raw control characters fixed."""
    out: list[str] = []
    i, n = 0, len(text)
    last = ""  # last significant character written outside strings
    while i < n:
        char = text[i]
        if char == '"':
            end, body = _string(text, i, '"')
            out.append(body)
            i, last = end, '"'
            continue
        if char == "'" and last in "{[,:":
            end, body = _string(text, i, "'")
            out.append(body)
            i, last = end, '"'
            continue
        if char == "," and re.match(r"\s*[}\]]", text[i + 1 :]):
            i += 1
            continue
        if text.startswith("//", i) and last in '{[,"0123456789el':
            newline = text.find("\n", i)
            i = n if newline == -1 else newline
            continue
        word = re.match(r"True|False|None", text[i:]) if char in "TFN" else None
        if word and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            out.append(_LITERALS[word.group(0)])
            i, last = i + len(word.group(0)), "l"
            continue
        out.append(char)
        if not char.isspace():
            last = char
        i += 1
    return "".join(out)


def _string(text: str, start: int, quote: str) -> tuple[int, str]:
    """A string literal from `start` as a valid double-quoted JSON string."""
    out = ['"']
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            following = text[i + 1]
            if following in _ESCAPES:
                out.append(char + following)
            elif following == "'":
                out.append("'")
            else:
                out.append(following)  # \_ and friends: Markdown escapes, not JSON ones
            i += 2
            continue
        if char == quote:
            out.append('"')
            return i + 1, "".join(out)
        if char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n")
        elif char in "\r\t":
            out.append("\\r" if char == "\r" else "\\t")
        else:
            out.append(char)
        i += 1
    return i, "".join(out)  # unterminated: json.loads refuses it


def _balanced(text: str) -> Iterator[str]:
    """Every bracketed span ({...} or [...]) that closes, outermost ones, in order."""
    starts = 0
    i, n = 0, min(len(text), MAX_SCAN)
    while i < n and starts < MAX_STARTS:
        if text[i] not in "{[":
            i += 1
            continue
        starts += 1
        end = _closing(text, i, n)
        if end is None:
            i += 1
            continue
        yield text[i : end + 1]
        i = end + 1


def _closing(text: str, start: int, n: int) -> int | None:
    stack: list[str] = []
    quote = ""
    previous = ""
    i = start
    while i < n:
        char = text[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char == '"' or (char == "'" and previous in "{[,:"):
            quote = char
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return i
        if not char.isspace():
            previous = char
        i += 1
    return None


def _loads(text: str) -> Any:
    try:
        return json.loads(text, strict=False)
    except ValueError:
        return json.loads(_relaxed(text), strict=False)


def json_values(text: str) -> Iterator[Any]:
    """Each JSON value `text` may hold: the whole text, each fenced block, each
    bracketed span, each with the unambiguous repairs; duplicates skipped."""
    seen: set[str] = set()
    candidates = [text, *(m.group(1) for m in _FENCE.finditer(text))]
    for candidate in candidates:
        for piece in [candidate.strip(), *_balanced(candidate)]:
            if not piece or piece in seen:
                continue
            seen.add(piece)
            try:
                yield _loads(piece)
            except (ValueError, RecursionError):
                continue
