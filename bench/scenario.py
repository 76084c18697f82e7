"""What the account and graph scenarios share: reading a scenario file, the throwaway
user its memories are told to, and telling them."""

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model

from memory.services import memory_create


class NotAnAccount(ValueError):
    """A file that is not an account scenario."""


def read_scenario(path: Path, required: tuple[str, ...]) -> dict[str, Any]:
    """A scenario file's JSON object, each of `required` a list in it (NotAnAccount,
    naming the file, when it is not)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise NotAnAccount(f"{path}: {error}") from error
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in required):
        raise NotAnAccount(f"{path}: needs the lists {', '.join(required)}.")
    return data


@contextmanager
def throwaway_user(prefix: str, *, keep: bool) -> Iterator[Any]:
    """A new user named after `prefix`, deleted afterwards unless `keep`."""
    user = get_user_model().objects.create_user(f"{prefix}-{uuid.uuid4().hex[:12]}")
    try:
        yield user
    finally:
        if not keep:
            user.delete()


def memories_tell(user: Any, memories: list[dict[str, Any]]) -> dict[str, int]:
    """Store the scenario's memories as the person told them; their ids by content."""
    ids = {}
    for memory in memories:
        item = memory_create(
            user=user,
            content=memory["content"],
            category=memory.get("category") or "fact",
            source="user",
        )
        ids[memory["content"]] = item.pk
    return ids
