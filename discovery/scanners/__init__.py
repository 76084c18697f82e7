"""Discovery scanners: each proposes facts from one kind of local metadata.

Standard library only (no Django, no httpx): used by `manage.py discover` on the server
and by the standalone client `python -m discovery.scan` on a person's own machine.
"""

from discovery.scanners import (
    apps,
    bookmarks,
    email_accounts,
    git_repos,
    history,
    manifests,
    projects,
)
from discovery.scanners.base import (
    Found,
    ScanContext,
    Scanner,
    ScanReport,
    run_scanner,
    run_scanners,
)

SCANNERS: dict[str, Scanner] = {
    s.name: s
    for s in (
        projects.SCANNER,
        git_repos.SCANNER,
        manifests.SCANNER,
        apps.SCANNER,
        bookmarks.SCANNER,
        history.SCANNER,
        email_accounts.SCANNER,
    )
}
ALWAYS_SENSITIVE = frozenset(name for name, s in SCANNERS.items() if s.always_sensitive)


def select(names: list[str] | None) -> list[Scanner]:
    """The scanners named (all when none), in the registry's order."""
    if not names:
        return list(SCANNERS.values())
    unknown = sorted(set(names) - set(SCANNERS))
    if unknown:
        raise ValueError(f"unknown source(s): {', '.join(unknown)}; use {', '.join(SCANNERS)}")
    return [s for name, s in SCANNERS.items() if name in names]


__all__ = [
    "ALWAYS_SENSITIVE",
    "SCANNERS",
    "Found",
    "ScanContext",
    "ScanReport",
    "Scanner",
    "run_scanner",
    "run_scanners",
    "select",
]
