"""Where applications keep the metadata files the scanners read, per platform.

Everything is derived from the scan's `home` (and `system_root` for machine-wide
locations), never from the environment, so a test can build a fake home for any platform.
"""

from pathlib import Path

from discovery.scanners.base import ScanContext

# (browser label, user-data directory relative to home) per platform.
_CHROMIUM = {
    "linux": [
        ("Chrome", ".config/google-chrome"),
        ("Chromium", ".config/chromium"),
        ("Brave", ".config/BraveSoftware/Brave-Browser"),
        ("Edge", ".config/microsoft-edge"),
        ("Vivaldi", ".config/vivaldi"),
        ("Chromium", "snap/chromium/common/chromium"),
    ],
    "darwin": [
        ("Chrome", "Library/Application Support/Google/Chrome"),
        ("Chromium", "Library/Application Support/Chromium"),
        ("Brave", "Library/Application Support/BraveSoftware/Brave-Browser"),
        ("Edge", "Library/Application Support/Microsoft Edge"),
        ("Vivaldi", "Library/Application Support/Vivaldi"),
    ],
    "windows": [
        ("Chrome", "AppData/Local/Google/Chrome/User Data"),
        ("Chromium", "AppData/Local/Chromium/User Data"),
        ("Brave", "AppData/Local/BraveSoftware/Brave-Browser/User Data"),
        ("Edge", "AppData/Local/Microsoft/Edge/User Data"),
        ("Vivaldi", "AppData/Local/Vivaldi/User Data"),
    ],
}
_FIREFOX = {
    "linux": [".mozilla/firefox", "snap/firefox/common/.mozilla/firefox"],
    "darwin": ["Library/Application Support/Firefox/Profiles"],
    "windows": ["AppData/Roaming/Mozilla/Firefox/Profiles"],
}
_THUNDERBIRD = {
    "linux": [".thunderbird", "snap/thunderbird/common/.thunderbird"],
    "darwin": ["Library/Thunderbird/Profiles"],
    "windows": ["AppData/Roaming/Thunderbird/Profiles"],
}
_GITCONFIG = [".config/git/config", ".gitconfig"]  # git reads both; the last wins


def _children(base: Path) -> list[Path]:
    try:
        return sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []


def chromium_profiles(ctx: ScanContext) -> list[tuple[str, Path]]:
    """(browser label, profile directory) for every Chromium-family profile."""
    found = []
    for label, relative in _CHROMIUM.get(ctx.platform, []):
        for profile in _children(ctx.home / relative):
            if profile.name == "Default" or profile.name.startswith("Profile "):
                found.append((label, profile))
    return found


def firefox_profiles(ctx: ScanContext) -> list[Path]:
    return [p for rel in _FIREFOX.get(ctx.platform, []) for p in _children(ctx.home / rel)]


def thunderbird_profiles(ctx: ScanContext) -> list[Path]:
    return [p for rel in _THUNDERBIRD.get(ctx.platform, []) for p in _children(ctx.home / rel)]


def gitconfig_files(ctx: ScanContext) -> list[Path]:
    return [ctx.home / relative for relative in _GITCONFIG]


def desktop_entry_dirs(ctx: ScanContext) -> list[tuple[Path, Path]]:
    """(directory, the base it must stay within) holding Linux .desktop files."""
    home, root = ctx.home, ctx.system_root
    return [
        (home / ".local/share/applications", home),
        (home / ".local/share/flatpak/exports/share/applications", home),
        (root / "usr/share/applications", root),
        (root / "usr/local/share/applications", root),
        (root / "var/lib/flatpak/exports/share/applications", root),
        (root / "var/lib/snapd/desktop/applications", root),
    ]


def mac_application_dirs(ctx: ScanContext) -> list[tuple[Path, Path]]:
    return [
        (ctx.system_root / "Applications", ctx.system_root),
        (ctx.home / "Applications", ctx.home),
    ]


def windows_start_menus(ctx: ScanContext) -> list[tuple[Path, Path]]:
    programs = "Microsoft/Windows/Start Menu/Programs"
    return [
        (ctx.home / "AppData/Roaming" / programs, ctx.home),
        (ctx.system_root / "ProgramData" / programs, ctx.system_root),
    ]


def default_roots(ctx: ScanContext) -> list[Path]:
    """Usual project folders under home when the person names none."""
    names = [
        "src", "code", "Code", "projects", "Projects", "dev", "Developer", "work", "repos",
        "git", "workspace", "Documents/GitHub", "source/repos",
    ]  # fmt: skip
    return [ctx.home / n for n in names if (ctx.home / n).is_dir()]
