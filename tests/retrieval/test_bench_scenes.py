"""The accounts' questions with a scene before them (`bench.scenes`), as memory_eval asks
them: each scene file fits its account, and both ways keep the question's answers."""

import json
from pathlib import Path

import pytest

from bench.account import read_account
from bench.scenario import NotAnAccount
from bench.scenes import read_scenes, with_scenes
from retrieval.asked import asked_clause

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


@pytest.mark.parametrize("path", sorted(DATA.glob("scenes-*.json")), ids=lambda p: p.stem)
def test_each_scene_file_fits_its_account_and_keeps_the_answers(path):
    scenes = read_scenes(path)
    account = DATA / scenes["account"]
    found = with_scenes(scenes, [(account, read_account(account))])
    assert found is not None
    _, plain, staged = found
    assert len(plain["questions"]) == len(staged["questions"]) == len(scenes["scenes"])
    for asked, told in zip(plain["questions"], staged["questions"], strict=True):
        assert told["question"] == scenes["scenes"][asked["question"]]
        assert told["answers"] == asked["answers"]
    assert not staged["nonsense_questions"] and not staged.get("broad_questions")


def test_most_scenes_are_read_as_a_scene_before_the_question():
    told = [
        text for path in DATA.glob("scenes-*.json") for text in read_scenes(path)["scenes"].values()
    ]
    read = [t for t in told if asked_clause(t)]
    assert len(told) >= 50 and len(read) >= 0.8 * len(told)


def test_a_scene_of_a_question_the_account_does_not_ask_is_refused(tmp_path):
    account = DATA / "account-maya.json"
    path = tmp_path / "scenes-maya.json"
    path.write_text(json.dumps({"account": account.name, "scenes": {"Who am I?": "Hi, who am I?"}}))
    with pytest.raises(NotAnAccount, match="not in account-maya.json"):
        with_scenes(read_scenes(path), [(account, read_account(account))])
    path.write_text(json.dumps({"account": account.name, "scenes": ["not", "an", "object"]}))
    with pytest.raises(NotAnAccount):
        read_scenes(path)
