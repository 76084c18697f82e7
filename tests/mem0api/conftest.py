"""Two apps with their tokens, as mem0's SDK authenticates (`Token <key>`)."""

import pytest
from rest_framework.test import APIClient

from accounts.people import app_create, app_token_create


def _app_client(name: str) -> APIClient:
    app = app_create(name=name)
    token, secret = app_token_create(app=app, name="prod")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    client.app, client.app_token, client.secret = app, token, secret
    return client


@pytest.fixture
def tutor(db) -> APIClient:
    """The tutoring site's app token."""
    return _app_client("tutor-site")


@pytest.fixture
def shop(db) -> APIClient:
    """Another app (a shop's support bot): it must see nothing of the tutor's."""
    return _app_client("shop-bot")


def add(client: APIClient, user_id: str, *contents: str, **extra) -> list[dict]:
    """Store `contents` as given (infer=False) for `user_id`; the stored memories."""
    body = {
        "messages": [{"role": "user", "content": c} for c in contents],
        "user_id": user_id,
        "infer": False,
        **extra,
    }
    answer = client.post("/mem0/v3/memories/add/", body, format="json")
    assert answer.status_code == 200, answer.content
    return answer.json()["results"]
