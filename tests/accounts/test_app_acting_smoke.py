from rest_framework.test import APIClient

from accounts.people import app_create, app_token_create, person_create


def test_an_app_token_acts_for_its_person_and_history_names_the_app(db):
    app = app_create(name="support-bot")
    _, secret = app_token_create(app=app, name="prod")
    person, created = person_create(app=app, external_id="cust-1")
    assert created
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    made = client.post(
        "/api/v1/memories/", {"content": "Likes green tea", "user_id": "cust-1"}, format="json"
    )
    assert made.status_code == 201, made.content
    listed = client.get("/api/v1/memories/?user_id=cust-1")
    assert [m["content"] for m in listed.json()["results"]] == ["Likes green tea"]
    assert client.get("/api/v1/memories/").status_code == 403
    assert client.get("/api/v1/memories/?user_id=nobody").status_code == 404
