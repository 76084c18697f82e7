"""A transaction PostgreSQL ends to break a deadlock is tried again (core.chunks.retrying:
an erase's chunks and its last unit); a request's write ended that way answers a
retryable 503, never a 500 (core.api.conventions)."""

import threading
import time

import psycopg.errors
import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, IntegrityError, OperationalError, connection, transaction
from rest_framework.test import APIRequestFactory

from core.api.conventions import exception_handler
from core.chunks import lost_a_deadlock, retrying


def ended_by(error: Exception) -> OperationalError:
    """What Django raises for a driver's error: the driver's error as its cause."""
    wrapped = OperationalError(str(error))
    wrapped.__cause__ = error
    return wrapped


def test_only_a_deadlock_or_serialization_failure_counts_as_lost():
    assert lost_a_deadlock(ended_by(psycopg.errors.DeadlockDetected("deadlock detected")))
    assert lost_a_deadlock(ended_by(psycopg.errors.SerializationFailure("could not serialize")))
    assert not lost_a_deadlock(ended_by(psycopg.errors.DiskFull("could not extend file")))
    assert not lost_a_deadlock(OperationalError("database is locked"))  # SQLite's: no sqlstate


def test_work_ended_by_a_deadlock_is_tried_again_and_other_errors_are_not():
    tries: list[int] = []

    def work() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise ended_by(psycopg.errors.DeadlockDetected("deadlock detected"))
        return "done"

    assert retrying(work, what="test") == "done" and len(tries) == 3

    def broken() -> None:
        tries.append(1)
        raise ended_by(psycopg.errors.DiskFull("could not extend file"))

    tries.clear()
    with pytest.raises(DatabaseError):
        retrying(broken, what="test")
    assert len(tries) == 1


def test_a_deadlock_that_never_clears_is_raised_after_the_last_try():
    tries: list[int] = []

    def work() -> None:
        tries.append(1)
        raise ended_by(psycopg.errors.DeadlockDetected("deadlock detected"))

    with pytest.raises(DatabaseError):
        retrying(work, what="test")
    assert 1 < len(tries) <= 10


def test_a_requests_write_ended_by_a_deadlock_answers_a_retryable_503():
    request = APIRequestFactory().post("/api/v1/memories/")
    error = ended_by(psycopg.errors.DeadlockDetected("deadlock detected"))
    response = exception_handler(error, {"request": request})
    assert response.status_code == 503 and response.data["error"]["code"] == "try_again"
    assert response["Retry-After"].isdigit()
    other = ended_by(psycopg.errors.DiskFull("could not extend file"))
    assert exception_handler(other, {"request": request}) is None  # a 500, as before


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's row locks")
@pytest.mark.django_db(transaction=True)
def test_a_real_deadlock_on_postgresql_is_broken_and_the_work_tried_again(alice, bob):
    """The other transaction locks bob's row, then alice's; the work locks alice's, then
    bob's. The other waits 30 s before looking for a deadlock, so the server ends the work's
    transaction (it waited first); tried again, it succeeds once the other commits."""
    users = get_user_model().objects
    holds, mine_waits, tries = threading.Event(), threading.Event(), []
    errors: list[BaseException] = []

    def other() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL deadlock_timeout = '30s'")
                users.filter(pk=bob.pk).update(first_name="other")
                holds.set()
                assert mine_waits.wait(60)
                _wait_until_blocked(main_pid)
                users.filter(pk=alice.pk).update(last_name="other")
        except BaseException as error:  # noqa: BLE001 (reported by the test below)
            errors.append(error)
        finally:
            connection.close()

    def work() -> None:
        tries.append(1)
        with transaction.atomic():
            users.filter(pk=alice.pk).update(first_name="work")
            mine_waits.set()
            users.filter(pk=bob.pk).update(last_name="work")  # waits for the other

    connection.ensure_connection()
    main_pid = connection.connection.info.backend_pid
    thread = threading.Thread(target=other)
    thread.start()
    assert holds.wait(60)
    retrying(work, what="test")
    thread.join(60)
    assert not errors and len(tries) == 2
    assert users.get(pk=alice.pk).first_name == "work"
    assert users.get(pk=alice.pk).last_name == "other"
    assert users.get(pk=bob.pk).first_name == "other"
    assert users.get(pk=bob.pk).last_name == "work"


def _wait_until_blocked(pid: int) -> None:
    """Until the backend `pid` waits for a lock (the work's second update)."""
    with connection.cursor() as cursor:
        for _ in range(600):
            cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
            if (cursor.fetchone() or [None])[0] == "Lock":
                return
            time.sleep(0.1)
    raise AssertionError("the work never waited for the lock")


def test_an_error_the_caller_says_a_second_try_mends_is_tried_again_too():
    tries: list[int] = []

    def work() -> int:
        tries.append(1)
        if len(tries) == 1:  # a write in flight added a row pointing at one being deleted
            raise IntegrityError("violates foreign key constraint")
        return len(tries)

    assert retrying(work, what="test", also=lambda e: isinstance(e, IntegrityError)) == 2
    tries.clear()
    with pytest.raises(IntegrityError):
        retrying(work, what="test")  # without `also`: raised at once
    assert len(tries) == 1
