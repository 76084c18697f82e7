"""Builds a fake home directory (and machine root) for the scanner tests.

Every file a scanner must never read holds SECRET; page titles in the browser databases
hold it too. The exact findings each scanner must produce are asserted in the tests.
"""

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

SECRET = "zq-SECRET-7731-never-read"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
CHROMIUM_OFFSET_US = 11_644_473_600 * 1_000_000


@dataclass
class Fake:
    home: Path
    system: Path
    outside: Path

    @property
    def src(self) -> Path:
        return self.home / "src"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def git_repo(path: Path, config: str, branches: list[str], packed: list[str] = ()) -> None:
    git = path / ".git"
    write(git / "config", config)
    write(git / "HEAD", "ref: refs/heads/main\n")
    for branch in branches:
        write(git / "refs" / "heads" / branch, "0" * 40 + "\n")
    if packed:
        lines = ["# pack-refs with: peeled fully-peeled sorted"]
        lines += [f"{'1' * 40} refs/heads/{name}" for name in packed]
        lines += [f"{'2' * 40} refs/remotes/origin/remote-only", f"^{'3' * 40}"]
        write(git / "packed-refs", "\n".join(lines) + "\n")
    write(git / "objects" / "ab" / "cdef", SECRET)  # objects are never opened


def build_projects(fake: Fake) -> None:
    gaia = fake.src / "gaia"
    git_repo(
        gaia,
        "[core]\n\trepositoryformatversion = 0\n"
        '[remote "origin"]\n'
        "\turl = https://alice:ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/amd/gaia.git\n"
        "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        '[remote "upstream"]\n\turl = "git@gitlab.com:team/gaia.git" ; a comment\n'
        '[branch "main"]\n\tremote = origin\n',
        branches=["main", "feature/recall"],
        packed=["release-1.0", "main"],
    )
    write(
        gaia / "pyproject.toml",
        '[project]\nname = "gaia-memory"\n'
        'dependencies = ["Django>=5.2", "httpx[http2]==0.28.1", "numpy ; python_version>\'3\'"]\n'
        f'description = "{SECRET}"\n',
    )
    write(gaia / "app.py", f"print('{SECRET}')\n")
    write(gaia / "models.py", f"# {SECRET}\n")
    write(gaia / "web" / "index.ts", f"// {SECRET}\n")
    write(gaia / "README.md", SECRET)
    write(gaia / "node_modules" / "left-pad" / "index.js", SECRET)
    write(gaia / ".venv" / "lib" / "x.py", SECRET)

    tool = fake.src / "tool-rs"
    write(
        tool / "Cargo.toml",
        '[package]\nname = "tool-rs"\n[dependencies]\nserde = "1"\n'
        'tokio = { version = "1", features = ["full"] }\n[dev-dependencies]\ninsta = "1"\n',
    )
    write(tool / "src" / "main.rs", f"// {SECRET}\n")

    web = fake.src / "webapp"
    write(web / "package.json", json.dumps({
        "name": "@alice/webapp", "version": "1.0.0", "description": SECRET,
        "dependencies": {"react": "^18.0.0"}, "devDependencies": {"vite": "^5"},
        "scripts": {"build": SECRET},
    }))  # fmt: skip
    write(web / "src" / "App.jsx", SECRET)
    git_repo(web, "[core]\n\tbare = false\n", branches=[])

    go = fake.src / "goservice"
    write(
        go / "go.mod",
        "module github.com/alice/goservice\n\ngo 1.22\n\n"
        "require github.com/google/uuid v1.6.0\n"
        "require (\n\tgithub.com/spf13/cobra v1.8.0\n\tgolang.org/x/sys v0.20.0 // indirect\n)\n",
    )
    write(go / "main.go", SECRET)

    write(fake.src / "scratch" / "notes.txt", SECRET)  # no languages: not a project
    write(fake.src / "misc" / "deep" / "util.sh", SECRET)  # a plain folder with a script

    stolen = fake.outside / "stolen"
    git_repo(stolen, '[remote "origin"]\n\turl = https://github.com/evil/stolen\n', ["main"])
    write(stolen / "pyproject.toml", '[project]\nname = "stolen"\n')
    write(stolen / "leak.py", SECRET)
    (fake.src / "link-out").symlink_to(stolen, target_is_directory=True)
    # a symlinked metadata file pointing out of the root is not read either
    escape = fake.src / "escape"
    escape.mkdir()
    (escape / "package.json").symlink_to(write(fake.outside / "p.json", '{"name": "leak"}'))
    write(escape / "index.js", SECRET)

    write(fake.home / ".gitconfig", "[user]\n\tname = Alice Example\n\temail = Alice@Example.org\n")
    write(fake.home / ".config" / "git" / "config", "[user]\n\tname = Old Name\n")


def build_apps(fake: Fake) -> None:
    system_apps = fake.system / "usr" / "share" / "applications"

    def entry(name, categories, extra=""):
        return (f"[Desktop Entry]\nType=Application\nName={name}\nName[de]=Anders\n"
                f"Exec=/usr/bin/x %U\nCategories={categories}\n{extra}"
                f"[Desktop Action new]\nName=New Window\n")  # fmt: skip

    write(system_apps / "firefox.desktop", entry("Firefox", "Network;WebBrowser;"))
    write(system_apps / "gimp.desktop", entry("GIMP", "Graphics;2DGraphics;"))
    write(system_apps / "org.gnome.Settings.desktop", entry("Settings", "GNOME;GTK;Settings;"))
    write(system_apps / "hidden.desktop", entry("Hidden Thing", "Utility;", "NoDisplay=true\n"))
    write(system_apps / "code.desktop", entry("Code (system)", "Development;IDE;"))
    write(system_apps / "readme.txt", SECRET)
    user_apps = fake.home / ".local" / "share" / "applications"
    write(user_apps / "code.desktop", entry("Visual Studio Code", "TextEditor;Development;IDE;"))
    write(user_apps / "mygame.desktop", entry("Tetris", "Game;"))
    write(user_apps / "plain.desktop", entry("Plain Tool", ""))
    write(fake.system / "var" / "lib" / "dpkg" / "status", "\n\n".join([
        "Package: git\nStatus: install ok installed\nVersion: 1:2.43\nDescription: fast\n more",
        "Package: libc6\nStatus: install ok installed",
        "Package: postgresql-16\nStatus: install ok installed",
        "Package: neovim\nStatus: deinstall ok config-files",
    ]) + "\n")  # fmt: skip


def chromium_history(path: Path, visits: list[tuple[str, str, datetime]]) -> None:
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT, title TEXT, visit_count INTEGER,"
        " last_visit_time INTEGER);"
        "CREATE TABLE visits (id INTEGER PRIMARY KEY, url INTEGER, visit_time INTEGER);"
    )
    ids: dict[str, int] = {}
    for url, title, when in visits:
        if url not in ids:
            ids[url] = db.execute(
                "INSERT INTO urls (url, title, visit_count) VALUES (?, ?, 0)", (url, title)
            ).lastrowid
        stamp = int(when.timestamp() * 1_000_000) + CHROMIUM_OFFSET_US
        db.execute("INSERT INTO visits (url, visit_time) VALUES (?, ?)", (ids[url], stamp))
    db.commit()
    db.close()


def firefox_places(path: Path, bookmarks, visits) -> sqlite3.Connection:
    """places.sqlite in WAL mode; returns the open connection (a 'running browser')."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(
        "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT, title TEXT,"
        " rev_host TEXT, visit_count INTEGER DEFAULT 0, last_visit_date INTEGER);"
        "CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, type INTEGER, fk INTEGER,"
        " parent INTEGER, position INTEGER, title TEXT, dateAdded INTEGER,"
        " lastModified INTEGER, guid TEXT);"
        "CREATE TABLE moz_historyvisits (id INTEGER PRIMARY KEY, from_visit INTEGER,"
        " place_id INTEGER, visit_date INTEGER, visit_type INTEGER);"
    )
    places: dict[str, int] = {}

    def place(url: str, title: str) -> int:
        if url not in places:
            places[url] = db.execute(
                "INSERT INTO moz_places (url, title) VALUES (?, ?)", (url, title)
            ).lastrowid
        return places[url]

    def folder(fid: int, parent: int, title: str, guid: str) -> None:
        db.execute(
            "INSERT INTO moz_bookmarks (id, type, parent, title, guid) VALUES (?, 2, ?, ?, ?)",
            (fid, parent, title, guid),
        )

    folder(1, 0, "", "root________")
    folder(2, 1, "menu", "menu________")
    folder(3, 1, "toolbar", "toolbar_____")
    folder(4, 1, "tags", "tags________")
    folder(5, 1, "unfiled", "unfiled_____")
    folder(10, 3, "Rust", "rustfolder01")
    folder(11, 4, "mytag", "tagfolder001")
    folder(12, 2, "Mozilla Firefox", "mozfolder001")
    parents = {"toolbar": 3, "Rust": 10, "tag": 11, "menu": 2, "Mozilla Firefox": 12}
    for where, url, title in bookmarks:
        db.execute(
            "INSERT INTO moz_bookmarks (type, fk, parent, title, guid) VALUES (1, ?, ?, ?, ?)",
            (place(url, title), parents[where], title, f"bm{len(places):010d}"),
        )
    for url, title, when in visits:
        db.execute(
            "INSERT INTO moz_historyvisits (place_id, visit_date, visit_type) VALUES (?, ?, 1)",
            (place(url, title), int(when.timestamp() * 1_000_000)),
        )
    return db


def build_browsers(fake: Fake) -> sqlite3.Connection:
    recent, old = NOW - timedelta(days=2), NOW - timedelta(days=90)
    chrome = fake.home / ".config" / "google-chrome" / "Default"
    write(chrome / "Bookmarks", json.dumps({"version": 1, "roots": {
        "bookmark_bar": {"type": "folder", "name": "Bookmarks bar", "children": [
            {"type": "url", "name": SECRET, "url": "https://www.python.org/about/?q=" + SECRET},
            {"type": "folder", "name": "Cooking", "children": [
                {"type": "url", "name": SECRET, "url": "https://www.seriouseats.com/x"},
                {"type": "url", "name": "js", "url": "javascript:alert(1)"},
                {"type": "folder", "name": "Baking", "children": [
                    {"type": "url", "name": SECRET, "url": "http://kingarthurbaking.com/r"},
                ]},
            ]},
        ]},
        "other": {"type": "folder", "name": "Other bookmarks", "children": [
            {"type": "url", "name": SECRET, "url": "https://news.ycombinator.com/item?id=1"},
        ]},
        "synced": {"type": "folder", "name": "Mobile bookmarks", "children": []},
    }}))  # fmt: skip
    chromium_history(chrome / "History", [
        ("https://github.com/amd/gaia", SECRET, recent),
        ("https://github.com/amd/gaia", SECRET, recent),
        ("https://github.com/other", SECRET, recent),
        ("https://www.bbc.co.uk/news", SECRET, recent),
        ("https://old-site.example/", SECRET, old),
        ("https://old-site.example/", SECRET, old),
        ("https://old-site.example/", SECRET, old),
        ("file:///home/alice/private.txt", SECRET, recent),
    ])  # fmt: skip
    write(chrome.parent / "System Profile" / "Bookmarks", "{}")  # not a person's profile
    profile = fake.home / ".mozilla" / "firefox" / "abcd.default-release"
    profile.mkdir(parents=True)
    return firefox_places(
        profile / "places.sqlite",
        bookmarks=[
            ("toolbar", "https://crates.io/", SECRET),
            ("Rust", "https://doc.rust-lang.org/std/", SECRET),
            ("Rust", "https://www.python.org/", SECRET),
            ("tag", "https://doc.rust-lang.org/std/", SECRET),
            ("tag", "https://tagged-only.example/", SECRET),
            ("Mozilla Firefox", "https://support.mozilla.org/", "Get Help"),
        ],
        visits=[
            ("https://github.com/x", SECRET, recent),
            ("https://en.wikipedia.org/wiki/Zebra", SECRET, recent),
            ("https://old-firefox.example/", SECRET, old),
        ],
    )


def build_mail(fake: Fake) -> None:
    profile = fake.home / ".thunderbird" / "k3j2.default"
    write(profile / "prefs.js", "\n".join([
        '// Mozilla User Preferences',
        'user_pref("mail.identity.id1.fullName", "Alice Example");',
        'user_pref("mail.identity.id1.useremail", "alice@example.org");',
        'user_pref("mail.identity.id2.useremail", "a.work@corp.example.com");',
        'user_pref("mail.identity.id3.useremail", "not an address");',
        'user_pref("mail.server.server1.hostname", "imap.example.org");',
        f'user_pref("mail.identity.id1.htmlSigText", "{SECRET}");',
    ]))  # fmt: skip
    write(profile / "Mail" / "Local Folders" / "Inbox", f"From: x\n\n{SECRET}\n")
    write(profile / "ImapMail" / "imap.example.org" / "INBOX", SECRET)


def build(tmp: Path) -> tuple[Fake, sqlite3.Connection]:
    fake = Fake(home=tmp / "home" / "alice", system=tmp / "machine", outside=tmp / "outside")
    for path in (fake.home, fake.system, fake.outside):
        path.mkdir(parents=True)
    build_projects(fake)
    build_apps(fake)
    browser = build_browsers(fake)
    build_mail(fake)
    return fake, browser
