"""Loopback ports for tests that start servers in other processes, without the race of
"find a free port, close it, let the server bind it": between the close and the bind,
any other process (another test worker's server, an outgoing connection) could take the
port, and the test would then talk to a server that is not its own.

A `HeldPort` is a port the test holds with a bound socket that does not listen. While it
is held the kernel gives the port to no other `bind(("127.0.0.1", 0))` and to no outgoing
connection, and a connection to it is refused; a server of the test's own that binds with
SO_REUSEADDR (gunicorn, `manage.py serve`'s port check) can still bind and listen on it.
Held until the test ends, the port also refuses connections once that server has died,
instead of reaching whatever another test started there meanwhile.

- `HeldPort().listener()`: a socket listening on the port, to hand to gunicorn as
  `--bind fd://N` (inherited through `pass_fds`, then closed in the test).
- `serves(port, pid)`: whether the socket listening on the port is held by that process
  (or one under it), so a test accepts an answer only from a listener of its own.
"""

import os
import socket
from pathlib import Path
from types import TracebackType

from bench.loadbench.server import process_tree

HOST = "127.0.0.1"
TCP_LISTEN = "0A"  # the state column of /proc/net/tcp


def _reusable() -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    return sock


class HeldPort:
    """A loopback port nobody else is given while it is held (see the module's text)."""

    def __init__(self) -> None:
        self._hold = _reusable()
        self._hold.bind((HOST, 0))
        self.number: int = self._hold.getsockname()[1]
        self.url = f"http://{HOST}:{self.number}"

    def listener(self) -> socket.socket:
        """A socket listening on the port, inheritable by a child process."""
        sock = _reusable()
        sock.bind((HOST, self.number))
        sock.listen(128)
        sock.set_inheritable(True)
        return sock

    def release(self) -> None:
        self._hold.close()

    def __enter__(self) -> "HeldPort":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType
    ) -> None:
        self.release()


def listening_inodes(port: int) -> set[str]:
    """Inodes of the sockets listening on HOST:port (or on every address at that port)."""
    wanted = {f"0100007F:{port:04X}", f"00000000:{port:04X}"}
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] in wanted and fields[3] == TCP_LISTEN:
            found.add(fields[9])
    return found


def _socket_inodes(pid: int) -> set[str]:
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except (FileNotFoundError, PermissionError):
        return set()
    inodes = set()
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def serves(port: int, pid: int) -> bool:
    """Whether every socket listening on HOST:port belongs to process `pid` or one under
    it (a listener of another process, or none at all, is not this server)."""
    inodes = listening_inodes(port)
    held = set().union(*(_socket_inodes(p) for p in process_tree(pid)))
    return bool(inodes) and inodes <= held
