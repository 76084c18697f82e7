"""The account holder as memory names them: "my cat" asks about "User's cat".

Facts about the person an account belongs to are stored in the third person ("User
lives in Porto": the extraction prompt asks for it, and agents follow the same
convention), while people ask in the first person ("Where do I live?"). Read as is, a
first-person question is as near to "Melanie's cat is called Bailey" as to "User's cat is
called Miso". Recall over memories therefore reads the question from the memories'
perspective: first-person words become the name memories give the account holder.
"""

import re

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


def as_stored(query: str) -> str:
    """`query` with its first-person words in the third person memories use."""
    return _WORDS.sub(lambda match: _FIRST_PERSON[match.group(0).lower()], query)


# Words that ask for memory itself, not for a topic in it ("what do you know about me").
_ASKING = frozenset(
    "about all anything everything know knows knew remember remembered recall tell say "
    "said summarise summarize summary sum up describe thing things stuff info information "
    "detail details something can could would please give list any so far already "
    "user user's me my myself mine i i'm yourself you your us we our".split()
)
_TOKENS = re.compile(r"[\w']+", re.UNICODE)


def asks_about_holder(query: str) -> bool:
    """Whether `query` asks what memory holds of the account holder as a whole ("What do
    you know about me?", "summarise what you remember about the user"): it names the
    holder and no topic. Such a question shares no meaning with any one memory, so the
    judge cannot find its answer: recall answers it with what matters most of them."""
    words = [w.lower() for w in _TOKENS.findall(query)]
    if not words or not any(w in {"me", "myself", "i", "user", "user's", "my"} for w in words):
        return False
    return all(w in _ASKING or w in STOPWORDS for w in words)
