"""What each job accepts back from the model, in the shapes models really use.

A reader takes one parsed JSON value (`learning.llm.parse`) and returns the job's
canonical shape, or raises AnswerError(kind="schema") saying what was expected. Keys
are matched in any case; common alternatives are read as what they mean:

- operations: `{"operations": [...]}`, a bare list, one operation, mem0's
  `{"memory": [{"event": "ADD", "text": ...}]}`, `memories`/`facts` lists (adds);
  op names in any case with synonyms (ADD, UPDATE, DELETE, NOOP/NONE);
  ids as numbers or numeric strings ("12", "#12", 12.0).
- facts: `{"facts": [...]}` or `extracted` (seed 002's shape), `memories`/`memory`, a bare
  list, strings or objects,
  or a Markdown bullet list.
- consolidation: a summary (a string or a list of sentences) plus facts as above.
- judgements: `judgements`/`judgments`/`results`, a bare list, or `{"0": "reinforce"}`;
  outcomes in any case with synonyms.
- profile bullets: `bullets`/`profile`, a bare list, one string of lines, or Markdown.

Entries that cannot be read are passed on as they are, so the job refuses and counts
them one by one: nothing a model proposed disappears without a trace.
"""

import re
from collections.abc import Callable
from typing import Any

from learning.llm.parse import AnswerError

Reader = Callable[[Any], Any]

OP_NAMES = {
    "add": "add", "create": "add", "insert": "add", "new": "add", "remember": "add",
    "store": "add", "save": "add",
    "update": "update", "modify": "update", "edit": "update", "change": "update",
    "replace": "update", "correct": "update", "revise": "update",
    "delete": "delete", "remove": "delete", "forget": "delete", "retract": "delete",
    "noop": "noop", "none": "noop", "no_op": "noop", "nothing": "noop", "skip": "noop",
    "keep": "noop", "unchanged": "noop", "no_change": "noop", "ignore": "noop",
    "nochange": "noop",
}  # fmt: skip
OUTCOMES = {
    "reinforce": "reinforce", "reinforces": "reinforce", "reinforced": "reinforce",
    "agree": "reinforce", "agrees": "reinforce", "same": "reinforce",
    "duplicate": "reinforce", "consistent": "reinforce",
    "contradict": "contradict", "contradicts": "contradict", "contradiction": "contradict",
    "contradicted": "contradict", "conflict": "contradict", "conflicts": "contradict",
    "weaken": "weaken", "weakens": "weaken", "weakened": "weaken", "doubt": "weaken",
    "neutral": "neutral", "unrelated": "neutral", "independent": "neutral",
    "none": "neutral",
}  # fmt: skip
_OP_KEYS = ("op", "operation", "action", "event", "type", "kind")
_CONTENT_KEYS = ("content", "text", "fact", "memory", "new_content", "new_memory", "statement")
_ID_KEYS = ("knowledge_id", "id", "memory_id", "item_id", "knowledgeid", "knowledge")
_OPERATION_LISTS = ("operations", "ops", "actions", "changes", "events", "updates")
_FACT_LISTS = ("facts", "extracted", "memories", "memory", "knowledge", "items", "new_facts")
_BULLET = re.compile(r"^\s*(?:[-*\u2022+]|\d{1,2}[.)])\s+")
MAX_BULLET = 400


def _lower_keys(value: dict) -> dict:
    return {str(k).strip().lower().replace(" ", "_").replace("-", "_"): v for k, v in value.items()}


def _first(value: dict, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in value and value[key] not in (None, ""):
            return value[key]
    return None


def _unwrapped(value: Any, keys: tuple[str, ...]) -> Any:
    """{"result": {...}} or {"response": {...}}: the one object inside, when it holds the
    expected key and the outer one does not."""
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
        if isinstance(inner, dict) and any(k in _lower_keys(inner) for k in keys):
            return inner
    return value


def knowledge_id(value: Any) -> Any:
    """12, "12", "#12", 12.0 as 12; anything else as it is (refused later)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*#?\s*(\d{1,18})\s*", value)
        if match:
            return int(match.group(1))
    return value


def op_name(value: Any) -> str | None:
    if value is None:
        return None
    name = re.sub(r"[\s\-]+", "_", str(value).strip().lower())
    return OP_NAMES.get(name, OP_NAMES.get(name.replace("_", ""), name))


_RATINGS = {"high": 0.9, "medium": 0.6, "normal": 0.6, "low": 0.3}


def importance(value: Any) -> float | None:
    """A model's importance rating in [0, 1]: a number, a numeric string, a percentage,
    a 1-10 or 1-5 score, or high/medium/low; None when absent or unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower().rstrip("%")
        if text in _RATINGS:
            return _RATINGS[text]
        try:
            number = float(text)
        except ValueError:
            return None
        if value.strip().endswith("%"):
            number /= 100
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        return None
    if number != number or number < 0:  # NaN or negative
        return None
    for scale in (1, 5, 10, 100):
        if number <= scale:
            return round(number / scale, 3)
    return None


_RELATION_LISTS = ("relations", "relationships", "edges")


def _graph(entry: dict) -> dict[str, list]:
    """The entities and relations an entry proposes beside its text (read later by
    learning.graph_proposals), under whichever name the model used."""
    out = {}
    for key, names in (("entities", ("entities", "about")), ("relations", _RELATION_LISTS)):
        found = next((entry[k] for k in names if isinstance(entry.get(k), list)), None)
        if found:
            out[key] = found
    return out


def _fact(entry: Any) -> Any:
    """One proposed fact as {"content", "category"?, "entity"?, "domain"?}."""
    if isinstance(entry, str):
        return {"content": _BULLET.sub("", entry).strip()}
    if not isinstance(entry, dict):
        return entry
    entry = _lower_keys(entry)
    fact = {"content": _first(entry, _CONTENT_KEYS)}
    for key in ("category", "entity", "domain"):
        if isinstance(entry.get(key), str):
            fact[key] = entry[key]
    fact.update(_graph(entry))
    rated = importance(entry.get("importance"))
    if rated is not None:
        fact["importance"] = rated
    if not isinstance(fact["content"], str):
        fact = {**entry, **fact}  # left malformed: refused and counted by the job
    return fact


def _operation(entry: Any, *, default_op: str | None = None) -> Any:
    if isinstance(entry, str):
        return {"op": "add", "content": entry.strip()} if default_op == "add" else entry
    if not isinstance(entry, dict):
        return entry
    entry = _lower_keys(entry)
    raw_op = next(
        (entry[k] for k in _OP_KEYS if k in entry and op_name(entry[k]) in OP_NAMES.values()), None
    )
    if raw_op is None:
        raw_op = next((entry[k] for k in _OP_KEYS[:4] if k in entry), None)
    op = op_name(raw_op)
    content = _first(entry, _CONTENT_KEYS)
    ident = knowledge_id(_first(entry, _ID_KEYS))
    if op is None and "op" not in entry and "event" not in entry:
        op = default_op or (
            "update" if ident is not None and content else "add" if content else None
        )
    if op == "add":
        return {"op": "add", **_fact(entry)}
    if op == "update":
        return {"op": "update", "knowledge_id": ident, "content": content, **_graph(entry)}
    if op == "delete":
        out = {"op": "delete", "knowledge_id": ident}
        reason = _first(entry, ("reason", "why", "explanation"))
        if isinstance(reason, str):
            out["reason"] = reason
        return out
    if op == "noop":
        return {"op": "noop"}
    return {**entry, "op": op}  # unknown: refused with its name


def operations(value: Any) -> dict[str, list[Any]]:
    """{"operations": [...]} of an extraction answer."""
    return {"operations": _operations(value)}


def _operations(value: Any) -> list[Any]:
    value = _unwrapped(value, _OPERATION_LISTS + _FACT_LISTS)
    if isinstance(value, list):
        return [_operation(e) for e in value]
    if not isinstance(value, dict):
        raise AnswerError('expected {"operations": [...]}', "schema")
    entries = _lower_keys(value)
    if not entries or entries.get("operations", []) is None:
        return []  # {} or {"operations": null}: nothing worth remembering
    for key in _OPERATION_LISTS:
        if isinstance(entries.get(key), list):
            return [_operation(e) for e in entries[key]]
    for key in _FACT_LISTS:
        if isinstance(entries.get(key), list):  # mem0's "memory" list carries events
            return [_operation(e, default_op="add") for e in entries[key]]
    if any(k in entries for k in _OP_KEYS[:4]):
        return [_operation(entries)]
    raise AnswerError('expected {"operations": [...]}', "schema")


def _bullets(text: str) -> list[str] | None:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not any(_BULLET.match(line) for line in lines):
        return None
    return [_BULLET.sub("", line).strip() for line in lines if _BULLET.match(line)]


def _fact_list(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return [_fact(e) for e in value]
    if isinstance(value, dict):
        entries = _lower_keys(value)
        for key in _FACT_LISTS:
            if isinstance(entries.get(key), list):
                return [_fact(e) for e in entries[key]]
            if isinstance(entries.get(key), str):
                return [_fact(line) for line in _bullets(entries[key]) or [entries[key]]]
        if isinstance(entries.get("content"), str) or isinstance(entries.get("fact"), str):
            return [_fact(entries)]
    if isinstance(value, str):
        lines = _bullets(value)
        return [_fact(line) for line in lines] if lines else None
    return None


def facts(value: Any) -> dict[str, Any]:
    """{"facts": [...]} of an extract-action answer."""
    value = _unwrapped(value, _FACT_LISTS)
    if isinstance(value, dict) and not value:
        return {"facts": []}
    found = _fact_list(value)
    if found is None:
        raise AnswerError('expected {"facts": [...]}', "schema")
    return {"facts": found}


def consolidation(value: Any) -> dict[str, Any]:
    """{"summary": str, "facts": [...]} of a consolidation answer."""
    value = _unwrapped(value, ("summary",))
    if not isinstance(value, dict):
        raise AnswerError('expected {"summary": "...", "facts": [...]}', "schema")
    entries = _lower_keys(value)
    summary = _first(entries, ("summary", "conversation_summary", "session_summary", "recap"))
    if isinstance(summary, list) and all(isinstance(s, str) for s in summary):
        summary = " ".join(s.strip() for s in summary if s.strip())
    if not isinstance(summary, str) or not summary.strip():
        raise AnswerError('expected {"summary": "...", "facts": [...]}: no summary', "schema")
    rest = {k: v for k, v in entries.items() if k in _FACT_LISTS}
    return {"summary": summary.strip(), "facts": _fact_list(rest) or []}


def _judgement(entry: Any, index: Any = None) -> dict[str, Any] | None:
    if isinstance(entry, str) and index is not None:
        entry = {"pair": index, "outcome": entry}
    if not isinstance(entry, dict):
        return None
    entry = _lower_keys(entry)
    pair = knowledge_id(_first(entry, ("pair", "pair_id", "pair_index", "index", "id")))
    if isinstance(pair, str):
        found = re.fullmatch(r"\s*pair\s*#?\s*(\d{1,6})\s*", pair, re.I)
        pair = int(found.group(1)) if found else pair
    raw = _first(entry, ("outcome", "judgement", "judgment", "verdict", "label", "decision"))
    outcome = OUTCOMES.get(str(raw).strip().lower()) if raw is not None else None
    if not isinstance(pair, int) or isinstance(pair, bool) or outcome is None:
        return None
    return {"pair": pair, "outcome": outcome}


def judgements(value: Any) -> dict[str, Any]:
    """{"judgements": [{"pair": int, "outcome": ...}]} of a reconciliation answer.

    An entry that cannot be read is left out: its pair stays unjudged and is asked
    again on the next run. An answer of which nothing can be read is refused."""
    keys = ("judgements", "judgments", "results", "pairs", "decisions", "outcomes")
    value = _unwrapped(value, keys)
    entries: list[Any]
    pairs: list[tuple[Any, Any]]
    if isinstance(value, list):
        pairs = [(e, None) for e in value]
    elif isinstance(value, dict):
        lowered = _lower_keys(value)
        listed = next((lowered[k] for k in keys if isinstance(lowered.get(k), list)), None)
        if listed is not None:
            pairs = [(e, None) for e in listed]
        elif lowered and all(re.fullmatch(r"\d{1,6}", k) for k in lowered):
            pairs = [(v, int(k)) for k, v in lowered.items()]
        elif "pair" in lowered:
            pairs = [(lowered, None)]
        else:
            raise AnswerError('expected {"judgements": [...]}', "schema")
    else:
        raise AnswerError('expected {"judgements": [...]}', "schema")
    entries = [j for j in (_judgement(e, i) for e, i in pairs) if j is not None]
    if pairs and not entries:
        raise AnswerError("no judgement has a pair number and a known outcome", "schema")
    return {"judgements": entries}


def bullets(value: Any) -> dict[str, Any]:
    """{"bullets": [str, ...]} of a profile answer (at most 20, each at most 400 chars)."""
    value = _unwrapped(value, ("bullets", "profile"))
    found: Any = None
    if isinstance(value, dict):
        entries = _lower_keys(value)
        found = _first(entries, ("bullets", "profile", "points", "items", "facts", "summary"))
    elif isinstance(value, list):
        found = value
    elif isinstance(value, str):  # the answer's text itself: only a Markdown list will do
        found = _bullets(value)
    if isinstance(found, str):
        found = _bullets(found) or [line for line in found.splitlines() if line.strip()]
    if not isinstance(found, list):
        raise AnswerError('expected {"bullets": ["...", ...]}', "schema")
    texts = []
    for entry in found:
        if isinstance(entry, dict):
            entry = _first(_lower_keys(entry), _CONTENT_KEYS + ("bullet",))
        if isinstance(entry, str) and _BULLET.sub("", entry).strip():
            texts.append(_BULLET.sub("", entry).strip()[:MAX_BULLET])
    if found and not texts:
        raise AnswerError("no bullet is a text", "schema")
    return {"bullets": texts[:20]}


def raw(value: Any) -> Any:
    """No shape: the JSON value as it is (validated against the caller's schema)."""
    if isinstance(value, str):
        raise AnswerError("no JSON in the answer")
    return value
