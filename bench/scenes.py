"""The accounts' questions with the speaker's scene before them.

People say what prompts a question before asking it, and agents pass the message on:
"I've had a toothache since Sunday, who's my dentist?". bench/data/scenes-<account>.json
holds, for twelve questions of one account file, the question as a person would type it
with a scene first (written from the questions alone). `with_scenes` gives the account's
data asked both ways, each with the original question's answers: the twelve as written,
and the same twelve with their scenes (`bench.account.evaluate_account`).
"""

import json
from pathlib import Path
from typing import Any

from bench.scenario import NotAnAccount


def read_scenes(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise NotAnAccount(f"{path}: {error}") from error
    scenes = data.get("scenes") if isinstance(data, dict) else None
    if not isinstance(scenes, dict) or not all(
        isinstance(v, str) and v.strip() for v in scenes.values()
    ):
        raise NotAnAccount(f"{path}: needs 'account' and an object 'scenes' of questions.")
    return {**data, "path": path}


def with_scenes(
    scenes: dict[str, Any], accounts: list[tuple[Path, dict[str, Any]]]
) -> tuple[Path, dict[str, Any], dict[str, Any]] | None:
    """(the account's path, its data with only the questions given scenes, as written;
    the same with their scenes), or None when that account is not among those asked.
    Neither holds nonsense or broad questions (the account itself asks those)."""
    account = next((a for a in accounts if a[0].name == scenes.get("account")), None)
    if account is None:
        return None
    path, data = account
    given = scenes["scenes"]
    known = {q["question"]: q for q in data["questions"]}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise NotAnAccount(f"{scenes['path']}: questions not in {path.name}: {unknown[:3]}")
    plain = [known[q] for q in given]
    staged = [{**known[q], "question": text} for q, text in given.items()]
    bare = {**data, "nonsense_questions": [], "broad_questions": []}
    bare.pop("named_questions", None)
    bare.pop("named_nonsense", None)
    return path, {**bare, "questions": plain}, {**bare, "questions": staged}
