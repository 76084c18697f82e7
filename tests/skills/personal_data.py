"""Personal data for the skill scrubber's property tests, in the forms people, models and
attackers write it, and a reader's eye that finds it again in whatever form it reached.

`people()` draws one person (their account) and a third party they mention, with an
e-mail address, a phone number and a company. `where_said()` places each detail in a
session the way people and tools write it; `leaked()` writes a detail into a skill the
way a careless model (or an attacker) might: in capitals, lower case, quotes, after a
colon, first in a field, inside a tool's name or a joined word, with invisible
characters, look-alike letters, fullwidth forms, spelled out letter by letter; e-mail
addresses written out with `dot` and `at`, with `＠` or without a top-level domain;
phone numbers in superscript, fullwidth or Arabic-Indic digits, or in words.

`visible(text)` is what a reader makes of a text, written independently of the code
under test: compatibility forms folded, invisible characters and accents dropped, the
look-alikes `leaked()` uses read as Latin, digits of any script and number words read
as digits. `found_in(detail, text)` says whether a detail can be read there, even
spelled across separators.
"""

import re
import unicodedata
from dataclasses import dataclass

from hypothesis import assume
from hypothesis import strategies as st

from skills.allowed import ALLOWED

SYLLABLES = ["zo", "qua", "vex", "kri", "jul", "wyn", "zar", "xil", "qor", "vuk", "jaz",
             "kex", "oru", "ply", "thax", "gub", "ysel", "drov", "mip", "fenk"]  # fmt: skip
REAL_NAMES = ["Ottoline", "Pembry", "Wunderlich", "Dmitri", "Volkov", "Siobhan", "Okonkwo",
              "Nakamura", "Fernsby", "Quilliam", "Haverford", "Marisol", "Thibault", "Zdenka",
              "Oyelaran", "Grzegorz", "Aurelio", "Ingeborg"]  # fmt: skip
PROVIDERS = ["gmail", "outlook", "proton", "yahoo"]
DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
CYRILLIC = str.maketrans("aeopcxyisAEOPCXYISMHTKB", "аеорсхуіѕАЕОРСХУІЅМНТКВ")
GREEK = str.maketrans("aoiuvkABEHIKMNOPTYXZ", "αοιυνκΑΒΕΗΙΚΜΝΟΡΤΥΧΖ")
READ_AS_LATIN = str.maketrans(
    "аеорсхуіѕАЕОРСХУІЅМНТКВαοιυνκΑΒΕΗΙΚΜΝΟΡΤΥΧΖ",
    "aeopcxyisAEOPCXYISMHTKBaoiuvkABEHIKMNOPTYXZ",
)
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e"]
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
FULLWIDTH_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
_WORD_DIGIT = re.compile(r"\b(" + "|".join(DIGIT_WORDS) + r"|oh)\b")


@dataclass(frozen=True)
class Person:
    username: str
    first: str
    last: str
    email: str  # their account's
    friend_first: str  # a third party they mention
    friend_last: str
    friend_local: str  # the third party's address: local@company.tld or @provider
    company: str
    domain: str
    tld: str
    phone: str  # digits only

    @property
    def friend_email(self) -> str:
        return f"{self.friend_local}@{self.domain}.{self.tld}"

    def names(self) -> list[str]:
        """What must not be readable in a shared skill (the provider's name may be)."""
        found = [self.first, self.last, self.friend_first, self.friend_last, self.company]
        found += [p for p in re.split(r"[._+-]", self.friend_local) if len(p) >= 4]
        found += [p for p in re.split(r"[._\d]", self.username) if len(p) >= 4]
        return list(dict.fromkeys(found))


def _name(draw) -> str:
    if draw(st.booleans()):
        name = draw(st.sampled_from(REAL_NAMES))
    else:
        name = "".join(draw(st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=3)))
        name = name.capitalize()
    assume(len(name) >= 5 and name.lower() not in ALLOWED)
    return name


@st.composite
def people(draw) -> Person:
    first, last, friend_first, friend_last, company = (_name(draw) for _ in range(5))
    assume(len({first, last, friend_first, friend_last, company}) == 5)
    corporate = draw(st.booleans())
    domain = company.lower() if corporate else draw(st.sampled_from(PROVIDERS))
    style = draw(st.sampled_from(["dot", "initial", "digits"]))
    local = {
        "dot": f"{friend_first}.{friend_last}",
        "initial": f"{friend_first[0]}{friend_last}",
        "digits": f"{friend_first}{draw(st.integers(10, 99))}",
    }[style].lower()
    return Person(
        username=f"{first.lower()}{draw(st.integers(1, 999))}",
        first=first,
        last=last,
        email=f"{first.lower()}.{last.lower()}@{draw(st.sampled_from(PROVIDERS))}.com",
        friend_first=friend_first,
        friend_last=friend_last,
        friend_local=local,
        company=company,
        domain=domain,
        tld=draw(st.sampled_from(["com", "de", "co.uk", "io"])),
        phone=str(draw(st.integers(10**9, 10**12 - 1))),
    )


def _invisible(draw, text: str) -> str:
    at = draw(st.integers(1, max(1, len(text) - 1)))
    return text[:at] + draw(st.sampled_from(INVISIBLE)) + text[at:]


def _look_alike(draw, text: str) -> str:
    table = draw(st.sampled_from([CYRILLIC, GREEK]))
    changed = text.translate(table)
    assume(changed != text)
    return changed


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _bold(text: str) -> str:
    def one(c: str) -> str:
        if "A" <= c <= "Z":
            return chr(0x1D400 + ord(c) - 65)
        if "a" <= c <= "z":
            return chr(0x1D41A + ord(c) - 97)
        return c

    return "".join(one(c) for c in text)


NAME_FORMS = {
    "plain": lambda d, n: n,
    "capitals": lambda d, n: n.upper(),
    "lower": lambda d, n: n.lower(),
    "quoted": lambda d, n: d(st.sampled_from(['"{}"', "“{}”", "'{}'", "«{}»", "({})"])).format(n),
    "after-colon": lambda d, n: f"Contact: {n}",
    "possessive": lambda d, n: f"{n}'s",
    "tool-name": lambda d, n: f"{n.lower()}_crm_lookup",
    "camel-tool": lambda d, n: f"lookup{n}Record",
    "invisible": lambda d, n: _invisible(d, n),
    "look-alike": lambda d, n: _look_alike(d, n),
    "fullwidth": lambda d, n: _fullwidth(n),
    "bold": lambda d, n: _bold(n),
    "spelled": lambda d, n: d(st.sampled_from([" ", ".", "-"])).join(n),
    "accented": lambda d, n: n.replace("e", "é").replace("a", "á").replace("o", "ö"),
    "capitals-invisible": lambda d, n: _invisible(d, n.upper()),
    "lower-look-alike": lambda d, n: _look_alike(d, n.lower()),
}


def _email_forms(person: Person) -> dict:
    local, domain, tld = person.friend_local, person.domain, person.tld
    spelled_local = local.replace(".", " dot ")
    spelled_tld = tld.replace(".", " dot ")
    return {
        "plain": lambda d: person.friend_email,
        "spelled": lambda d: f"{spelled_local} at {domain} dot {spelled_tld}",
        "bracketed": lambda d: f"{local} [at] {domain} [dot] {tld}",
        "parenthesised": lambda d: f"{local}(at){domain}.{tld}",
        "fullwidth-at": lambda d: f"{local}＠{domain}.{tld}",
        "no-tld": lambda d: f"{local}@{domain}",
        "invisible": lambda d: _invisible(d, person.friend_email),
        "capitals": lambda d: person.friend_email.upper(),
        "mailto": lambda d: f"<mailto:{person.friend_email}>",
        "spaced-at": lambda d: f"{local} @ {domain}.{tld}",
    }


def _phone_forms(phone: str) -> dict:
    grouped = f"+{phone[:2]} {phone[2:5]} {phone[5:8]} {phone[8:]}"
    return {
        "grouped": lambda d: grouped,
        "dashed": lambda d: "-".join([phone[:3], phone[3:6], phone[6:]]),
        "dotted": lambda d: ".".join([phone[:3], phone[3:6], phone[6:]]),
        "superscript": lambda d: grouped.translate(SUPERSCRIPT),
        "subscript": lambda d: phone.translate(SUBSCRIPT),
        "fullwidth": lambda d: grouped.translate(FULLWIDTH_DIGITS),
        "arabic-indic": lambda d: phone.translate(ARABIC_INDIC),
        "words": lambda d: " ".join(DIGIT_WORDS[int(c)] for c in phone),
        "mixed": lambda d: " ".join(
            DIGIT_WORDS[int(c)] if i % 2 else c for i, c in enumerate(phone)
        ),
        "invisible": lambda d: "\u200b".join(phone),
        "spaced": lambda d: " ".join(phone),
    }


@st.composite
def leaked(draw, person: Person) -> str:
    """One detail of `person` written into a skill, in one of the forms above."""
    kind = draw(st.sampled_from(["name", "name", "name", "email", "phone"]))
    if kind == "email":
        forms = _email_forms(person)
        return forms[draw(st.sampled_from(sorted(forms)))](draw)
    if kind == "phone":
        forms = _phone_forms(person.phone)
        return forms[draw(st.sampled_from(sorted(forms)))](draw)
    name = draw(st.sampled_from(person.names()[:5]))
    form = draw(st.sampled_from(sorted(NAME_FORMS)))
    if form == "plain" and draw(st.booleans()):  # a first and last name as one word
        name = draw(st.sampled_from([person.first + person.last, person.friend_first.lower()
                                     + person.friend_last.lower()]))  # fmt: skip
    return NAME_FORMS[form](draw, name)


def where_said(draw, person: Person) -> dict:
    """Where the session holds the person's details: a turn, a tool's arguments or error,
    a memory's entity (the third party's name in one of them), their address and phone
    number in a turn, their company in a reply, the person's surname in a tool's name."""
    friend = f"{person.friend_first} {person.friend_last}"
    place = draw(st.sampled_from(["turn", "args", "error", "entity"]))
    mention = draw(st.sampled_from(["plain", "capitals", "quoted", "after-colon", "invisible",
                                    "look-alike", "fullwidth"]))  # fmt: skip
    said = " ".join(NAME_FORMS[mention](draw, part) for part in friend.split())
    said = said if place == "turn" else "the contact"
    phone_form = draw(st.sampled_from(["grouped", "words", "dashed"]))
    phone = _phone_forms(person.phone)[phone_form](draw)
    email = _email_forms(person)[draw(st.sampled_from(["plain", "spelled", "bracketed"]))](draw)
    asked = [
        f"Please send the report to {said}, address {email}, phone {phone}.",
        f"{said} needs the report. Write to {email} or call {phone}.",
        f"For {person.company}: send it to {said} ({email}, {phone})",
    ]
    return {
        "turns": [
            ("user", draw(st.sampled_from(asked))),
            ("assistant", f"Done, I sent it for {person.company}."),
        ],
        "args": {"to": friend.lower() if place == "args" else "", "subject": "report"},
        "error": f"Recipient {friend} not found" if place == "error" else "",
        "entity": f"person:{friend}".replace(" ", "_").lower() if place == "entity" else "",
        "tool": f"{person.last.lower()}_crm_lookup",
    }


def visible(text: str) -> str:
    """What a reader makes of `text` (see the module docstring), lower case."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).translate(READ_AS_LATIN)
    text = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text).lower()
    return _WORD_DIGIT.sub(lambda m: str(DIGIT_WORDS.index(m.group(1)) if m.group(1) != "oh"
                                         else 0), text)  # fmt: skip


def found_in(detail: str, text: str, *, digits: bool = False) -> bool:
    """Whether `detail` (a name, or with `digits` a phone number) can be read in `text`:
    in any word, or spelled across single separators (`O t t o`, `9 1 2`)."""
    seen = visible(text)
    if digits:
        runs = re.sub(r"\D+", " ", re.sub(r"(?<=\d)[^\w\n]{1,3}(?=\d)", "", seen))
        return any(detail[i : i + 5] in run for run in runs.split() for i in range(len(detail) - 4))
    wanted = re.sub(r"[\W_]", "", visible(detail))
    joined = re.sub(r"(?<=\b\w)[ .\-](?=\w\b)", "", seen)
    return any(wanted in word for word in re.split(r"[\W_]+", joined))
