"""E-mail accounts: addresses only (Thunderbird identities, git user.email). Always
sensitive. Mail folders are never listed or opened; only prefs.js and git config are read."""

import re
from collections.abc import Iterator

from discovery.scanners import fs, gitconfig, paths
from discovery.scanners.base import Found, ScanContext, Scanner, ScanState

_THUNDERBIRD_PREF = re.compile(
    r'^\s*user_pref\(\s*"mail\.identity\.[\w.-]+\.useremail"\s*,\s*"([^"]*)"\s*\)', re.M
)
_ADDRESS = re.compile(r"^[\w.!#$%&'*+/=?^`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


def addresses(ctx: ScanContext, state: ScanState) -> dict[str, set[str]]:
    """{address: {where it was found}}."""
    found: dict[str, set[str]] = {}

    def add(address: str, where: str) -> None:
        address = address.strip().lower()
        if _ADDRESS.match(address):
            found.setdefault(address, set()).add(where)

    for profile in paths.thunderbird_profiles(ctx):
        state.tick()
        text = fs.read_metadata(profile / "prefs.js", ctx.home, limit=16 * 1024 * 1024) or ""
        for match in _THUNDERBIRD_PREF.finditer(text):
            add(match.group(1), "Thunderbird")
    for path in paths.gitconfig_files(ctx):
        text = fs.read_metadata(path, ctx.home)
        if text:
            email = gitconfig.get(gitconfig.parse(text), "user", "email")
            if email:
                add(email, "git")
    return found


def scan(ctx: ScanContext, state: ScanState) -> Iterator[Found]:
    for address, where in sorted(addresses(ctx, state).items()):
        yield Found(
            f"Uses the e-mail address {address} ({', '.join(sorted(where))})", sensitive=True
        )


SCANNER = Scanner(
    name="email",
    description="e-mail accounts: addresses only, from Thunderbird and git (sensitive)",
    scan=scan,
    always_sensitive=True,
)
