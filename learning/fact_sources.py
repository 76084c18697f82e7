"""Which turn of a conversation a fact came from, for the fact's `source_turn`.

A model that reads a whole conversation answers facts without saying where each was
said; the fact points at the turn whose words it shares most (its content words and
numbers, "I moved to Lisbon in May" for "User moved to Lisbon"), so the item's provenance
(GET conversations/turns/{source_turn}/) is what was said, not the batch's last turn.
Ties go to what the person said over the assistant, then to the later turn (the
correction over what it corrected); a fact that shares no word with any turn points at
the last one.
"""

import re
from collections.abc import Sequence
from typing import Any

_WORD = re.compile(r"\w+")
_STEM = 6  # "allergic"/"allergy", "prefers"/"preferred": the same first six letters
_NOT_CONTENT = {
    "user", "users", "the", "a", "an", "is", "are", "was", "were", "be", "been", "i", "me",
    "my", "mine", "we", "our", "you", "your", "he", "she", "they", "his", "her", "their",
    "it", "its", "to", "of", "in", "on", "at", "for", "with", "and", "or", "but", "that",
    "this", "has", "have", "had", "do", "does", "did", "not", "no", "so", "as", "by",
    "from", "about", "will", "would", "can", "s", "am", "also", "now", "just", "very",
}  # fmt: skip


def _words(text: str) -> set[str]:
    return {w[:_STEM] for w in _WORD.findall(text.lower()) if w not in _NOT_CONTENT}


def fact_turn(content: str, turns: Sequence[Any]) -> Any:
    """The turn of `turns` (in conversation order) that `content` most likely came from;
    the last turn when none shares a content word with it."""
    wanted = _words(content)
    best, best_key = turns[-1], (0, False, -1)
    for index, turn in enumerate(turns):
        shared = len(wanted & _words(turn.content))
        key = (shared, turn.role == "user", index)
        if shared and key > best_key:
            best, best_key = turn, key
    return best
