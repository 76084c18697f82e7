"""The accounts' questions with the phrasings a strong model gives (`queries`).

A calling model often knows words the question lacks: the partner's name, what a memory
would say, a hypothetical answer. bench/data/phrasings-<account>.json holds, for the
questions of one account file, up to four such phrasings each, written by hand as a
strong model would write them when calling `recall` (realistic, not the stored answers
copied). `with_phrasings` gives the account's data with each question's `queries`, to be
asked like the account itself (`bench.account.evaluate_account(..., phrased=True)`).
"""

import json
from pathlib import Path
from typing import Any

from bench.scenario import NotAnAccount

MAX_QUERIES = 4


def read_phrasings(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise NotAnAccount(f"{path}: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("phrasings"), dict):
        raise NotAnAccount(f"{path}: needs 'account' and an object 'phrasings'.")
    for question, queries in data["phrasings"].items():
        if not isinstance(queries, list) or not 1 <= len(queries) <= MAX_QUERIES:
            raise NotAnAccount(f"{path}: {question!r} needs 1 to {MAX_QUERIES} phrasings.")
    return {**data, "path": path}


def with_phrasings(
    phrasings: dict[str, Any], accounts: list[tuple[Path, dict[str, Any]]]
) -> tuple[Path, dict[str, Any]] | None:
    """(the account's path, its data with `queries` on each phrased question), or None
    when that account is not among those asked."""
    account = next((a for a in accounts if a[0].name == phrasings.get("account")), None)
    if account is None:
        return None
    path, data = account
    given = phrasings["phrasings"]
    known = {q["question"] for q in data["questions"]}
    unknown = sorted(set(given) - known)
    if unknown:
        raise NotAnAccount(f"{phrasings['path']}: questions not in {path.name}: {unknown[:3]}")
    questions = [
        {**q, "queries": given[q["question"]]} if q["question"] in given else q
        for q in data["questions"]
    ]
    return path, {**data, "questions": questions}
