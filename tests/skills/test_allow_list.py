"""Shared skills by allow-list (issue #41): a word reaches another person only when it is
known not to be personal. The 22 cases that reached another person of the type verbatim
under the block-list, each through the whole path: a person's turn, the model's skill,
staff approval, another person's `skills/search`, `recall_skills` and system prompt."""

import re

import pytest
from rest_framework.test import APIClient

from accounts.models import Agent, AgentType
from accounts.services import token_create
from conversations.services.recording import tool_call_record, turn_append
from skills.models import Skill, SkillWord
from skills.normalise import normalise
from skills.personal import taught_words
from skills.scrub import Scrubber, Terms, words
from skills.services import skill_review, skill_words_record
from skills.tasks import learn_skills
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
TYPE = "mail_agent"
TRIGGER = "When the user asks to send a message to someone"

# (turn the person wrote, what the model wrote into the skill, what must not be readable)
LEAKS = {
    "chinese": ("send the bravo-yam message :: 请给我的房东王小明发邮件",
                "write to 王小明 first", ["王小明", "小明"]),
    "japanese": ("田中さんにメールを送って", "write to 田中さん first", ["田中"]),
    "korean": ("김민수에게 이메일 보내줘", "write to 김민수 first", ["김민수"]),
    "arabic": ("أرسل بريدا إلى أحمد", "write to أحمد first", ["أحمد"]),
    "hebrew": ("שלח מייל לדוד כהן", "write to דוד כהן first", ["דוד", "כהן"]),
    "thai": ("ส่งอีเมลถึงสมชาย", "write to สมชาย first", ["สมชาย"]),
    "devanagari": ("राहुल शर्मा को ईमेल भेजो", "write to राहुल शर्मा first", ["राहुल", "शर्मा"]),
    "georgian": ("გიორგი ბერიძეს მიწერე", "write to გიორგი ბერიძე first", ["გიორგი", "ბერიძე"]),
    "lower-case-latin": ("email ottoline about the rent", "write to ottoline first",
                         ["ottoline"]),
    "inflected-cyrillic": ("send the lease to петрова", "write to Петровой first",
                           ["петров", "netpob"]),
    "inflected-cyrillic-first-name": ("напиши анне про аренду", "ask Анна first", ["анн"]),
    "all-cyrillic-look-alikes": ("отправь сестре", "write to сестре first", ["сестр", "cectp"]),
    "lower-case-surname": ("cc wunderlich on it", "always cc wunderlich", ["wunderlich"]),
    "german-phone": ("ruf an: null eins sieben zwei drei vier fünf sechs",
                     "call null eins sieben zwei drei vier fünf sechs",
                     ["eins sieben", "zwei drei", "fünf sechs"]),
    "spanish-phone": ("llama al seis cero cinco uno dos tres cuatro",
                      "call seis cero cinco uno dos tres cuatro",
                      ["seis cero", "dos tres", "cuatro"]),
    "french-phone": ("appelle le zéro six un deux trois quatre cinq",
                     "call zéro six un deux trois quatre cinq",
                     ["zero six", "deux trois", "quatre cinq"]),
    "chinese-numerals": ("电话一三八一二三四五六七八", "call 一三八一二三四五六七八",
                         ["一三八", "五六七八"]),
    "japanese-numerals": ("電話は〇九〇の一二三四の五六七八", "call 〇九〇 一二三四 五六七八",
                          ["〇九〇", "一二三四", "五六七八"]),
    "uk-postcode": ("post it to SW1A 2AA", "post it to SW1A 2AA", ["2aa", "sw1a"]),
    "canadian-postcode": ("mail it to K1A 0B1", "mail it to K1A 0B1", ["0b1", "k1a"]),
    "what3words": ("meet me at ///filled.count.soap", "meet at ///filled.count.soap",
                   ["filled.count.soap"]),
    "what3words-bare": ("the door is at filled.count.soap", "go to filled.count.soap",
                        ["filled.count.soap"]),
}  # fmt: skip


@pytest.fixture
def reader(charlie):
    """Another person's agent of the type: everything it can read of the type's skills."""
    kind = AgentType.objects.create(name=TYPE)
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
        return f"{found}\n{recalled}\n{prompt}"

    return kind, read


def _readable(text: str, secret: str) -> bool:
    seen = re.sub(r"\s+", " ", normalise(text).lower())
    return normalise(secret).lower() in seen


@pytest.mark.parametrize(("turn", "written", "secrets"), LEAKS.values(), ids=LEAKS.keys())
def test_no_personal_word_reaches_another_person(
    fake_llm, reader, alice, django_user_model, turn, written, secrets
):
    kind, read = reader
    token, _ = token_create(user=alice, name="phone", agent_name="mail")
    Agent.objects.filter(pk=token.agent_id).update(agent_type=kind)
    agent = Agent.objects.get(pk=token.agent_id)
    said = turn_append(user=alice, session_id="s", role="user", content=turn, agent=agent)
    tool_call_record(user=alice, tool_name="GMAIL_SEND_EMAIL", session_id="s", agent=agent,
                     args={"to": "x", "body": "y"})  # fmt: skip
    skill = {"trigger": TRIGGER, "procedure": f"Look up the contact, then {written}.",
             "gotchas": written, "tools_used": ["GMAIL_SEND_EMAIL"]}  # fmt: skip
    fake_llm.then(f.answer({"skills": [skill]}))

    assert learn_skills(said.session_id)["proposed"] == 1
    stored = Skill.objects.get()
    assert stored.scrubbed > 0
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    skill_review(skill_id=stored.pk, reviewer=staff, approve=True)
    shown = read(TRIGGER)
    for secret in secrets:
        assert not _readable(shown, secret), (secret, shown)
        assert not _readable(stored.procedure + stored.gotchas, secret), stored.procedure
    assert "GMAIL_SEND_EMAIL" in stored.procedure + str(stored.tools_used)


def test_general_words_the_types_tools_and_their_parameters_stay():
    tools = words(["GMAIL_SEND_EMAIL", "recipient_list", "cc_addresses"])
    scrubber = Scrubber(terms=Terms(), shared={"mail_agent"}, tools=tools)
    text = ("Search the newsletters first, then use GMAIL_SEND_EMAIL with recipient_list; "
            "check the 2nd draft before sending.")  # fmt: skip
    assert scrubber.text(text) == text
    assert scrubber.replaced == 0


def test_a_word_enough_people_taught_the_type_stays_and_one_persons_word_does_not(
    alice, bob, charlie, settings
):
    settings.GAIA_SKILL_WORD_PEOPLE = 3
    kind = AgentType.objects.create(name=TYPE)
    for person in (alice, bob):
        skill_words_record(owner_id=person.pk, agent_type=kind, words_taught={"zendesk"})
    skill_words_record(owner_id=alice.pk, agent_type=kind, words_taught={"zendesk"})  # again
    text = "open the ticket in zendesk"
    assert Scrubber(terms=Terms(), shared=set(), taught=taught_words(kind)).text(text) == (
        "open the ticket in <name>"
    )
    skill_words_record(owner_id=charlie.pk, agent_type=kind, words_taught={"zendesk"})
    assert Scrubber(terms=Terms(), shared=set(), taught=taught_words(kind)).text(text) == text
    assert "zendesk" not in str(list(SkillWord.objects.values_list("digest", flat=True)))


def test_the_block_list_still_catches_a_name_that_is_also_a_common_word():
    scrubber = Scrubber(terms=Terms(strong={"rose"}), shared=set())
    assert scrubber.text("Rose: send it to Rose, then file the roses") == (
        "<name>: send it to <name>, then file the roses"
    )
    # Written as the word, it is the word (tests/skills/test_common_words.py).
    assert scrubber.text("a rose garden") == "a rose garden"
    assert Scrubber(terms=Terms(), shared=set()).text("then ask Will") == "then ask <name>"
