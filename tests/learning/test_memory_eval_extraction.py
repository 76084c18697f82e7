"""`memory_eval extraction` against the stand-in model (tests/learning/stand_in.py)."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.learning import fake_llm as f
from tests.learning import stand_in

pytestmark = pytest.mark.django_db
CONVERSATION = {
    "speaker_a": "Ana",
    "speaker_b": "Ben",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel last week."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started learning the cello."},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "Do you like it so far, the cello?"},
        {"speaker": "Ben", "dia_id": "D1:4", "text": "ok"},
    ],
    "session_1_observation": {
        "Ana": [["Ana adopted a grey cat named Pixel.", "D1:1"]],
        "Ben": [["Ben started learning the cello.", "D1:2"]],
    },
    "session_2_date_time": "10:00 am on 9 June, 2023",
    "session_2": [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "My cello teacher is very strict with me."},
        {"speaker": "Ana", "dia_id": "D2:2", "text": "Pixel knocked over all my plants again."},
    ],
    "session_2_observation": {
        "Ben": [["Ben's cello teacher is strict.", "D2:1"]],
        "Ana": [
            ["Ana's cat Pixel knocked over her plants.", "D2:2"],
            ["Ana moved to Madrid in 2022.", "D2:2"],
        ],
    },
}


def rows(out: str) -> dict[str, list[str]]:
    return {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
        for line in out.splitlines()
        if line.startswith("| ") and not line.startswith("| file")
    }


def test_it_measures_extraction_against_the_gold_observations(
    fake_llm, tmp_path, capsys, django_user_model
):
    fake_llm.then(stand_in.extraction_replies())
    (tmp_path / "tiny.json").write_text(json.dumps(CONVERSATION))
    call_command("memory_eval", "extraction", str(tmp_path / "tiny.json"))
    out = capsys.readouterr().out
    table = rows(out)
    sessions, turns, facts, gold, precision, recall, per_turn, seconds = table["overall"]
    assert (sessions, turns, gold) == ("2", "5", "5")  # "ok" is too short to extract
    assert facts == "4"  # four statements remembered, the question skipped
    assert float(precision) == 1.0 and float(recall) == 0.8  # Madrid was never said
    assert float(per_turn) == 1.0 and float(seconds) >= 0
    assert table["tiny.json"] == table["overall"]
    assert "turns: 5 done" in out and "failures by reason: none" in out
    assert len(fake_llm.requests) == 5  # every shape read at once: no repair needed
    assert not django_user_model.objects.filter(username__startswith="eval-").exists()


def test_it_reports_failures_by_reason(fake_llm, tmp_path, capsys):
    fake_llm.then(f.content("I'd rather not answer in JSON."))
    (tmp_path / "tiny.json").write_text(json.dumps(CONVERSATION))
    call_command("memory_eval", "extraction", str(tmp_path), "--sessions", "1")
    out = capsys.readouterr().out
    assert rows(out)["overall"][:4] == ["1", "3", "0", "2"]
    assert "turns: 3 failed" in out and "failures by reason: invalid_json 3" in out


def test_it_needs_a_configured_model(no_llm, tmp_path):
    (tmp_path / "tiny.json").write_text(json.dumps(CONVERSATION))
    with pytest.raises(CommandError, match="No LLM is configured"):
        call_command("memory_eval", "extraction", str(tmp_path / "tiny.json"))


def test_it_refuses_a_missing_file(fake_llm, tmp_path):
    with pytest.raises(CommandError, match="No LoCoMo conversation"):
        call_command("memory_eval", "extraction", str(tmp_path / "nope.json"))
