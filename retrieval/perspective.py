"""The account holder as memory names them: "my cat" asks about "User's cat".

Facts about the person an account belongs to are stored in the third person ("User
lives in Porto": the extraction prompt asks for it, and agents follow the same
convention), while people ask in the first person ("Where do I live?"). Read as is, a
first-person question is as near to "Melanie's cat is called Bailey" as to "User's cat is
called Miso". Recall over memories therefore reads the question from the memories'
perspective: first-person words become the name memories give the account holder.
"""

import re

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
