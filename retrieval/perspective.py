"""The account holder as memory names them: "my cat" asks about "User's cat".

Facts about the person an account belongs to are stored in the third person ("User
lives in Porto": the extraction prompt asks for it, and agents follow the same
convention), while people ask in the first person ("Where do I live?"). Read as is, a
first-person question is as near to "Melanie's cat is called Bailey" as to "User's cat is
called Miso". Recall over memories therefore reads the question from the memories'
perspective: first-person words become the name memories give the account holder.

A person's names are the person. Apps and mem0's SDK store memories by name ("Maya
prefers oat milk"), and people ask both ways ("what milk do I like", "what does Maya
like"). The holder's names (`Holder`: the account's name fields, an app person's external
id when it is a name, the name their memories give them, their aliases in the graph) are
read as the holder on both sides: the question is searched in the form the person's own
memories use most (`Holder.form`: "User" or the name), and the judge reads both the
question and each memory in one convention (`for_judge`, `judged_text`): the holder is
"me" in the question and "User" in the memory, as extraction stores them. Other people's
names are left as they are.
"""

import re
from dataclasses import dataclass, field

from retrieval.keyword import STOPWORDS

HOLDER = "User"
_FIRST_PERSON = {
    "i": HOLDER,
    "me": HOLDER,
    "myself": HOLDER,
    "my": f"{HOLDER}'s",
    "mine": f"{HOLDER}'s",
    "i'm": f"{HOLDER} is",
    "i've": f"{HOLDER} has",
    "i'd": f"{HOLDER} would",
    "i'll": f"{HOLDER} will",
}
_WORDS = re.compile(r"\b(?:i'm|i've|i'd|i'll|myself|mine|my|me|i)\b", re.IGNORECASE)


_NAME_TOKEN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][\w'\-]*", re.UNICODE)
# Names that are also everyday words ("may I ask", "will you", "a rose"): read as the
# holder in a question only when capitalised there.
_WORDLIKE = frozenset(
    "may will rose grace bill mark pat sue hope faith joy dawn summer april june august "
    "art jack amber ruby iris lily ivy sky river rich case frank earl major".split()
)


@dataclass(frozen=True)
class Holder:
    """The names the account holder goes by, and the form their memories use most."""

    names: tuple[str, ...] = ()  # full names first ("Maya Brennan", "Maya", "Brennan")
    form: str = HOLDER  # what the person's memories call them most: "User" or a name
    tokens: frozenset[str] = field(default_factory=frozenset)  # lower-case name words
    # The other form, searched too, when the person's word counts cannot yet tell which
    # their memories use ("" when they can): a few memories, or just written.
    also: str = ""

    @classmethod
    def of(cls, names: "list[str] | tuple[str, ...]", form: str = HOLDER) -> "Holder":
        cleaned: dict[str, None] = {}
        for name in names:
            words = _NAME_TOKEN.findall(name or "")
            words = [w for w in words if len(w) > 1 and w.lower() not in STOPWORDS]
            if not words or len(words) > 4:
                continue
            cleaned.setdefault(" ".join(words), None)
            for word in words:
                if word.lower() not in {HOLDER.lower(), "me", "myself"}:
                    cleaned.setdefault(word, None)
        ordered = sorted(cleaned, key=lambda n: -len(n.split()))
        tokens = frozenset(w.lower() for n in ordered for w in n.split())
        return cls(tuple(ordered), form or HOLDER, tokens)

    def pattern(self, *, in_question: bool) -> re.Pattern | None:
        if not self.names:
            return None
        parts = []
        for name in self.names:
            words = r"\s+".join(re.escape(w) for w in name.split())
            if in_question and name.lower() not in _WORDLIKE:
                parts.append(f"(?i:{words})")
            else:
                parts.append(words)
        return re.compile(r"(?<![\w'])(?:" + "|".join(parts) + r")(?![\w-])")


NOBODY = Holder()


def _named(text: str, holder: Holder, to: str, *, in_question: bool) -> str:
    pattern = holder.pattern(in_question=in_question)
    return pattern.sub(to, text) if pattern is not None else text


def as_stored(query: str, holder: Holder = NOBODY, form: str = "") -> str:
    """`query` with its first-person words, and the holder's names, in the form the
    person's memories use (`form`, default `Holder.form`, "User" by default)."""
    form = form or holder.form or HOLDER
    text = _named(query, holder, HOLDER, in_question=True)
    text = _WORDS.sub(lambda match: _FIRST_PERSON[match.group(0).lower()], text)
    if form != HOLDER:
        text = re.sub(rf"\b{HOLDER}\b", form, text)
    return text


_SUBJECT_AFTER = re.compile(
    r"\b(?:does|did|do|is|was|has|have|had|can|could|should|would|will|am)\s+(?:not\s+)?$",
    re.IGNORECASE,
)
# Where a clause starts: a name there is its subject ("Maya is locked out, who can ...").
_CLAUSE_START = re.compile(r"(?:^|[,;:.!?]\s*|\b(?:and|but|when|if|that|while|because)\s+)$", re.I)
# The verb agreeing with the first person, once the name is "I": "does I have" -> "do I
# have", "is I going" -> "am I going", "I is" -> "I am".
_AGREE = [
    (re.compile(r"\bdoes(\s+(?:not\s+)?I)\b"), r"do\1"),
    (re.compile(r"\bDoes(\s+(?:not\s+)?I)\b"), r"Do\1"),
    (re.compile(r"\bis(\s+(?:not\s+)?I)\b"), r"am\1"),
    (re.compile(r"\bIs(\s+(?:not\s+)?I)\b"), r"Am\1"),
    (re.compile(r"\bhas(\s+(?:not\s+)?I)\b"), r"have\1"),
    (re.compile(r"\bHas(\s+(?:not\s+)?I)\b"), r"Have\1"),
    (re.compile(r"\bI is\b"), "I am"),
    (re.compile(r"\bI has\b"), "I have"),
    (re.compile(r"\bI does\b"), "I do"),
    (re.compile(r"\bI isn't\b"), "I'm not"),
    (re.compile(r"\bI doesn't\b"), "I don't"),
    (re.compile(r"\bI hasn't\b"), "I haven't"),
]


def for_judge(query: str, holder: Holder = NOBODY) -> str:
    """The question as the judge reads it: the holder's names in the first person, as the
    person would ask ("What is Maya's job?" -> "What is my job?", "Does Maya have any
    allergies?" -> "Do I have any allergies?"), so the judge weighs the topic, not the
    name every memory shares; other words as asked."""
    pattern = holder.pattern(in_question=True)
    if pattern is None:
        return query

    def person(match: re.Match) -> str:
        after = query[match.end() : match.end() + 2]
        if after in {"'s", "’s"}:
            return "my"
        before = query[: match.start()]
        if _SUBJECT_AFTER.search(before) or _CLAUSE_START.search(before):
            return "I"
        return "me"

    text = pattern.sub(person, query)
    if text == query:
        return query
    text = re.sub(r"\bmy['’]s\b", "my", text)
    for agreeing, to in _AGREE:
        text = agreeing.sub(to, text)
    return text


def judged_text(text: str, holder: Holder = NOBODY) -> str:
    """A memory as the judge reads it: the holder's names as "User", as extraction
    writes them ("Maya prefers oat milk" -> "User prefers oat milk")."""
    return _named(text, holder, HOLDER, in_question=False) if holder.names else text


def holder_words(holder: Holder = NOBODY) -> frozenset[str]:
    """The lower-case words that name the holder in a question (first person, "user",
    their names): they say who, never what."""
    return frozenset(_FIRST_PERSON) | {"user", "user's", "myself"} | holder.tokens


# Words that ask for memory itself, not for a topic in it ("what do you know about me").
_ASKING = frozenset(
    "about all anything everything know knows knew remember remembered recall tell say "
    "said summarise summarize summary sum up describe thing things stuff info information "
    "detail details something can could would please give list any so far already "
    "user user's me my myself mine i i'm yourself you your us we our".split()
)
_TOKENS = re.compile(r"[\w']+", re.UNICODE)


def asks_about_holder(query: str, holder: Holder = NOBODY) -> bool:
    """Whether `query` asks what memory holds of the account holder as a whole ("What do
    you know about me?", "summarise what you remember about the user"): it names the
    holder and no topic. Such a question shares no meaning with any one memory, so the
    judge cannot find its answer: recall answers it with what matters most of them."""
    words = [w.lower() for w in _TOKENS.findall(_named(query, holder, "me", in_question=True))]
    if not words or not any(w in {"me", "myself", "i", "user", "user's", "my"} for w in words):
        return False
    return all(w in _ASKING or w in STOPWORDS for w in words)


# Words that ask what was said or done, not about what: "What did we talk about
# yesterday?" names a time and no topic.
_SAYING = frozenset(
    "talk talked talking discuss discussed discussing chat chatted say said tell told "
    "speak spoke mention mentioned happen happened happening go going went do doing done "
    "up new news last time conversation conversations due upcoming coming planned plan plans "
    "scheduled schedule agenda calendar happens".split()
)


def names_no_topic(query: str, holder: Holder = NOBODY) -> bool:
    """Whether `query` (its time words already read) asks for nothing but what was said
    or remembered: "What did we talk about?", "what did I tell you", ""."""
    text = _named(query, holder, "me", in_question=True)
    words = [w.lower() for w in _TOKENS.findall(text)]
    return all(w in _ASKING or w in STOPWORDS or w in _SAYING for w in words)
