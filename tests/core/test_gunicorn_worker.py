"""How serve's web worker finds where a request ends before a thread takes it."""

import pytest

from core.server.gunicorn_worker import BadRequest, Framing


def _framing() -> Framing:
    return Framing(max_head=8192, max_body=1000)


def _feed(framing: Framing, data: bytes) -> tuple[bytes, bytes, bool]:
    rest = framing.take_head(data)
    assert framing.head_done
    return framing.take_body(rest) if framing.expects_body() else (b"", rest, True)


def test_it_waits_for_the_whole_head_then_the_declared_body():
    framing = _framing()
    assert framing.take_head(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n") == b""
    assert not framing.head_done
    assert framing.take_head(b"\r\nab") == b"ab"
    assert framing.take_body(b"ab") == (b"ab", b"", False)
    assert framing.take_body(b"cdeGET") == (b"cde", b"GET", True)


def test_it_frames_a_chunked_body_arriving_in_any_pieces():
    body = b"4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT"
    for cut in range(1, len(body)):
        framing = _framing()
        head = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        part, after, whole = _feed(framing, head)
        assert (part, whole) == (b"", False)
        first, after, whole = framing.take_body(body[:cut])
        if whole:  # the cut falls after the body's end
            after += body[cut:]
        else:
            second, after, whole = framing.take_body(body[cut:])
            first += second
        assert whole and first + after == body and after == b"NEXT", cut


def test_a_request_without_a_body_is_whole_with_its_head():
    assert _feed(_framing(), b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET") == (b"", b"GET", True)


def test_blank_lines_before_a_request_are_not_taken_for_its_end():
    framing = _framing()
    assert framing.take_head(b"\r\n\r\n") == b"" and not framing.head_done
    framing.take_head(b"GET / HTTP/1.1\r\n\r\n")
    assert framing.head_done and framing.head == b"GET / HTTP/1.1\r\n\r\n"


def test_an_expect_100_continue_line_is_answered_by_the_worker_not_replayed():
    framing = _framing()
    framing.take_head(b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n")
    assert framing.expect_continue
    assert framing.head == b"POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\n"


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", "413"),
        (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "400"),
        (b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "400"),
        (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "400"),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", "400"),
        (b"GET / HTTP/1.1\r\nX: " + b"a" * 9000, "431"),
    ],
)
def test_what_cannot_be_framed_or_is_too_large_is_refused_with_a_status(head, status):
    with pytest.raises(BadRequest) as refused:
        _framing().take_head(head)
    assert refused.value.status.startswith(status)


def test_a_bad_chunk_size_or_a_chunked_body_over_the_limit_is_refused():
    framing = _framing()
    framing.take_head(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    with pytest.raises(BadRequest):
        framing.take_body(b"zz\r\n")
    framing = _framing()
    framing.take_head(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    with pytest.raises(BadRequest):
        framing.take_body(b"800\r\n" + b"a" * 1100)
