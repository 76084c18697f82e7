"""mem0's v2 filters, dates, v1 paths and an app's export at /mem0/, through the Django
test client: the filters select inside the person's rows before anything is ranked."""

import json
from datetime import UTC, datetime

import pytest

from accounts.people import person_get
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.mem0api.conftest import add

SEARCH = "/mem0/v3/memories/search/"
LIST = "/mem0/v3/memories/"
JAN_15 = int(datetime(2024, 1, 15, 9, tzinfo=UTC).timestamp())
MAR_3 = int(datetime(2024, 3, 3, 18, tzinfo=UTC).timestamp())


@pytest.fixture
def maria(tutor, shop):
    """Maria's memories at the tutor (dated, with metadata and categories), and the same
    texts for a Maria at the shop: no filter of the tutor's may reach those."""
    made = {
        "porto": add(tutor, "maria", "Maria studies organic chemistry in Porto",
                     metadata={"course": "chem-101", "level": 2}, timestamp=JAN_15)[0],
        "evening": add(tutor, "maria", "Maria prefers chemistry lessons in the evening",
                       metadata={"course": "chem-101", "level": 3}, timestamp=MAR_3)[0],
        "violin": add(tutor, "maria", "Maria plays the violin in a chemistry club",
                      metadata={"course": "music", "source": "Email import"})[0],
    }  # fmt: skip
    person = person_get(app=tutor.app, external_id="maria")
    made["tea"] = {"id": str(memory_create(
        user=person.user, content="Maria likes green tea during chemistry revision",
        category="preference").pk)}  # fmt: skip
    for content in ("Maria studies organic chemistry in Porto", "Maria plays the violin"):
        add(shop, "maria", content, metadata={"course": "chem-101", "level": 2})
    return {name: m["id"] for name, m in made.items()}


def listed(client, filters: dict) -> set[str]:
    answer = client.post(LIST, {"filters": filters}, format="json")
    assert answer.status_code == 200, answer.content
    return {m["id"] for m in answer.json()["results"]}


def searched(client, filters: dict, top_k: int = 10) -> list[str]:
    body = {"query": "chemistry", "filters": filters, "threshold": 0, "top_k": top_k}
    answer = client.post(SEARCH, body, format="json")
    assert answer.status_code == 200, answer.content
    return [m["id"] for m in answer.json()["results"]]


def nested(condition: dict, levels: int) -> dict:
    for level in range(levels):
        condition = {"NOT": condition} if level % 2 else {"AND": [condition]}
    return condition


def only(*conditions: dict) -> dict:
    return {"AND": [{"user_id": "maria"}, *conditions]}


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"metadata": {"course": "chem-101"}}, {"porto", "evening"}),
        ({"metadata": {"level": {"gte": 3}}}, {"evening"}),
        ({"metadata": {"course": {"ne": "chem-101"}}}, {"violin", "tea"}),
        ({"metadata": {"course": {"nin": ["music", "chem-101"]}}}, {"tea"}),
        ({"metadata": {"source": {"icontains": "email"}}}, {"violin"}),
        ({"metadata": {"source": "*"}}, {"violin"}),
        (
            {"AND": [{"created_at": {"gte": "2024-01-01"}}, {"created_at": {"lt": "2024-02-01"}}]},
            {"porto"},
        ),
        ({"created_at": {"lte": "2024-12-31"}}, {"porto", "evening"}),
        ({"timestamp": "2024-03-03"}, {"evening"}),
        ({"categories": {"in": ["preference"]}}, {"tea"}),
        ({"categories": {"contains": "FAC"}}, {"porto", "evening", "violin"}),
        ({"NOT": {"categories": {"in": ["preference"]}}}, {"porto", "evening", "violin"}),
        (
            {"NOT": [{"metadata": {"course": "music"}}, {"categories": {"in": ["preference"]}}]},
            {"porto", "evening"},
        ),
        (
            {"OR": [{"metadata": {"level": 3}}, {"keywords": {"contains": "violin"}}]},
            {"evening", "violin"},
        ),
        ({"memory_ids": ["999999"]}, set()),
    ],
)
def test_filters_pick_exactly_the_persons_matching_memories(tutor, shop, maria, condition,
                                                            expected):  # fmt: skip
    want = {maria[name] for name in expected}
    assert listed(tutor, only(condition)) == want
    assert set(searched(tutor, only(condition))) == want
    assert listed(shop, only(condition)) & set(maria.values()) == set()


def test_top_k_is_filled_from_the_matching_rows(tutor):
    for number in range(30):
        add(tutor, "ana", f"Ana practises chemistry problem set {number} at home")
    [wanted] = add(tutor, "ana", "Ana once mentioned a chemistry teacher",
                   metadata={"kind": "rare"})  # fmt: skip
    filters = {"AND": [{"user_id": "ana"}, {"metadata": {"kind": "rare"}}]}
    assert searched(tutor, filters, top_k=1) == [wanted["id"]]


def test_a_timestamp_dates_the_memory_and_a_repeat_keeps_its_date(tutor, maria):
    got = tutor.get(f"/mem0/v1/memories/{maria['porto']}/").json()
    assert got["created_at"].startswith("2024-01-15T09:00:00")
    assert got["updated_at"].startswith("2024-01-15T09:00:00")
    [again] = add(tutor, "maria", "Maria studies organic chemistry in Porto", timestamp=MAR_3)
    assert again["event"] == "UPDATE" and again["id"] == maria["porto"]
    item = KnowledgeItem.objects.get(pk=int(maria["porto"]))
    assert item.created_at == datetime(2024, 1, 15, 9, tzinfo=UTC)

    body = {"messages": [{"role": "user", "content": "Maria moves to Lisbon"}],
            "user_id": "maria", "infer": False}  # fmt: skip
    for bad in (-1, 10**13, int(datetime(2999, 1, 1, tzinfo=UTC).timestamp())):
        answer = tutor.post("/mem0/v3/memories/add/", {**body, "timestamp": bad}, format="json")
        assert answer.status_code == 400 and "timestamp" in answer.json()["detail"], bad


def test_older_calls_options_are_read_as_their_filters(tutor, maria):
    body = {"filters": {"user_id": "maria"}, "start_date": "2024-01-01",
            "end_date": "2024-02-01", "page": 1}  # fmt: skip
    found = tutor.post(LIST, body, format="json").json()["results"]
    assert [m["id"] for m in found] == [maria["porto"]]
    body = {"query": "tea", "filters": {"user_id": "maria"}, "categories": ["preference"],
            "keyword_search": True, "threshold": 0}  # fmt: skip
    found = tutor.post(SEARCH, body, format="json").json()["results"]
    assert [m["id"] for m in found] == [maria["tea"]]


@pytest.mark.parametrize(
    ("filters", "status", "named"),
    [
        (only({"bogus_key": "z"}), 400, "'bogus_key' is not a filter key"),
        (only({"metadata": {"level": {"between": [1, 2]}}}), 400, "metadata.level"),
        (only({"created_at": {"gte": "last week"}}), 400, "created_at"),
        (only({"NOT": {"user_id": "joao"}}), 501, "NOT over user_id"),
        (only({"user_id": {"ne": "joao"}}), 501, "ne"),
        (only({"app_id": "x"}), 501, "app_id"),
        ({"metadata": {"course": "chem-101"}}, 400, "user_id"),
        (only(nested({"metadata": {"level": 2}}, 9)), 400, "at most 8 deep"),
    ],
)
def test_a_filter_it_cannot_read_is_named(tutor, maria, filters, status, named):
    for url, body in ((LIST, {}), (SEARCH, {"query": "chemistry"})):
        answer = tutor.post(url, {**body, "filters": filters}, format="json")
        assert answer.status_code == status, answer.content
        assert named in answer.json()["detail"]


def test_the_v1_calls_of_older_sdks_answer_501_naming_the_v2_call(tutor):
    for method, path, named in [
        ("get", "/mem0/v1/memories/?user_id=maria", "POST /mem0/v3/memories/ with filters"),
        ("post", "/mem0/v1/memories/", "POST /mem0/v3/memories/add/"),
        ("post", "/mem0/v1/memories/search/", "POST /mem0/v3/memories/search/"),
    ]:
        answer = getattr(tutor, method)(path, {"query": "x", "user_id": "maria"}, format="json")
        assert answer.status_code == 501, path
        assert named in answer.json()["detail"], path


@pytest.mark.cross_user("api-mem0-export", "api-mem0-export-create")
def test_an_app_exports_one_person_and_never_another_apps(tutor, shop, maria):
    answer = tutor.post("/mem0/v1/exports/get/", {"filters": {"user_id": "maria"}},
                        format="json")  # fmt: skip
    assert answer.status_code == 200
    exported = json.loads(b"".join(answer.streaming_content))
    assert exported["user_id"] == "maria" and exported["format"] == "gaia-memory-export"
    records = exported["records"]
    assert records[0]["type"] == "header" and records[-1]["type"] == "end"
    contents = {r["content"] for r in records if r["type"] == "knowledge"}
    assert contents == {
        "Maria studies organic chemistry in Porto",
        "Maria prefers chemistry lessons in the evening",
        "Maria plays the violin in a chemistry club",
        "Maria likes green tea during chemistry revision",
    }
    other = shop.post("/mem0/v1/exports/get/", {"filters": {"user_id": "maria"}}, format="json")
    shop_contents = {r["content"] for r in json.loads(b"".join(other.streaming_content))[
        "records"] if r["type"] == "knowledge"}  # fmt: skip
    assert shop_contents == {"Maria studies organic chemistry in Porto", "Maria plays the violin"}
    nobody = tutor.post("/mem0/v1/exports/get/", {"filters": {"user_id": "nobody"}}, format="json")
    assert nobody.status_code == 404
    two = {"filters": {"OR": [{"user_id": "maria"}, {"user_id": "joao"}]}}
    assert tutor.post("/mem0/v1/exports/get/", two, format="json").status_code == 400
    made = shop.post("/mem0/v1/exports/", {"schema": "{}", "user_id": "maria"}, format="json")
    assert made.status_code == 501 and "get_memory_export" in made.json()["detail"]


@pytest.mark.parametrize("path", ["list", "recall"])
def test_our_own_recall_and_list_take_the_same_conditions(alice_api, bob_api, path):
    for api, who in ((alice_api, "Alice"), (bob_api, "Bob")):
        for content, metadata in (
            (f"{who} renews the car insurance every March", {"kind": "bill", "amount": 420}),
            (f"{who} pays the flat insurance monthly", {"kind": "bill", "amount": 35}),
            (f"{who} keeps the insurance papers in the blue folder", {}),
        ):
            made = api.post("/api/v1/memories/", {"content": content, "metadata": metadata},
                            format="json")  # fmt: skip
            assert made.status_code == 201, made.content
    where = {"AND": [{"metadata": {"kind": "bill"}},
                     {"NOT": {"metadata": {"amount": {"lt": 100}}}}]}  # fmt: skip
    if path == "list":
        answer = alice_api.get("/api/v1/memories/", {"where": json.dumps(where)})
        rows = answer.json()["results"]
    else:
        body = {"query": "insurance", "where": where, "min_relevance": 0, "top_k": 1}
        answer = alice_api.post("/api/v1/memories/search/", body, format="json")
        rows = [hit for hit in answer.json()["results"]]
    assert answer.status_code == 200, answer.content
    assert [r["content"] for r in rows] == ["Alice renews the car insurance every March"]

    bad = {"metadata": {"amount": {"between": [1, 2]}}}
    if path == "list":
        answer = alice_api.get("/api/v1/memories/", {"where": json.dumps(bad)})
    else:
        answer = alice_api.post("/api/v1/memories/search/", {"query": "insurance", "where": bad},
                                format="json")  # fmt: skip
    assert answer.status_code == 400 and "metadata.amount" in json.dumps(answer.json())
