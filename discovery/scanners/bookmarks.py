"""Browser bookmarks: the sites (domains only) filed under each bookmark folder.

Chromium-family browsers keep a `Bookmarks` JSON file; Firefox keeps bookmarks in
places.sqlite, which is opened read-only on a private copy. Folder names are the
person's own labels and are kept; bookmark titles (usually the page's title) and full
URLs are not.
"""

import json
from collections.abc import Iterator

from discovery.scanners import fs, paths
from discovery.scanners.base import Found, ScanContext, Scanner, ScanState, join_limited
from discovery.scanners.browsers import domain

DOMAINS_SHOWN = 15
MAX_BOOKMARKS = 20_000
MAX_DEPTH = 20
_ROOT_FOLDER = ""  # bookmarks directly in the bar, menu or "other" root

Folders = dict[str, set[str]]


def _add(folders: Folders, folder: str, url: object) -> None:
    host = domain(url)
    if host:
        folders.setdefault(folder, set()).add(host)


def chromium(folders: Folders, ctx: ScanContext, state: ScanState) -> None:
    for label, profile in paths.chromium_profiles(ctx):
        text = fs.read_metadata(profile / "Bookmarks", ctx.home, limit=64 * 1024 * 1024)
        if text is None:
            continue
        try:
            roots = json.loads(text).get("roots", {})
        except (ValueError, AttributeError):
            state.warn(f"{label} {profile.name}: Bookmarks is not valid JSON")
            continue
        for node in roots.values() if isinstance(roots, dict) else []:
            if isinstance(node, dict):
                _walk_chromium(node, _ROOT_FOLDER, folders, state, 0)


def _walk_chromium(node: dict, folder: str, folders: Folders, state: ScanState, depth: int):
    children = node.get("children")
    for child in children if isinstance(children, list) else []:
        if not isinstance(child, dict) or not state.tick() or depth > MAX_DEPTH:
            continue
        if child.get("type") == "url":
            _add(folders, folder, child.get("url"))
        elif child.get("type") == "folder":
            name = str(child.get("name") or "").strip()
            _walk_chromium(child, name, folders, state, depth + 1)


_FIREFOX_SQL = """
    SELECT parent.id, parent.title, place.url
    FROM moz_bookmarks AS mark
    JOIN moz_places AS place ON place.id = mark.fk
    JOIN moz_bookmarks AS parent ON parent.id = mark.parent
    LEFT JOIN moz_bookmarks AS grand ON grand.id = parent.parent
    WHERE mark.type = 1
      AND COALESCE(grand.guid, '') != 'tags________'
      AND parent.guid != 'tags________'
    LIMIT ?
"""
# Built-in root folders: their bookmarks belong to no folder of the person's own.
# The folder every new Firefox profile ships with: Mozilla's picks, not the person's.
_FIREFOX_DEFAULTS = "Mozilla Firefox"
_FIREFOX_ROOTS = {"menu________", "toolbar_____", "unfiled_____", "mobile______", "root________"}


def firefox(folders: Folders, ctx: ScanContext, state: ScanState) -> None:
    for profile in paths.firefox_profiles(ctx):
        if not (profile / "places.sqlite").exists():
            continue
        try:
            with fs.sqlite_copy(profile / "places.sqlite", ctx.home, state) as db:
                roots = {
                    row[0] for row in db.execute(
                        "SELECT id FROM moz_bookmarks WHERE guid IN (?, ?, ?, ?, ?)",
                        sorted(_FIREFOX_ROOTS),
                    )
                }  # fmt: skip
                for parent_id, title, url in db.execute(_FIREFOX_SQL, (MAX_BOOKMARKS,)):
                    folder = _ROOT_FOLDER if parent_id in roots else str(title or "").strip()
                    if folder != _FIREFOX_DEFAULTS:
                        _add(folders, folder, url)
        except Exception as error:  # noqa: BLE001 - one broken profile must not end the scan
            state.warn(f"Firefox {profile.name}: places.sqlite unreadable ({error})")


def scan(ctx: ScanContext, state: ScanState) -> Iterator[Found]:
    folders: Folders = {}
    chromium(folders, ctx, state)
    firefox(folders, ctx, state)
    for folder in sorted(folders, key=lambda f: (f != _ROOT_FOLDER, f.lower())):
        sites = join_limited(sorted(folders[folder]), DOMAINS_SHOWN)
        where = f" in the folder '{folder}'" if folder else ""
        yield Found(f"Bookmarked sites{where}: {sites}")


SCANNER = Scanner(
    name="bookmarks",
    description="browser bookmarks (Chromium-family and Firefox): folders and site domains",
    scan=scan,
)
