"""Who a question's role word is, in the owner's own words: "the physio" is Anouk.

People name someone by their role in one place and by name in another: "The physio,
Anouk, says my knee is stable" one month, "Anouk was happy with the knee today" the
next. A question asked by role ("What did the physio say last time?") shares no word
with the second, and the judge, which reads it, does not know Anouk is the physio. So
when a question names someone by role ("the physio", "my manager"), the owner's rows that
hold that word are read for a name set beside it (an apposition: "the physio, Anouk",
"my manager Pieter", "Anouk, my physio", "my physio is Anouk", "Anouk is my physio"), and
the question is asked again with the name in the role's place ("What did Anouk say?"),
as a caller's own phrasing is (`retrieval.pipeline.hybrid`'s `phrasings`). Only the
owner's rows are read; a role no row names anyone by adds nothing.
"""

import re
from collections import Counter

from retrieval import pipeline
from retrieval.corpus import Corpus
from retrieval.documents import texts_for
from retrieval.keyword import STOPWORDS

ROWS_READ = 20  # rows holding the role word that are read for a name beside it
MAX_NAMES = 2  # names one role word may stand for (a physio changed, two managers)
MAX_ROLES = 2  # role words of one question looked up

# "the", "my", ... or a name's possessive ("Daniel's physio").
_DETERMINER = r"(?:[Tt]he|[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[A-Z][a-zà-ÿ-]+['’]s)"
# The role words of a question: a determiner and the lower-case noun after it ("the
# physio"; not "the Grand Canyon", a name).
_ROLE_IN_QUESTION = re.compile(rf"\b{_DETERMINER}\s+([a-z][a-z-]{{2,}})\b")
_PART = r"[A-Z][a-zà-ÿ'’-]+"
_PARTICLE = r"(?:(?:de|van|von|der|den|da|di|du|dos|das|del|la|le)[ \t]+)*"
_NAME = rf"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?[ \t]+)?{_PART}(?:[ \t]+{_PARTICLE}{_PART})?"
# After a name in apposition the sentence goes on: "The physio, Anouk, says", "my physio
# Anouk: no cycling", "is called Anouk and". Not "my family, Caroline!": that is said to her.
_GOES_ON = r"(?=[ \t]*[,:;)]|[ \t]+[a-z]|[ \t]*$)"
# Capitalised words that are no one's name: a sentence's first word, days and months,
# what people exclaim.
_NOT_NAMES = frozenset(
    "i i'm i'd i've i'll the a an my our his her their this that these those it he she they we "
    "you what when where who why how yes no ok okay so but and also then today tomorrow "
    "yesterday tonight monday tuesday wednesday thursday friday saturday sunday january "
    "february march april may june july august september october november december "
    "christmas easter user assistant wow hey hi hello thanks thank oh ah yeah yep nope sure "
    "great awesome nice cool sorry well haha lol omg congrats congratulations dear good "
    "please right absolutely definitely totally exactly".split()
)


def _patterns(word: str) -> list[re.Pattern]:
    """Where a name stands beside `word` in apposition, within one line."""
    role = re.escape(word)
    return [
        re.compile(rf"\b{_DETERMINER}[ \t]+{role},?[ \t]+(?P<name>{_NAME}){_GOES_ON}"),
        re.compile(rf"\b(?P<name>{_NAME}),[ \t]+{_DETERMINER}[ \t]+{role},"),  # Anouk, my physio,
        re.compile(
            rf"\b{role}[ \t]+(?:is|was)[ \t]+(?:(?:called|named)[ \t]+)?"
            rf"(?P<name>{_NAME}){_GOES_ON}"
        ),
        re.compile(
            rf"\b(?P<name>{_NAME})[ \t]+(?:is|was)[ \t]+{_DETERMINER}[ \t]+{role}\b(?![ \t]+[a-z])"
        ),
    ]


def role_words(question: str) -> list[str]:
    """The words a question names someone or something by role ("the physio")."""
    found = [m.group(1).lower() for m in _ROLE_IN_QUESTION.finditer(question)]
    return list(dict.fromkeys(w for w in found if w not in STOPWORDS))[:MAX_ROLES]


def names_in(texts: list[str], word: str) -> list[str]:
    """The names `texts` set beside `word`, most often first; not the names of those who
    speak in them ("Caroline: ..."): a name said beside a role there is said to them."""
    counts: Counter[str] = Counter()
    for text in texts:
        for pattern in _patterns(word):
            for match in pattern.finditer(text):
                name = match.group("name").strip()
                if name.split()[0].lower() not in _NOT_NAMES and name.lower() != word:
                    counts[name] += 1
    speakers = {m.group(1) for t in texts for m in _SPEAKER.finditer(t)}
    named = [name for name, _ in counts.most_common() if name.split()[0] not in speakers]
    return named[:MAX_NAMES]


_SPEAKER = re.compile(rf"^(?:\(in reply to: )?({_PART}):", re.MULTILINE)


def named_phrasings(corpus: Corpus, owner_id: int, question: str) -> list[str]:
    """The question asked again with each role word's name in its place ("What did the
    physio say?" -> "What did Anouk say?"), for the names the owner's rows give it."""
    phrasings = []
    for word in role_words(question):
        ids = pipeline.keyword_ids(corpus, owner_id, word, limit=ROWS_READ)
        texts = [text for text, _ in texts_for(corpus, owner_id, ids).values()]
        role = re.compile(rf"\b{_DETERMINER}\s+{re.escape(word)}\b")
        for name in names_in(texts, word):
            phrasings.append(role.sub(name, question))
    return phrasings
