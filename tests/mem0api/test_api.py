"""mem0's platform API at /mem0/, through the Django test client: each endpoint's shape,
and that one app's token never reaches another app's people or memories."""

import pytest

from accounts.people import PersonNotFound, person_create, person_get
from conversations.models import Session, Turn
from memory.models import KnowledgeItem
from tests.mem0api.conftest import add

SEARCH = "/mem0/v3/memories/search/"
LIST = "/mem0/v3/memories/"


@pytest.mark.cross_user("api-mem0-ping")
def test_it_answers_ping_with_the_apps_names_and_refuses_other_keys(tutor, shop, alice_api):
    answer = tutor.get("/mem0/v1/ping/")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ok",
        "org_id": "tutor-site",
        "project_id": "tutor-site",
        "user_email": None,
    }
    assert shop.get("/mem0/v1/ping/").json()["org_id"] == "shop-bot"
    person_token = alice_api.get("/mem0/v1/ping/")  # a person's own token is no mem0 key
    assert person_token.status_code == 401
    assert "app token" in person_token.json()["detail"]
    shop.credentials(HTTP_AUTHORIZATION="Token gaia_app_not-a-real-one")
    assert shop.get("/mem0/v1/ping/").status_code == 401


@pytest.mark.cross_user("api-mem0-add", "api-mem0-list")
def test_it_stores_messages_as_given_and_lists_them_for_that_person_only(tutor, shop):
    stored = add(
        tutor,
        "maria",
        "Maria studies organic chemistry in Porto",
        "Maria prefers lessons in the evening",
        run_id="lesson-1",
        agent_id="chem-tutor",
        metadata={"course": "chem-101"},
    )
    assert [m["event"] for m in stored] == ["ADD", "ADD"]
    assert all(m["id"].isdigit() and m["run_id"] == "lesson-1" for m in stored)
    again = add(tutor, "maria", "Maria studies organic chemistry in Porto", run_id="lesson-1")
    assert again[0]["id"] == stored[0]["id"] and again[0]["event"] == "UPDATE"

    listed = tutor.post(LIST, {"filters": {"user_id": "maria"}}, format="json").json()
    assert listed["count"] == 2 and listed["next"] is None
    first = next(m for m in listed["results"] if m["id"] == stored[0]["id"])
    assert first["memory"] == "Maria studies organic chemistry in Porto"
    assert first["user_id"] == "maria" and first["agent_id"] == "chem-tutor"
    assert first["run_id"] == first["session_id"] == "lesson-1"
    assert first["metadata"] == {"course": "chem-101"}
    # The written messages are the person's conversation, not waiting for extraction.
    person = person_get(app=tutor.app, external_id="maria")
    turns = Turn.objects.for_user(person.user)
    assert turns.count() == 3 and not turns.filter(extraction_status="pending").exists()

    # The shop's token: the same external id is another (unknown) person.
    nothing = shop.post(LIST, {"filters": {"user_id": "maria"}}, format="json").json()
    assert nothing["count"] == 0 and nothing["results"] == []


def test_every_write_records_the_apps_acting_token(tutor):
    [made] = add(tutor, "maria", "Maria plays the cello")
    item = KnowledgeItem.objects.get(pk=int(made["id"]))
    assert item.token.app_token_id == tutor.app_token.pk
    assert item.token.name == "tutor-site/prod" and item.agent.name == "tutor-site"


def test_add_with_inference_logs_turns_and_answers_the_queued_shape(tutor, settings):
    settings.GAIA_LLM_URL = ""
    body = {
        "messages": [
            {"role": "user", "content": "I am moving to Lisbon next month for a new job"},
            {"role": "assistant", "content": "Congratulations on the new job!"},
        ],
        "user_id": "maria",
        "run_id": "chat-7",
    }
    answer = tutor.post("/mem0/v3/memories/add/", body, format="json").json()
    assert answer["status"] == "PENDING" and answer["run_id"] == "chat-7"
    assert "no LLM is configured" in answer["message"]
    assert len(answer["turn_ids"]) == 2 and len(answer["pending_turn_ids"]) == 1
    person = person_get(app=tutor.app, external_id="maria")
    assert not KnowledgeItem.objects.for_user(person.user).exists()


def test_add_refuses_what_it_cannot_honour(tutor):
    no_user = {"messages": [{"role": "user", "content": "hello there"}], "infer": False}
    answer = tutor.post("/mem0/v3/memories/add/", no_user, format="json")
    assert answer.status_code == 400 and "user_id" in answer.json()["detail"]
    graph = {**no_user, "user_id": "maria", "enable_graph": True, "includes": "food"}
    answer = tutor.post("/mem0/v3/memories/add/", graph, format="json")
    assert answer.status_code == 501
    assert answer.json()["detail"] == "add: enable_graph, includes not supported by this server."
    assert not KnowledgeItem.objects.exists()


@pytest.mark.cross_user("api-mem0-search-v2", "api-mem0-list-v2")
def test_older_sdks_v2_search_and_listing_answer_bare_lists_of_one_apps_memories(tutor, shop):
    add(tutor, "maria", "Maria studies organic chemistry in Porto")
    query = {"query": "what does maria study", "filters": {"OR": [{"user_id": "maria"}]}}
    [hit] = tutor.post("/mem0/v2/memories/search/", query, format="json").json()
    assert hit["memory"] == "Maria studies organic chemistry in Porto" and "score" in hit
    [listed] = tutor.post("/mem0/v2/memories/", {"filters": {"user_id": "maria"}},
                          format="json").json()  # fmt: skip
    assert listed["id"] == hit["id"]
    assert shop.post("/mem0/v2/memories/search/", query, format="json").json() == []
    assert shop.post("/mem0/v2/memories/", {"filters": {"user_id": "maria"}},
                     format="json").json() == []  # fmt: skip


@pytest.mark.cross_user("api-mem0-search")
def test_it_searches_one_persons_memory_with_filters_and_top_k(tutor, shop):
    add(tutor, "maria", "Maria studies organic chemistry in Porto", agent_id="chem-tutor")
    add(tutor, "maria", "Maria's sister studies law in Coimbra", run_id="family")
    add(tutor, "joao", "Joao studies medicine in Braga")
    query = {"query": "what does maria study", "filters": {"user_id": "maria"}, "top_k": 1}
    [hit] = tutor.post(SEARCH, query, format="json").json()["results"]
    assert hit["user_id"] == "maria" and 0 < hit["score"] <= 1
    assert hit["memory"] == "Maria studies organic chemistry in Porto"

    by_run = {"query": "who studies", "filters": {"AND": [{"user_id": "maria"},
                                                          {"run_id": "family"}]}}  # fmt: skip
    hits = tutor.post(SEARCH, {**by_run, "threshold": 0}, format="json").json()["results"]
    assert [h["memory"] for h in hits] == ["Maria's sister studies law in Coimbra"]

    both = {"query": "studies", "threshold": 0,
            "filters": {"OR": [{"user_id": "maria"}, {"user_id": "joao"}]}}  # fmt: skip
    people = {h["user_id"] for h in tutor.post(SEARCH, both, format="json").json()["results"]}
    assert people == {"maria", "joao"}

    assert tutor.post(SEARCH, {"query": "studies", "filters": {"user_id": "nobody"}},
                      format="json").json() == {"results": []}  # fmt: skip
    foreign = shop.post(SEARCH, {**both, "filters": {"user_id": "maria"}}, format="json")
    assert foreign.json() == {"results": []}


def test_search_needs_an_entity_and_names_filters_it_does_not_offer(tutor):
    answer = tutor.post(SEARCH, {"query": "tea", "filters": {}}, format="json")
    assert answer.status_code == 400 and "user_id" in answer.json()["detail"]
    answer = tutor.post(
        SEARCH, {"query": "tea", "filters": {"AND": [{"user_id": "a"}, {"text": {
            "contains": "food"}}]}}, format="json")  # fmt: skip
    assert answer.status_code == 501 and "text is not supported" in answer.json()["detail"]


@pytest.mark.cross_user("api-mem0-memory", "api-mem0-history")
def test_get_update_history_and_delete_by_id_stay_inside_the_app(tutor, shop):
    [made] = add(tutor, "maria", "Maria studies organic chemistry in Porto")
    url = f"/mem0/v1/memories/{made['id']}/"
    for method in ("get", "put", "delete"):
        answer = getattr(shop, method)(url, {"text": "stolen"}, format="json")
        assert answer.status_code == 404, method
    assert shop.get(url + "history/").status_code == 404
    assert tutor.get("/mem0/v1/memories/999999/").status_code == 404

    assert tutor.get(url).json()["memory"] == "Maria studies organic chemistry in Porto"
    changed = tutor.put(url, {"text": "Maria studies biochemistry in Porto",
                              "metadata": {"level": 2}}, format="json").json()  # fmt: skip
    assert changed["memory"] == "Maria studies biochemistry in Porto"
    assert changed["metadata"] == {"level": 2}
    history = tutor.get(url + "history/").json()
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == "Maria studies organic chemistry in Porto"
    assert history[1]["new_memory"] == "Maria studies biochemistry in Porto"
    assert history[1]["changed_by"]["token"] == "tutor-site/prod"

    assert tutor.delete(url).json() == {"message": "Memory deleted successfully!"}
    assert tutor.get(url).status_code == 404
    assert not KnowledgeItem.objects.filter(pk=int(made["id"])).exists()


@pytest.mark.cross_user("api-mem0-delete-all")
def test_delete_all_erases_one_persons_memories_in_one_app(tutor, shop):
    add(tutor, "maria", "Maria plays the cello", "Maria likes jazz")
    add(tutor, "joao", "Joao plays the drums")
    add(shop, "maria", "Maria ordered a blue kettle")
    assert shop.delete("/mem0/v1/memories/?user_id=maria").json()["deleted"] == 1
    assert tutor.post(LIST, {"filters": {"user_id": "maria"}}, format="json").json()["count"] == 2
    assert tutor.delete("/mem0/v1/memories/?user_id=maria").json()["deleted"] == 2
    assert tutor.post(LIST, {"filters": {"user_id": "joao"}}, format="json").json()["count"] == 1
    assert tutor.delete("/mem0/v1/memories/").status_code == 400


@pytest.mark.cross_user("api-mem0-batch")
def test_batch_update_and_delete_refuse_ids_of_another_app(tutor, shop):
    a, b = add(tutor, "maria", "Maria plays the cello", "Maria likes jazz")
    [theirs] = add(shop, "maria", "Maria ordered a blue kettle")
    mixed = {"memories": [{"memory_id": a["id"], "text": "x"},
                          {"memory_id": theirs["id"], "text": "x"}]}  # fmt: skip
    assert tutor.put("/mem0/v1/batch/", mixed, format="json").status_code == 404
    assert KnowledgeItem.objects.get(pk=int(a["id"])).content == "Maria plays the cello"
    update = {"memories": [{"memory_id": a["id"], "text": "Maria plays the viola"},
                           {"memory_id": b["id"], "metadata": {"genre": "bebop"}}]}  # fmt: skip
    answer = tutor.put("/mem0/v1/batch/", update, format="json")
    assert answer.json() == {"message": "Successfully updated 2 memories"}
    assert KnowledgeItem.objects.get(pk=int(b["id"])).metadata == {"genre": "bebop"}
    gone = {"memories": [{"memory_id": a["id"]}, {"memory_id": b["id"]}]}
    assert shop.delete("/mem0/v1/batch/", gone, format="json").status_code == 404
    answer = tutor.delete("/mem0/v1/batch/", gone, format="json")
    assert answer.json() == {"message": "Successfully deleted 2 memories"}
    assert KnowledgeItem.objects.filter(pk=int(theirs["id"])).exists()


@pytest.mark.cross_user("api-mem0-entities", "api-mem0-entity")
def test_entities_are_the_apps_people_agents_and_runs_and_deleting_a_user_erases_them(tutor, shop):
    add(tutor, "maria", "Maria plays the cello", agent_id="music-tutor", run_id="lesson-3")
    add(shop, "pedro", "Pedro ordered a kettle")
    listed = tutor.get("/mem0/v1/entities/").json()
    assert {(e["type"], e["name"]) for e in listed["results"]} == {
        ("user", "maria"), ("agent", "music-tutor"), ("run", "lesson-3")}  # fmt: skip
    assert listed["total_users"] == 1
    assert shop.delete("/mem0/v2/entities/user/maria/").status_code == 404
    person = person_get(app=tutor.app, external_id="maria")
    assert tutor.delete("/mem0/v2/entities/agent/music-tutor/").status_code == 200
    assert not KnowledgeItem.objects.for_user(person.user).exists()
    assert tutor.delete("/mem0/v2/entities/user/maria/").status_code == 200
    assert not Turn.objects.filter(owner_id=person.user_id).exists()
    assert tutor.get("/mem0/v1/entities/").json()["total_users"] == 0
    assert shop.get("/mem0/v1/entities/").json()["total_users"] == 1
    assert tutor.delete("/mem0/v2/entities/app/x/").status_code == 501


@pytest.mark.cross_user("api-mem0-unsupported")
def test_what_is_not_supported_answers_501_naming_it(tutor, shop):
    for method, path, named in [
        ("post", "/mem0/v1/feedback/", "feedback"),
        ("post", "/mem0/v1/exports/", "exports shaped by a schema"),
        ("get", "/mem0/api/v1/webhooks/projects/tutor-site/", "mem0's webhooks"),
        ("patch", "/mem0/api/v1/orgs/organizations/tutor-site/projects/tutor-site/",
         "organizations and projects"),
    ]:  # fmt: skip
        answer = getattr(tutor, method)(path, {}, format="json")
        assert answer.status_code == 501 and named in answer.json()["detail"], path
    shop.credentials()
    assert shop.post("/mem0/v1/feedback/", {}, format="json").status_code == 401


def test_a_path_of_ours_without_its_slash_is_redirected_keeping_the_method(tutor):
    answer = tutor.post("/mem0/v3/memories/search?x=1", {"query": "q"}, format="json")
    assert answer.status_code == 308
    assert answer["Location"] == "/mem0/v3/memories/search/?x=1"
    assert tutor.post("/mem0/v1/feedback", {}, format="json").status_code == 501


def test_deleting_a_run_erases_that_conversation_and_what_was_learned_in_it(tutor, shop):
    add(tutor, "maria", "Maria plays the cello", run_id="lesson-3")
    [kept] = add(tutor, "maria", "Maria likes jazz", run_id="lesson-4")
    add(shop, "maria", "Maria ordered a cello stand", run_id="lesson-3")
    person = person_get(app=tutor.app, external_id="maria")
    assert shop.delete("/mem0/v2/entities/run/lesson-3/").json()["deleted_memories"] == 1

    answer = tutor.delete("/mem0/v2/entities/run/lesson-3/")
    assert answer.json() == {"message": "Entity deleted successfully.", "deleted_memories": 1}
    assert not Session.objects.for_user(person.user).filter(session_id="lesson-3").exists()
    assert [t.content for t in Turn.objects.for_user(person.user)] == ["Maria likes jazz"]
    assert list(KnowledgeItem.objects.for_user(person.user).values_list("pk", flat=True)) == [
        int(kept["id"])
    ]
    runs = {e["name"] for e in tutor.get("/mem0/v1/entities/").json()["results"]}
    assert "lesson-3" not in runs and "lesson-4" in runs
    assert tutor.delete("/mem0/v2/entities/run/lesson-3/").status_code == 200


def test_a_disabled_persons_memory_is_out_of_reach(tutor):
    [made] = add(tutor, "maria", "Maria plays the cello")
    person = person_get(app=tutor.app, external_id="maria")
    person.user.is_active = False
    person.user.save()
    assert tutor.get(f"/mem0/v1/memories/{made['id']}/").status_code == 404
    found = tutor.post(LIST, {"filters": {"user_id": "maria"}}, format="json").json()
    assert found["count"] == 0
    body = {"messages": [{"role": "user", "content": "hi"}], "user_id": "maria", "infer": False}
    answer = tutor.post("/mem0/v3/memories/add/", body, format="json")
    assert answer.status_code == 403 and "disabled" in answer.json()["detail"]


def test_one_search_covers_at_most_fifty_people(tutor):
    for number in range(51):
        person_create(app=tutor.app, external_id=f"learner-{number}")
    every = {"query": "cello", "filters": {"user_id": "*"}}
    answer = tutor.post(SEARCH, every, format="json")
    assert answer.status_code == 400 and "at most 50 people" in answer.json()["detail"]
    one = {"query": "cello", "filters": {"user_id": "learner-7"}}
    assert tutor.post(SEARCH, one, format="json").json() == {"results": []}


@pytest.mark.cross_user("api-mem0-entity-v1")
def test_the_v1_entity_path_erases_as_the_v2_one_inside_the_app(tutor, shop):
    add(tutor, "maria", "Maria plays the cello")
    add(shop, "maria", "Maria ordered a cello stand")
    assert shop.delete("/mem0/v1/entities/user/nobody/").status_code == 404
    assert tutor.delete("/mem0/v1/entities/user/maria/").status_code == 200
    with pytest.raises(PersonNotFound):
        person_get(app=tutor.app, external_id="maria")
    shops = person_get(app=shop.app, external_id="maria")
    assert [i.content for i in KnowledgeItem.objects.for_user(shops.user)] == [
        "Maria ordered a cello stand"
    ]
