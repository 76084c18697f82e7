"""Two web nodes on one database, each with its own data directory (so its own snapshot
folder), as docs/operating.md lays out many nodes: an item or a person erased through
one leaves none of their vectors in the other's folder within seconds, also while the
person keeps writing through one node and recalling through the other.

On SQLite both nodes share the database file (one machine); the PostgreSQL pass runs
them as separate hosts would, on one server.
"""

import shutil
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

from tests.system.deployment import Deployment

pytestmark = pytest.mark.system
DEADLINE = 60.0  # the watcher polls every second here; busy CI cores
FACTS = [f"Alice's allotment plot {n} grows {crop}" for n, crop in enumerate(
    ["leeks", "rhubarb", "broad beans", "kale", "shallots", "garlic", "chard", "parsnips"] * 4
)]  # fmt: skip


def _wait_for(check, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"not within {DEADLINE:g}s: {what}"
        time.sleep(0.25)


def _ids_on_disk(folder: Path) -> set[int]:
    ids: set[int] = set()
    for path in folder.rglob("*.ids.npy"):
        try:
            ids |= {int(i) for i in np.load(path, allow_pickle=False)}
        except (OSError, ValueError):  # replaced while read: the next look reads the new one
            pass
    return ids


class Load:
    """One thread writing through node a and one recalling through node b, until stopped."""

    def __init__(self, url_a: str, url_b: str, auth: dict[str, str]) -> None:
        self.statuses: list[int] = []
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(url_a, auth, True), daemon=True),
            threading.Thread(target=self._run, args=(url_b, auth, False), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _run(self, url: str, auth: dict[str, str], writes: bool) -> None:
        with httpx.Client(base_url=f"{url}/api/v1", headers=auth, timeout=60) as client:
            n = 0
            while not self._stop.is_set():
                n += 1
                if writes:
                    text = f"Alice's greenhouse shelf {n} holds tomato seedlings"
                    answer = client.post("/memories/", json={"content": text})
                else:
                    answer = client.post("/memories/search/", json={"query": "seedlings"})
                self.statuses.append(answer.status_code)

    def stop(self) -> list[int]:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=120)
        return self.statuses


def _owners(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.isdigit()] if folder.is_dir() else []


@pytest.fixture
def two_nodes(deployment: Deployment, tmp_path: Path):
    other_dir = tmp_path / "node-b"
    other_dir.mkdir()
    shutil.copy(deployment.data_dir / "secret_key", other_dir / "secret_key")
    env = {k: v for k, v in deployment.env.items() if k.startswith("GAIA_")}
    del env["GAIA_DATA_DIR"]
    other = Deployment(other_dir, deployment.env["DATABASE_URL"], **env)
    for node in (deployment, other):
        node.env["GAIA_SNAPSHOT_ERASE_POLL"] = "1"
    yield deployment, other
    other.stop()


def test_an_erase_through_one_node_empties_the_other_nodes_snapshot_folder(two_nodes):
    a, b = two_nodes
    token = a.tokens(["alice"])["alice"]
    auth = {"Authorization": f"Bearer {token}"}
    node_a = httpx.Client(base_url=f"{a.start_web(workers=1)}/api/v1", headers=auth, timeout=60)
    node_b = httpx.Client(base_url=f"{b.start_web(workers=1)}/api/v1", headers=auth, timeout=60)
    ids = []
    for text in FACTS:
        made = node_a.post("/memories/", json={"content": text})
        assert made.status_code == 201, made.text
        ids.append(made.json()["id"])
    folder = b.data_dir / "indexes"  # Alice is its only owner

    def recalled_on_b() -> bool:
        found = node_b.post("/memories/search/", json={"query": "which plot grows kale"})
        assert found.status_code == 200, found.text
        return set(ids) <= _ids_on_disk(folder)

    _wait_for(recalled_on_b, "node b's snapshot of every item")  # embedded after commit

    load = Load(a.url, b.url, auth)  # writes through a, recalls through b, meanwhile
    try:
        erased = node_a.post(f"/memories/{ids[3]}/erase/")
        assert erased.status_code == 204, erased.text
        _wait_for(lambda: ids[3] not in _ids_on_disk(folder), "the item's vector off node b")
        found = node_b.post("/memories/search/", json={"query": "which plot grows kale"})
        assert ids[3] not in {hit["id"] for hit in found.json()["results"]}
    finally:
        answered = load.stop()
    assert answered and set(answered) == {200, 201}, answered
    assert ids[3] not in _ids_on_disk(folder)  # not written back by the load's snapshots

    gone = node_a.post("/account/erase/", json={"confirm": True})
    assert gone.status_code == 200, gone.text
    _wait_for(lambda: not _owners(folder), "the person's folder off node b")
    time.sleep(3)  # rounds of node b's watcher and writer later: nothing written back
    assert not _owners(folder)
