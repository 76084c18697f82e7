"""A write to a URL without its trailing slash is redirected with 308 (method and body
kept), never a 301 that clients follow as a GET: `requests` turned a POST to
/api/v1/memories into a GET that answered 200 and stored nothing."""

import pytest
import requests

from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_without_the_slash_is_redirected_with_its_method_kept(client, method):
    answer = getattr(client, method)("/api/v1/memories?x=1")
    assert answer.status_code == 308
    assert answer["Location"] == "/api/v1/memories/?x=1"


def test_a_read_without_the_slash_is_still_redirected_permanently(client):
    answer = client.get("/api/v1/memories")
    assert answer.status_code == 301 and answer["Location"] == "/api/v1/memories/"


@pytest.mark.django_db(transaction=True)
def test_requests_posting_without_the_slash_stores_the_memory(live_server, alice_api):
    answer = requests.post(
        f"{live_server.url}/api/v1/memories",
        json={"content": "Reads before sleeping"},
        headers={"Authorization": f"Bearer {alice_api.token_secret}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    assert answer.history[0].status_code == 308
    assert KnowledgeItem.objects.filter(content="Reads before sleeping").count() == 1
