"""The web worker `serve` runs (`worker_class` in core/server/gunicorn_config.py): gunicorn's
threaded worker, except that a request reaches a thread only once all of it has arrived.

gunicorn's gthread worker hands a connection to a thread as soon as its first byte is in,
and the thread then blocks reading the headers and the body. Eight clients that declared
a large body and sent one byte held all eight threads, and every other request (health
included) waited for them. Here the worker's event loop reads the head and the body
itself (non-blocking, bodies over 1 MiB spooled to a temporary file), as a buffering
reverse proxy would, and submits the request to the thread pool complete: a slow sender
costs a connection slot, never a thread. A request that is not all in within
`GAIA_REQUEST_READ_TIMEOUT` seconds (from the connection's opening, or on a kept-alive
connection from its next request's first byte) gets 408 and is closed; one that
declares more than the largest body the server accepts gets 413 before any of it is read.

The bytes are handed to gunicorn's own parser unchanged (an `Expect: 100-continue` line
aside: it was answered here), so parsing and its limits stay gunicorn's.
"""

import errno
import re
import selectors
import socket
import tempfile
import time
from functools import partial

from django.conf import settings
from gunicorn import http
from gunicorn.http.unreader import SocketUnreader
from gunicorn.workers.gthread import TConn, ThreadWorker

READ_SIZE = 256 * 1024  # per readable event, so one sender cannot hog the loop
SPOOL_BYTES = 1024 * 1024  # bodies larger than this wait in a temporary file
MULTIPART_SLACK = 1024 * 1024  # an upload form's own fields and boundaries
HEAD_END = re.compile(rb"\r?\n\r?\n")
CHUNK_SIZE_LINE = re.compile(rb"([0-9a-fA-F]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")


def _answer(status: str) -> bytes:
    return f"HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".encode()


class BadRequest(Exception):
    """What arrived is not an HTTP/1 request this worker can frame; answered as `status`."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class Framing:
    """Where one HTTP/1 request ends, found as its bytes arrive (head, then body)."""

    def __init__(self, max_head: int, max_body: int) -> None:
        self.max_head, self.max_body = max_head, max_body
        self.head = b""  # until the blank line; then the head as it will be replayed
        self.head_done = False
        self.length: int | None = None  # Content-Length; None while chunked
        self.chunked = False
        self.chunk_state = b""  # chunked bytes not yet framed
        self.chunk_left = 0  # data (and its CRLF) still to come of the current chunk
        self.in_trailers = False
        self.body_seen = 0
        self.expect_continue = False

    def take_head(self, data: bytes) -> bytes:
        """Feed bytes while the head is incomplete; returns what follows the head."""
        self.head = (self.head + data).lstrip(b"\r\n")  # blank lines before a request
        end = HEAD_END.search(self.head)
        if end is None:
            if len(self.head) > self.max_head:
                raise BadRequest("431 Request Header Fields Too Large")
            return b""
        head, rest = self.head[: end.end()], self.head[end.end() :]
        self.head = self._read_head(head)
        self.head_done = True
        return rest

    def _read_head(self, head: bytes) -> bytes:
        lines = head.split(b"\n")
        kept, lengths, encodings = [lines[0]], [], []
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                lengths.append(value.strip())
            elif name == b"transfer-encoding":
                encodings.append(value.strip().lower())
            elif name == b"expect" and value.strip().lower() == b"100-continue":
                self.expect_continue = True
                continue  # answered by the worker; gunicorn must not answer it again
            kept.append(line)
        if encodings:
            if lengths or not encodings[-1].endswith(b"chunked"):
                raise BadRequest("400 Bad Request")
            self.chunked = True
        elif lengths:
            if len(set(lengths)) != 1 or not lengths[0].isdigit():
                raise BadRequest("400 Bad Request")
            self.length = int(lengths[0])
            if self.length > self.max_body:
                raise BadRequest("413 Content Too Large")
        else:
            self.length = 0
        return b"\n".join(kept)

    def expects_body(self) -> bool:
        return self.chunked or bool(self.length)

    def take_body(self, data: bytes) -> tuple[bytes, bytes, bool]:
        """Feed body bytes: (this request's part, what follows it, whether it is complete)."""
        if not self.chunked:
            need = self.length - self.body_seen
            part, rest = data[:need], data[need:]
            self.body_seen += len(part)
            return part, rest, self.body_seen == self.length
        start = len(self.chunk_state)
        self.chunk_state += data
        end = self._frame_chunks()
        if end is None:
            self.body_seen += len(data)
            if self.body_seen > self.max_body:
                raise BadRequest("413 Content Too Large")
            return data, b"", False
        used = end - start
        return data[:used], data[used:], True

    def _frame_chunks(self) -> int | None:
        """Consume complete chunks from `chunk_state`; the end offset once the body ends."""
        state, pos = self.chunk_state, 0
        while True:
            if self.chunk_left:
                take = min(self.chunk_left, len(state) - pos)
                pos += take
                self.chunk_left -= take
                if self.chunk_left:
                    break
                continue
            if self.in_trailers:
                line_end = state.find(b"\n", pos)
                if line_end < 0:
                    break
                line, pos = state[pos:line_end], line_end + 1
                if line.strip() == b"":
                    self.chunk_state = b""
                    return pos
                continue
            match = CHUNK_SIZE_LINE.match(state, pos)
            if match is None:
                if b"\n" in state[pos:] or len(state) - pos > 1024:
                    raise BadRequest("400 Bad Request")
                break
            pos = match.end()
            size = int(match.group(1), 16)
            if size == 0:
                self.in_trailers = True
            else:
                self.chunk_left = size + 2  # the data, then its CRLF
        self.chunk_state = state[pos:]
        if len(self.chunk_state) > self.max_head:  # a trailer line without end
            raise BadRequest("431 Request Header Fields Too Large")
        return None


class ReplayUnreader(SocketUnreader):
    """gunicorn's socket reader, serving the bytes the worker buffered before the socket."""

    def __init__(self, sock: socket.socket, spool: tempfile.SpooledTemporaryFile) -> None:
        super().__init__(sock)
        self.spool = spool
        self.after = b""  # bytes that arrived behind the request (a pipelined next one)

    def chunk(self, size_hint: int | None = None) -> bytes:
        data = (
            b""
            if self.spool.closed
            else self.spool.read(min(max(size_hint or 0, self.mxchunk), self.max_body_chunk))
        )
        if data:
            return data
        if self.after:
            data, self.after = self.after, b""
            return data
        return super().chunk(size_hint)

    def take_replay(self) -> bytes:
        """What was buffered and not yet parsed; the spool is closed."""
        data = (b"" if self.spool.closed else self.spool.read()) + self.after
        self.spool.close()
        self.after = b""
        return data


class Incoming:
    """One request being read by the worker's event loop."""

    def __init__(self, framing: Framing, deadline: float) -> None:
        self.framing = framing
        self.deadline = deadline
        self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        self.continue_sent = False


class BufferingThreadWorker(ThreadWorker):
    """gthread with requests read whole by the event loop before a thread takes them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.incoming: dict[TConn, Incoming] = {}

    def _limits(self) -> tuple[int, int, float]:
        cfg = self.cfg
        max_head = cfg.limit_request_line + cfg.limit_request_fields * (
            cfg.limit_request_field_size + 2
        )
        max_body = (
            max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.GAIA_MAX_IMPORT_BYTES)
            + MULTIPART_SLACK
        )
        return max_head, max_body, float(settings.GAIA_REQUEST_READ_TIMEOUT)

    def enqueue_req(self, conn: TConn) -> None:
        """Every route to the thread pool (a new, kept-alive or pipelining connection)
        passes here: read the request first."""
        if self.cfg.is_ssl or conn.is_http2:  # serve speaks plain HTTP/1; leave others be
            super().enqueue_req(conn)
            return
        max_head, max_body, timeout = self._limits()
        pending = b""
        if conn.parser is not None:
            unreader = conn.parser.unreader
            if isinstance(unreader, ReplayUnreader):
                pending = unreader.take_buffered() + unreader.take_replay()
            else:
                pending = unreader.take_buffered()
        incoming = Incoming(Framing(max_head, max_body), time.monotonic() + timeout)
        self.incoming[conn] = incoming
        conn.sock.setblocking(False)
        if pending and self._feed(conn, incoming, pending):
            return
        self._read(conn)
        if conn in self.incoming:
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._readable, conn))

    def _readable(self, conn: TConn, _sock: socket.socket) -> None:
        self._read(conn)

    def _read(self, conn: TConn) -> None:
        incoming = self.incoming[conn]
        try:
            data = conn.sock.recv(READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
                self._drop(conn)
            return
        if not data:  # the client went away before its request was whole
            self._drop(conn)
            return
        self._feed(conn, incoming, data)

    def _feed(self, conn: TConn, incoming: Incoming, data: bytes) -> bool:
        """Take bytes; True once the request is whole and handed over (or refused)."""
        framing = incoming.framing
        try:
            if not framing.head_done:
                data = framing.take_head(data)
                if not framing.head_done:
                    return False
                incoming.spool.write(framing.head)
                if framing.expect_continue and framing.expects_body() and not data:
                    self._send(conn, b"HTTP/1.1 100 Continue\r\n\r\n")
            if framing.expects_body():
                part, after, whole = framing.take_body(data)
                incoming.spool.write(part)
            else:
                after, whole = data, True
        except BadRequest as bad:
            self._send(conn, _answer(bad.status))
            self._drop(conn)
            return True
        if not whole:
            return False
        self._hand_over(conn, incoming, after)
        return True

    def _hand_over(self, conn: TConn, incoming: Incoming, after: bytes) -> None:
        self._forget(conn)
        incoming.spool.seek(0)
        if conn.parser is None:
            conn.parser = http.get_parser(self.cfg, conn.sock, conn.client)
        unreader = ReplayUnreader(conn.sock, incoming.spool)
        unreader.after = after
        conn.parser.unreader = unreader
        conn.data_ready = True  # the thread must not wait for the socket: all is here
        super().enqueue_req(conn)

    def finish_request(self, conn: TConn, fs) -> None:
        unreader = conn.parser.unreader if conn.parser is not None else None
        if isinstance(unreader, ReplayUnreader) and not fs.cancelled() and not fs.exception():
            # What came behind the request is read already: the socket will not show it
            # as readable, so gunicorn must see it in the buffer it checks.
            unreader.buf.seek(0, 2)
            unreader.buf.write(unreader.take_replay())
        super().finish_request(conn, fs)

    def _send(self, conn: TConn, data: bytes) -> None:
        try:
            conn.sock.send(data)
        except OSError:
            pass  # a client that cannot take a short answer is dropped anyway

    def _forget(self, conn: TConn) -> None:
        self.incoming.pop(conn, None)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass

    def _drop(self, conn: TConn) -> None:
        incoming = self.incoming.get(conn)
        self._forget(conn)
        if incoming is not None:
            incoming.spool.close()
        self.nr_conns -= 1
        conn.close()

    def murder_pending(self) -> None:
        """gunicorn's pending connections, and requests not whole by their deadline."""
        super().murder_pending()
        now = time.monotonic()
        for conn, incoming in list(self.incoming.items()):
            if incoming.deadline <= now:
                if incoming.framing.head:  # a request begun; an idle connection just closes
                    self._send(conn, _answer("408 Request Timeout"))
                self._drop(conn)
