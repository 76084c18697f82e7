"""No generated personal string reaches another person (issue #41).

Hypothesis writes names in fourteen scripts (Latin in any case, Cyrillic with its case
endings, Greek, Arabic, Hebrew, Devanagari, Bengali, Tamil, Thai, Georgian, Armenian,
Hangul, Han, Kana), phone numbers in six digit forms and in the number words of seven
languages and Chinese numerals, and addresses (postcodes, what3words) into a skill.
The scrubber is given nothing about the person: the allow-list alone must take them out.
Then one drawn skill at a time goes the whole way (a person's session, approval, another
person's search and prompt). A reader written apart from the scrubber reads digits of
any script, number words and numerals back as digits.
"""

import re
import unicodedata

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import Agent, AgentType
from accounts.services import token_create
from conversations.services.recording import tool_call_record, turn_append
from skills.models import Skill
from skills.normalise import normalise
from skills.scrub import Scrubber, Terms, words
from skills.services import skill_review
from skills.tasks import learn_skills
from skills.words import is_general
from tests.learning import fake_llm as f

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # hundreds of examples: 15-20 s each


def _letters(*ranges: tuple[int, int]) -> str:
    return "".join(chr(c) for a, b in ranges for c in range(a, b + 1) if chr(c).isalpha())


SCRIPTS = {
    "cyrillic": _letters((0x430, 0x44F)),
    "greek": _letters((0x3B1, 0x3C9)),
    "arabic": _letters((0x628, 0x64A)),
    "hebrew": _letters((0x5D0, 0x5EA)),
    "devanagari": _letters((0x915, 0x939)),
    "bengali": _letters((0x995, 0x9B9)),
    "tamil": _letters((0xB95, 0xBB9)),
    "thai": _letters((0xE01, 0xE2E)),
    "georgian": _letters((0x10D0, 0x10F0)),
    "armenian": _letters((0x561, 0x586)),
    "hangul": _letters((0xAC00, 0xAC00 + 400)),
    "han": _letters((0x5F20, 0x5F20 + 300), (0x738B, 0x738B + 50)),
    "kana": _letters((0x3042, 0x3093), (0x30A2, 0x30F3)),
}
SYLLABLES = ["zo", "qua", "vex", "kri", "jul", "wyn", "zar", "xil", "qor", "vuk", "ottol",
             "pem", "bry", "thax", "ysel", "drov", "mip", "fenk", "ngu", "yen"]  # fmt: skip
CASE_ENDINGS = ["", "ой", "е", "у", "ы", "ом", "ою"]
NUMERALS = {
    "en": "zero one two three four five six seven eight nine",
    "de": "null eins zwei drei vier fünf sechs sieben acht neun",
    "es": "cero uno dos tres cuatro cinco seis siete ocho nueve",
    "fr": "zéro un deux trois quatre cinq six sept huit neuf",
    "it": "zero uno due tre quattro cinque sei sette otto nove",
    "nl": "nul een twee drie vier vijf zes zeven acht negen",
    "pt": "zero um dois três quatro cinco seis sete oito nove",
    "zh": "〇 一 二 三 四 五 六 七 八 九",
}
DIGIT_FORMS = {"ascii": 0x30, "arabic-indic": 0x660, "devanagari": 0x966, "fullwidth": 0xFF10,
               "bengali": 0x9E6, "thai": 0xE50}  # fmt: skip
_READ = {w: str(i) for words_ in NUMERALS.values() for i, w in enumerate(words_.split())}
_READ["nul"], _READ["een"] = "0", "1"
PLACES = ["write to {} first", "{} asked for the invoice", "call {} tomorrow",
          "Send it to: {}", "the address is {}", "ask {} before sending", "({})"]  # fmt: skip
TEXTS = ["trigger", "procedure", "gotchas", "what_worked", "tools_used"]
W3W = ["filled", "count", "soap", "table", "lamp", "river", "quiet", "noon", "brick", "apple"]


@st.composite
def names(draw) -> str:
    script = draw(st.sampled_from(["latin", *SCRIPTS]))
    if script == "latin":
        name = "".join(draw(st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=3)))
        assume_not_a_word = not is_general(name)
        name = draw(st.sampled_from([name, name.capitalize(), name.upper()]))
        return name if assume_not_a_word else draw(names())
    name = draw(st.text(st.sampled_from(SCRIPTS[script]), min_size=2, max_size=6))
    return name + (draw(st.sampled_from(CASE_ENDINGS)) if script == "cyrillic" else "")


@st.composite
def phones(draw) -> tuple[str, str]:
    """(digits, how they are written)."""
    digits = str(draw(st.integers(10**7, 10**11 - 1)))
    form = draw(st.sampled_from([*DIGIT_FORMS, *NUMERALS]))
    if form in NUMERALS:
        said = NUMERALS[form].split()
        glue = "" if form == "zh" else " "
        return digits, glue.join(said[int(d)] for d in digits)
    zero = DIGIT_FORMS[form]
    written = "".join(chr(zero + int(d)) for d in digits)
    if draw(st.booleans()):
        written = " ".join([written[:3], written[3:6], written[6:]])
    return digits, written


@st.composite
def addresses(draw) -> list[str]:
    """(the address as written, its parts that must not be readable)."""
    if draw(st.booleans()):
        letters = st.text(st.sampled_from("ABCDEFGHJKLMNPRSTUWYZ"), min_size=1, max_size=2)
        first = f"{draw(letters)}{draw(st.integers(1, 99))}{draw(st.sampled_from(['', 'A', 'W']))}"
        second = f"{draw(st.integers(0, 9))}{draw(letters)}{draw(letters)}"
        return [f"{first} {second}", first, second]
    three = ".".join(draw(st.lists(st.sampled_from(W3W), min_size=3, max_size=3, unique=True)))
    return [draw(st.sampled_from(["///", ""])) + three, three]


def _digits_read(text: str) -> list[str]:
    """The digit runs a reader sees in `text`: any script's digits, number words."""
    text = normalise(text).lower()
    text = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)
    text = "".join(_READ.get(c, c) for c in text)  # Chinese numerals, one character each
    text = re.sub(r"[^\W\d_]+", lambda m: _READ.get(m.group(0), m.group(0)), text)
    return re.sub(r"(?<=\d)[^\w<]{1,3}(?=\d)", "", text).split()


def _assert_unreadable(text: str, name: str, phone: str, address: list[str]) -> None:
    seen = normalise(text).lower()
    assert normalise(name).lower() not in seen, (name, text)
    for part in address[1:]:
        assert part.lower() not in seen, (part, text)
    for run in _digits_read(text):
        assert not any(phone[i : i + 4] in run for i in range(len(phone) - 3)), (phone, text)


@st.composite
def skills(draw) -> tuple[str, str, list[str], dict]:
    name = draw(names())
    phone, said = draw(phones())
    address = draw(addresses())
    details = [name, said, address[0]]
    texts = [draw(st.sampled_from(PLACES)).format(d) for d in draw(st.permutations(details))]
    skill = {"trigger": "When the user asks to send a message to someone",
             "procedure": "Look up the contact, then " + "; ".join(texts) + ".",
             "gotchas": draw(st.sampled_from(PLACES)).format(name),
             "tools_used": ["GMAIL_SEND_EMAIL"]}  # fmt: skip
    return name, phone, address, skill


@settings(max_examples=300, deadline=None, database=None)
@given(drawn=skills())
def test_the_allow_list_alone_leaves_no_generated_detail_readable(drawn):
    name, phone, address, skill = drawn
    scrubber = Scrubber(terms=Terms(), shared={"mail_agent"}, tools=words(["GMAIL_SEND_EMAIL"]))
    out, in_trigger = scrubber.skill(skill)
    assert in_trigger == 0 and out["trigger"] == skill["trigger"]
    for field in ("procedure", "gotchas"):
        _assert_unreadable(out[field], name, phone, address)
    assert out["procedure"].startswith("Look up the contact, then ")


@pytest.fixture
def reader(charlie):
    kind = AgentType.objects.create(name="mail_agent")
    token, secret = token_create(user=charlie, name="laptop", agent_name="mail")
    Agent.objects.filter(pk=token.agent_id).update(agent_type=kind)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")

    def read(query: str) -> str:
        found = api.post("/api/v1/skills/search/", {"query": query, "min_relevance": 0},
                         format="json").json()["results"]  # fmt: skip
        ask = {"name": "recall_skills", "arguments": {"query": query}}
        recalled = api.post("/api/v1/tools/call/", ask, format="json").json()["result"]["results"]
        prompt = api.get("/api/v1/prompt/system/").json()["prompt"]
        assert found and recalled and "## Learned procedures" in prompt
        texts = [str(hit["skill"].get(k, "")) for hit in found for k in TEXTS]
        texts += [str(hit.get(k, "")) for hit in recalled for k in TEXTS]
        return "\n".join([*texts, prompt.split("## Learned procedures", 1)[1]])

    return kind, read


@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=skills())
def test_no_generated_detail_reaches_another_persons_search_or_prompt(
    fake_llm, reader, django_user_model, drawn
):
    name, phone, address, skill = drawn
    kind, read = reader
    with transaction.atomic():
        person = django_user_model.objects.create_user("dana")
        staff = django_user_model.objects.create_user("staff", is_staff=True)
        agent = Agent.objects.create(owner=person, name="mail", agent_type=kind)
        turn = turn_append(user=person, session_id="s", role="user", agent=agent,
                           content=f"{name}: {address[0]}, {phone}")  # fmt: skip
        tool_call_record(user=person, tool_name="GMAIL_SEND_EMAIL", session_id="s", agent=agent)
        fake_llm.then(f.answer({"skills": [skill]}))
        assert learn_skills(turn.session_id)["proposed"] == 1
        stored = Skill.objects.get()
        skill_review(skill_id=stored.pk, reviewer=staff, approve=True)
        shown = read(skill["trigger"])
        transaction.set_rollback(True)
    _assert_unreadable(shown, name, phone, address)
