"""Each scanner against a fake home: exact findings, and nothing from file contents."""

import os
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from discovery import scanners
from discovery.scanners import (
    apps,
    bookmarks,
    email_accounts,
    git_repos,
    history,
    manifests,
    projects,
)
from discovery.scanners.base import Found, run_scanner
from tests.discovery.fakehome import SECRET, write


def found(scanner, ctx) -> list[tuple]:
    report = run_scanner(scanner, ctx)
    assert report.error is None, report.error
    return [(f.content, f.category, f.context, f.entity, f.sensitive) for f in report.findings]


def test_it_names_projects_and_their_languages_from_file_extensions(ctx):
    assert found(projects.SCANNER, ctx) == [
        ("Programs in JavaScript, Go, Python, Rust, Shell and TypeScript", "skill", "work", "",
         False),
        ("Project 'escape' (~/src/escape) is written in JavaScript", "fact", "work",
         "project:escape", False),
        ("Project 'gaia' (~/src/gaia) is written in Python and TypeScript", "fact", "work",
         "project:gaia", False),
        ("Project 'goservice' (~/src/goservice) is written in Go", "fact", "work",
         "project:goservice", False),
        ("Project 'tool-rs' (~/src/tool-rs) is written in Rust", "fact", "work",
         "project:tool-rs", False),
        ("Project 'webapp' (~/src/webapp) is written in JavaScript", "fact", "work",
         "project:webapp", False),
        ("Project 'misc' (~/src/misc) is written in Shell", "fact", "work", "project:misc",
         False),
    ]  # fmt: skip


def test_it_reads_git_remotes_and_branches_without_credentials_and_the_git_name(ctx):
    assert found(git_repos.SCANNER, ctx) == [
        ("Uses the name 'Alice Example' for git commits", "fact", "work", "", False),
        ("Git repository 'gaia' (~/src/gaia): remotes origin github.com/amd/gaia, upstream "
         "gitlab.com/team/gaia; branches feature/recall, main, release-1.0", "fact", "work",
         "project:gaia", False),
        ("Git repository 'webapp' (~/src/webapp): no remote", "fact", "work", "project:webapp",
         False),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("url", "location"),
    [
        ("https://alice:s3cret@github.com:8443/amd/gaia.git", "github.com/amd/gaia"),
        ("git@github.com:amd/gaia.git", "github.com/amd/gaia"),
        (
            "ssh://git@gitlab.example.org:2222/team/sub/repo.git/",
            "gitlab.example.org/team/sub/repo",
        ),
        ("file:///srv/git/repo.git", None),
        ("/srv/git/repo.git", None),
        ("../sibling", None),
        ("C:/Users/alice/repo", None),
    ],
)
def test_it_reduces_remote_urls_to_host_and_path(url, location):
    assert git_repos.gitconfig.remote_location(url) == location


def test_it_reads_declared_names_and_dependencies_from_manifests_only(ctx):
    assert found(manifests.SCANNER, ctx) == [
        ("Project 'gaia' (pyproject.toml, package 'gaia-memory') depends on django, httpx, "
         "numpy", "fact", "work", "project:gaia", False),
        ("Project 'goservice' (go.mod, package 'github.com/alice/goservice') depends on "
         "github.com/google/uuid, github.com/spf13/cobra", "fact", "work", "project:goservice",
         False),
        ("Project 'tool-rs' (Cargo.toml) depends on insta, serde, tokio", "fact", "work",
         "project:tool-rs", False),
        ("Project 'webapp' (package.json, package '@alice/webapp') depends on react, vite",
         "fact", "work", "project:webapp", False),
    ]  # fmt: skip


def test_it_reads_poetry_manifests_and_reports_a_broken_one_without_failing(ctx, fake):
    write(fake.src / "poet" / "pyproject.toml",
          '[tool.poetry]\nname = "poet"\n[tool.poetry.dependencies]\npython = "^3.11"\n'
          'Requests = "^2"\n')  # fmt: skip
    write(fake.src / "broken" / "package.json", "{not json")
    report = run_scanner(manifests.SCANNER, ctx)
    assert report.error is None
    assert "Project 'poet' (pyproject.toml) depends on requests" in [
        f.content for f in report.findings
    ]
    assert report.warnings == ["broken/package.json could not be parsed: JSONDecodeError"]


def test_it_lists_installed_linux_applications_by_category_and_notable_packages(ctx):
    assert found(apps.SCANNER, ctx) == [
        ("Installed development tools: Visual Studio Code", "fact", "global", "", False),
        ("Installed games: Tetris", "fact", "global", "", False),
        ("Installed graphics applications: GIMP", "fact", "global", "", False),
        ("Installed internet applications: Firefox", "fact", "global", "", False),
        ("Installed other applications: Plain Tool", "fact", "global", "", False),
        ("Installed packages include git, postgresql-16", "fact", "global", "", False),
    ]


def test_it_lists_macos_applications_from_both_application_folders(ctx, fake):
    (fake.system / "Applications" / "Slack.app" / "Contents").mkdir(parents=True)
    (fake.system / "Applications" / "Visual Studio Code.app").mkdir(parents=True)
    (fake.home / "Applications" / "Obsidian.app").mkdir(parents=True)
    write(fake.system / "Applications" / "notes.txt", SECRET)
    assert found(apps.SCANNER, replace(ctx, platform="darwin")) == [
        ("Installed applications: Obsidian, Slack, Visual Studio Code", "fact", "global", "",
         False)
    ]  # fmt: skip


def test_it_lists_windows_start_menu_shortcuts_by_name_without_opening_them(ctx, fake):
    user_menu = fake.home / "AppData/Roaming/Microsoft/Windows/Start Menu/Programs"
    shared_menu = fake.system / "ProgramData/Microsoft/Windows/Start Menu/Programs"
    write(user_menu / "Spotify.lnk", SECRET)
    write(user_menu / "Python 3.12" / "IDLE (Python 3.12).lnk", SECRET)
    write(user_menu / "Python 3.12" / "Python 3.12 Manuals.lnk", SECRET)
    write(shared_menu / "Blender" / "Uninstall Blender.lnk", SECRET)
    write(shared_menu / "Blender" / "Blender 4.1.lnk", SECRET)
    write(shared_menu / "desktop.ini", SECRET)
    assert found(apps.SCANNER, replace(ctx, platform="windows")) == [
        ("Installed applications: Blender 4.1, IDLE (Python 3.12), Spotify", "fact", "global",
         "", False)
    ]  # fmt: skip


def test_it_groups_bookmarked_domains_by_folder_from_chromium_and_firefox(ctx):
    assert found(bookmarks.SCANNER, ctx) == [
        ("Bookmarked sites: crates.io, news.ycombinator.com, python.org", "fact", "global", "",
         False),
        ("Bookmarked sites in the folder 'Baking': kingarthurbaking.com", "fact", "global", "",
         False),
        ("Bookmarked sites in the folder 'Cooking': seriouseats.com", "fact", "global", "",
         False),
        ("Bookmarked sites in the folder 'Rust': doc.rust-lang.org, python.org", "fact",
         "global", "", False),
    ]  # fmt: skip


def test_it_finds_the_most_visited_domains_of_the_last_days_always_sensitive(ctx):
    assert found(history.SCANNER, ctx) == [
        ("Often visits github.com", "fact", "global", "", True),
        ("Often visits bbc.co.uk", "fact", "global", "", True),
        ("Often visits en.wikipedia.org", "fact", "global", "", True),
    ]
    assert found(history.SCANNER, replace(ctx, days=365))[0] == (
        "Often visits github.com", "fact", "global", "", True
    )  # fmt: skip
    assert ("Often visits old-site.example", "fact", "global", "", True) in found(
        history.SCANNER, replace(ctx, days=365)
    )


def test_it_finds_e_mail_addresses_only_always_sensitive(ctx):
    assert found(email_accounts.SCANNER, ctx) == [
        ("Uses the e-mail address a.work@corp.example.com (Thunderbird)", "fact", "global", "",
         True),
        ("Uses the e-mail address alice@example.org (Thunderbird, git)", "fact", "global", "",
         True),
    ]  # fmt: skip


@pytest.mark.parametrize("platform", ["darwin", "windows"])
def test_it_finds_browser_and_mail_files_in_macos_and_windows_locations(ctx, fake, platform):
    chrome = {
        "darwin": "Library/Application Support/Google/Chrome/Profile 1",
        "windows": "AppData/Local/Microsoft/Edge/User Data/Default",
    }[platform]
    thunderbird = {
        "darwin": "Library/Thunderbird/Profiles/x.default",
        "windows": "AppData/Roaming/Thunderbird/Profiles/x.default",
    }[platform]
    write(fake.home / chrome / "Bookmarks", '{"roots": {"other": {"children": ['
          '{"type": "url", "name": "n", "url": "https://lobste.rs/"}]}}}')  # fmt: skip
    write(fake.home / thunderbird / "prefs.js",
          'user_pref("mail.identity.id9.useremail", "mac-or-win@example.net");')  # fmt: skip
    other = replace(ctx, platform=platform)
    assert found(bookmarks.SCANNER, other) == [
        ("Bookmarked sites: lobste.rs", "fact", "global", "", False)
    ]
    assert found(email_accounts.SCANNER, other) == [
        ("Uses the e-mail address alice@example.org (git)", "fact", "global", "", True),
        ("Uses the e-mail address mac-or-win@example.net (Thunderbird)", "fact", "global", "",
         True),
    ]  # fmt: skip


def test_no_finding_contains_file_page_or_mail_contents(ctx):
    reports = scanners.run_scanners(scanners.select(None), ctx)
    assert all(r.error is None for r in reports)
    text = repr([r.findings for r in reports])
    assert sum(len(r.findings) for r in reports) == 29
    for leak in (SECRET, "ghp_", "alice:", "Alice Example\\n", "q=", "imap.example.org"):
        assert leak not in text


def test_symlinks_out_of_the_roots_are_not_followed(ctx):
    text = repr([r.findings for r in scanners.run_scanners(scanners.select(None), ctx)])
    for name in ("stolen", "link-out", "evil", "leak"):
        assert name not in text


def test_a_symlink_loop_inside_a_root_ends(ctx, fake):
    (fake.src / "gaia" / "loop").symlink_to(fake.src, target_is_directory=True)
    assert found(projects.SCANNER, ctx)[0][0].startswith("Programs in")


_events: list[tuple[str, str]] | None = None


def _audit(event: str, args: tuple) -> None:
    if _events is not None and event in ("open", "sqlite3.connect") and args:
        _events.append((event, str(args[0])))


sys.addaudithook(_audit)  # hooks cannot be removed: it records only inside the test below
ALLOWED = {
    "config", "packed-refs", ".gitconfig", "pyproject.toml", "package.json", "Cargo.toml",
    "go.mod", "status", "Bookmarks", "History", "places.sqlite", "places.sqlite-wal",
    "prefs.js",
}  # fmt: skip


def test_it_opens_only_the_metadata_files_it_names(ctx, fake, tmp_path):
    global _events
    _events = []
    try:
        scanners.run_scanners(scanners.select(None), ctx)
        events = list(_events)
    finally:
        _events = None
    opened = [Path(p) for e, p in events if e == "open" and p.startswith(str(tmp_path))]
    names = {p.name for p in opened}
    assert {"config", "Bookmarks", "History", "places.sqlite", "prefs.js"} <= names
    unexpected = {p for p in opened if p.name not in ALLOWED and p.suffix != ".desktop"}
    assert unexpected == set()
    assert not any("objects" in p.parts or "Mail" in p.parts for p in opened)
    databases = [p for e, p in events if e == "sqlite3.connect"]
    assert len(databases) == 3  # Chrome History, Firefox places.sqlite twice
    assert all("/gaia-discovery-" in p and p.endswith("/copy.sqlite?mode=ro") for p in databases)


def test_a_running_firefox_keeps_its_lock_and_its_file_untouched(ctx, fake, browser):
    places = next((fake.home / ".mozilla" / "firefox").iterdir()) / "places.sqlite"
    browser.execute("PRAGMA locking_mode=EXCLUSIVE")
    browser.execute("BEGIN EXCLUSIVE")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        sqlite3.connect(places.as_uri() + "?mode=ro", uri=True, timeout=0).execute(
            "SELECT count(*) FROM moz_places"
        ).fetchall()
    before = places.read_bytes(), sorted(p.name for p in places.parent.iterdir())
    try:
        assert "Often visits en.wikipedia.org" in [c for c, *_ in found(history.SCANNER, ctx)]
        assert found(bookmarks.SCANNER, ctx)[-1][0].endswith(
            "'Rust': doc.rust-lang.org, python.org"
        )
        assert (places.read_bytes(), sorted(p.name for p in places.parent.iterdir())) == before
    finally:
        browser.execute("ROLLBACK")


def test_a_broken_browser_database_is_a_warning_and_the_rest_is_still_read(ctx, fake):
    write(fake.home / ".config" / "chromium" / "Default" / "History", "not a database " * 100)
    report = run_scanner(history.SCANNER, ctx)
    assert report.error is None
    assert report.warnings == ["Chromium Default: History unreadable (file is not a database)"]
    assert [f.content for f in report.findings][0] == "Often visits github.com"


def test_a_failing_scanner_reports_why_and_the_others_go_on(ctx):
    def explode(ctx, state):
        yield Found("Partial finding before the failure")
        raise PermissionError("no access to /secret")

    broken = scanners.Scanner(name="broken", description="fails", scan=explode)
    reports = scanners.run_scanners([broken, scanners.SCANNERS["email"]], ctx)
    assert reports[0].error == "PermissionError: no access to /secret"
    assert [f.content for f in reports[0].findings] == ["Partial finding before the failure"]
    assert "failed (PermissionError: no access to /secret)" in reports[0].summary()
    assert reports[1].error is None and len(reports[1].findings) == 2


def test_each_scanner_stops_at_its_count_and_time_limits(ctx):
    report = run_scanner(projects.SCANNER, replace(ctx, max_findings=2))
    assert len(report.findings) == 2 and report.truncated
    report = run_scanner(projects.SCANNER, replace(ctx, time_limit=0))
    assert report.findings == [] and report.truncated
    report = run_scanner(projects.SCANNER, replace(ctx, max_entries=3))
    assert report.truncated


def test_always_sensitive_scanners_mark_every_finding_sensitive(ctx):
    def plain(ctx, state):
        yield Found("Often visits example.org", sensitive=False)

    scanner = scanners.Scanner(name="history", description="", scan=plain, always_sensitive=True)
    assert run_scanner(scanner, ctx).findings[0].sensitive is True
    assert scanners.ALWAYS_SENSITIVE == {"history", "email"}


def test_unknown_sources_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown source"):
        scanners.select(["projects", "mailbodies"])
    assert [s.name for s in scanners.select(["email", "git"])] == ["git", "email"]


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux only")
def test_a_folder_name_that_is_not_utf8_becomes_readable_valid_text(ctx, fake):
    write(fake.src / os.fsdecode(b"caf\xe9") / "main.py", "print(1)\n")  # "caf\udce9"

    contents = [content for content, *_ in found(projects.SCANNER, ctx)]

    assert "Project 'caf\ufffd' (~/src/caf\ufffd) is written in Python" in contents
    assert all(c.encode("utf-8") for c in contents)
