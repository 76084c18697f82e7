"""The clause a question asks in, when the speaker's scene comes before it.

People say what prompts a question before asking it, and agents pass the message on:
"I have a toothache, who is my dentist?", "My tooth hurts. Who's my dentist again?",
"We're doing the party menu - what is my son allergic to?". The scene's words are no
topic, and a word no memory holds ("toothache") read as what the question asks about:
the dentist, which does not follow it, was set aside (`retrieval.unsaid`), and the
judge, reading the whole question, was unsure (0.12 against 0.98 for "who's my
dentist?"). `asked_clause` finds the clause that asks. Recall and conversation search
search it as one more phrasing of the question (`retrieval.pipeline.hybrid`'s
`phrasings`: one ranking, one judgement, the scene still read with the question), and
the judge reads the first candidates with it alone (`retrieval.judge.read_pairs`).
"""

import re

__all__ = ["asked_clause"]

# Words a clause that asks starts with: a question word or an auxiliary put first.
_ASKING = (
    r"(?:who|whom|whose|what|which|when|where|why|how|is|are|am|was|were|do|does|did|can|"
    r"could|should|would|will|shall|may|might|must|have|has|had)(?:['’]\w+)?"
)
# What may come before the question word: "so", "but", "then", "and" ("..., so when is it?").
_LEAD = r"(?:(?:so|but|then|and|ok|okay|well|also)\s+)?"
# Where a clause ends: a comma, semicolon, colon, full stop, "!", "?", or a dash.
_BREAK = r"(?:[,;:.!?]+|\s[-–—]+)\s+"
_STARTS_ASKING = re.compile(rf"^{_LEAD}{_ASKING}\b", re.IGNORECASE)
# The first clause end that a clause that asks follows (one pass over the text).
_ASKS_AFTER_BREAK = re.compile(rf"{_BREAK}(?={_LEAD}{_ASKING}\b)", re.IGNORECASE)
_WORD = re.compile(r"\w+", re.UNICODE)
MIN_SCENE_WORDS = 2  # "Caroline, what did she paint?" names who; it sets no scene
# A scene is the speaker's own: "I have a toothache", "my tooth hurts", "remind me". Words
# without one are the question's own ("Email or a call, what do I prefer?").
_OWN = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|ours|you|your)\b|\bi['’]", re.IGNORECASE)
# A phrase that starts with a preposition or a subordinating word narrows what is asked
# ("After the race, what did Melanie do?", "In 2023, ..."): it is part of the question.
_NARROWS = re.compile(
    r"^(?:after|before|since|until|till|during|in|on|at|by|when|while|whilst|if|unless|once|"
    r"for|from|as|apart|besides|except|given|following|of|about|with|without|between|"
    r"among|within|over|under|like|unlike|regarding|concerning|according|other\s+than)\b",
    re.IGNORECASE,
)


def asked_clause(question: str) -> str | None:
    """The part of `question` from the first clause that asks, when the question does
    not ask from its start, the speaker's own scene of at least MIN_SCENE_WORDS words
    comes first (not a phrase that narrows the question: "After the race, ..."), and the
    question ends asking ("?"); None otherwise. "I have a toothache, who is my
    dentist?" -> "who is my dentist?"."""
    text = question.strip()
    if not text.endswith("?") or _STARTS_ASKING.match(text) or _NARROWS.match(text):
        return None
    end = _ASKS_AFTER_BREAK.search(text)
    if end is None:
        return None
    scene = text[: end.start()]
    if len(_WORD.findall(scene)) < MIN_SCENE_WORDS or not _OWN.search(scene):
        return None
    return text[end.end() :]
