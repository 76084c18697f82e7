"""The script of docs/apps.md, step by step through the test client: two apps, two people,
writes and recalls for each, a person token issued and revoked, one person erased,
nothing crossed, and the other app refused on these people."""

from io import StringIO
from pathlib import Path

from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.models import AppPerson
from memory.models import KnowledgeItem

ANA, BEN = "ana@example.com", "Ben Ortiz"
ANA_PATH, BEN_PATH = "ana%40example.com", "Ben%20Ortiz"


def create_app(*args: str) -> APIClient:
    out = StringIO()
    call_command("create_app", *args, stdout=out, stderr=StringIO())
    client = APIClient()
    client.default_format = "json"
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {out.getvalue().strip().splitlines()[-1]}")
    return client


def contents(answer) -> list[str]:
    assert answer.status_code == 200, answer.content
    return [hit["content"] for hit in answer.json()["results"]]


def search(client: APIClient, user_id: str, query: str):
    body = {"user_id": user_id, "query": query}
    return client.post("/api/v1/memories/search/", body, format="json")


def test_the_documented_script_runs_through_and_nothing_crosses(db):
    # 1. An administrator creates two apps.
    acme = create_app("acme-support", "--token-name", "prod")
    globex = create_app("globex-tutor")
    me = acme.get("/api/v1/app/").json()
    assert (me["name"], me["people"], me["token"]["name"]) == ("acme-support", 0, "prod")

    # 2. acme-support creates two people; creating one again answers the same person.
    made = acme.post("/api/v1/people/", {"user_id": ANA, "metadata": {"plan": "pro"}})
    assert made.status_code == 201
    assert acme.post("/api/v1/people/", {"user_id": BEN}).status_code == 201
    assert acme.post("/api/v1/people/", {"user_id": BEN}).status_code == 200
    assert [p["user_id"] for p in acme.get("/api/v1/people/").json()["results"]] == [ANA, BEN]

    # 3. It writes for each of them.
    writes = {
        ANA: ["Ana is allergic to peanuts", "Ana orders the vegan lunch box on Fridays"],
        BEN: ["Ben is training for the Berlin marathon", "Ben cannot eat shellfish"],
    }
    ids = {}
    for user_id, texts in writes.items():
        for text in texts:
            answer = acme.post("/api/v1/memories/", {"user_id": user_id, "content": text})
            assert answer.status_code == 201, answer.content
            assert answer.json()["agent"] == "acme-support"
            ids[text] = answer.json()["id"]

    # 4. ... and recalls for each: one person's memories never answer for the other.
    assert "Ana is allergic to peanuts" in contents(search(acme, ANA, "peanuts allergy"))
    assert "Ben cannot eat shellfish" in contents(search(acme, BEN, "eat shellfish"))
    for user_id, other in ((ANA, BEN), (BEN, ANA)):
        for query in ("food allergies", "peanuts", "shellfish", "marathon", "lunch box"):
            found = contents(search(acme, user_id, query))
            assert not set(found) & set(writes[other]), (user_id, query, found)
    assert set(contents(acme.get(f"/api/v1/memories/?user_id={BEN_PATH}"))) == set(writes[BEN])

    # 5. History says which app and which app token wrote.
    item = ids["Ana is allergic to peanuts"]
    edit = {"user_id": ANA, "content": "Ana is allergic to peanuts and cashews"}
    assert acme.patch(f"/api/v1/memories/{item}/", edit).status_code == 200
    history = acme.get(f"/api/v1/memories/{item}/history/?user_id={ANA_PATH}").json()["results"]
    assert [(e["agent"], e["token"]) for e in history] == [
        ("acme-support", "acme-support/prod")
    ] * 2

    # 6. A token for Ana's own agent acts only as Ana, until the app revokes it.
    issued = acme.post(f"/api/v1/people/{ANA_PATH}/tokens/", {"name": "ana-phone"}).json()
    ana = APIClient()
    ana.credentials(HTTP_AUTHORIZATION=f"Bearer {issued['secret']}")
    assert set(contents(ana.get("/api/v1/memories/"))) == {
        "Ana is allergic to peanuts and cashews",
        "Ana orders the vegan lunch box on Fridays",
    }
    revoked = acme.delete(f"/api/v1/people/{ANA_PATH}/tokens/{issued['id']}/")
    assert revoked.status_code == 204
    assert ana.get("/api/v1/memories/").status_code == 401

    # 7. Without user_id the app token is no one on memory endpoints.
    assert acme.get("/api/v1/memories/").status_code == 403

    # 8. Another app's token: acme-support's people do not exist for it.
    assert globex.get("/api/v1/people/").json()["count"] == 0
    assert globex.get(f"/api/v1/people/{ANA_PATH}/").status_code == 404
    assert search(globex, ANA, "allergies").status_code == 404
    planted = {"user_id": ANA, "content": "planted"}
    assert globex.post("/api/v1/memories/", planted).status_code == 404
    assert globex.delete(f"/api/v1/people/{ANA_PATH}/").status_code == 404
    stolen = globex.post(f"/api/v1/people/{ANA_PATH}/tokens/", {"name": "stolen"})
    assert stolen.status_code == 404
    assert not KnowledgeItem.objects.filter(content="planted").exists()

    # 9. Erase Ben: his memories and account go; Ana keeps hers.
    erased = acme.delete(f"/api/v1/people/{BEN_PATH}/")
    assert erased.status_code == 200
    assert erased.json()["erased"]["knowledge"] == 2
    assert acme.get(f"/api/v1/people/{BEN_PATH}/").status_code == 404
    assert search(acme, BEN, "marathon").status_code == 404
    assert not KnowledgeItem.objects.filter(content__in=writes[BEN]).exists()
    assert contents(search(acme, ANA, "marathon training")) == []
    assert len(contents(acme.get(f"/api/v1/memories/?user_id={ANA_PATH}"))) == 2
    assert list(AppPerson.objects.values_list("external_id", flat=True)) == [ANA]


def test_the_printed_transcript_shows_what_the_script_answers():
    # docs/apps.md prints a real run; it showed the erase answering 500 once.
    doc = (Path(__file__).resolve().parents[2] / "docs" / "apps.md").read_text()
    transcript = doc.split("Its output, run for real", 1)[1].split("```text\n", 1)[1]
    transcript = transcript.split("```", 1)[0]
    assert " -> 5" not in transcript and "server_error" not in transcript
    assert f"DELETE /people/{BEN_PATH}/ -> 200" in transcript
    assert f"GET /people/{BEN_PATH}/ -> 404" in transcript
