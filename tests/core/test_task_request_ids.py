"""A request's id follows the tasks it queues: the task worker's log lines for that task
name it, and its own lines before and after, and a schedule's task, name none."""

import io
import json
import logging
import queue
from multiprocessing import Value

import pytest
from django.http import HttpResponse
from django_q.signing import SignedPackage
from django_q.tasks import async_task
from django_q.worker import worker

from core.server.request_id import JsonFormatter, RequestIdFilter, RequestMiddleware

# The worker loop closes old database connections before each task, as in a cluster:
# outside a test transaction.
pytestmark = pytest.mark.django_db(transaction=True)
log = logging.getLogger("gaia.background")


def noted_task(turn_id: int) -> int:
    """A task as ours are: it logs what it does."""
    log.warning("extracting turn %s", turn_id)
    return turn_id


class Kept:
    """A broker that keeps what is queued (the cluster's would hand it to a worker)."""

    list_key = "gaia"

    def __init__(self) -> None:
        self.packages: list[str] = []

    def enqueue(self, package: str) -> str:
        self.packages.append(package)
        return "1"


def _queue_in_request(rf, broker: Kept, request_id: str) -> str:
    def view(request):
        async_task(f"{__name__}.noted_task", 42, broker=broker, sync=False)
        return HttpResponse("queued")

    answer = RequestMiddleware(view)(rf.post("/api/v1/conversations/turns/",
                                             HTTP_X_REQUEST_ID=request_id))  # fmt: skip
    return answer["X-Request-ID"]


def _run_in_worker(packages: list[str]) -> list[dict]:
    """django-q2's own worker loop runs the tasks, as in a cluster's worker process."""
    tasks, results = queue.Queue(), queue.Queue()
    for package in packages:
        tasks.put(SignedPackage.loads(package))
    tasks.put("STOP")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        worker(tasks, results, Value("f", -1))
    finally:
        root.removeHandler(handler)
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_task_queued_in_a_request_logs_under_its_request_id(rf, settings):
    settings.GAIA_WORKER_NICE = 0  # the worker loop would lower this test process's priority
    broker = Kept()
    first = _queue_in_request(rf, broker, "lb-7f3a9c21")
    second = _queue_in_request(rf, broker, "")  # no id given: the one the server made
    async_task(f"{__name__}.noted_task", 43, broker=broker, sync=False)  # a sweep's
    lines = _run_in_worker(broker.packages)
    said = [(line["request_id"], line["message"]) for line in lines if line["logger"] == log.name]
    assert first == "lb-7f3a9c21" and len(second) == 32
    assert said == [
        ("lb-7f3a9c21", "extracting turn 42"),
        (second, "extracting turn 42"),
        ("-", "extracting turn 43"),
    ]
    own = [line["request_id"] for line in lines if line["logger"] != log.name]
    assert own and set(own) == {"-"}  # the worker's lines between tasks name no request
