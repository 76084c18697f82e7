"""Installed applications: names from launcher entries, never the programs themselves.

Linux: .desktop entries (the [Desktop Entry] Name, Categories and visibility keys) and
notable packages from the dpkg/pacman/Homebrew package lists when readable. macOS: *.app
names in /Applications and ~/Applications. Windows: Start Menu shortcut names (.lnk files
are not opened) and, on a Windows machine itself, the registry's uninstall entries.
"""

import re
import sys
from collections.abc import Iterator
from pathlib import Path

from discovery.scanners import fs, paths
from discovery.scanners.base import Found, ScanContext, Scanner, ScanState, join_limited

NAMES_SHOWN = 25
_GROUPS = [
    ("Development", "development tools"),
    ("Graphics", "graphics applications"),
    ("AudioVideo", "audio and video applications"),
    ("Audio", "audio and video applications"),
    ("Video", "audio and video applications"),
    ("Office", "office applications"),
    ("Game", "games"),
    ("Network", "internet applications"),
    ("Science", "science and education applications"),
    ("Education", "science and education applications"),
    ("Utility", "utilities"),
]
_DESKTOP_PLUMBING = {"System", "Settings", "DesktopSettings", "Core", "Screensaver"}
_NOISE = re.compile(
    r"uninstall|readme|read me|help|website|documentation|release notes|license|manual",
    re.I,
)
# Packages worth a line in memory; the thousands of libraries are not.
_NOTABLE = re.compile(
    r"^(docker(\.io|-ce)?|podman|postgresql(-\d+)?|mysql-server|mariadb(-server)?|"
    r"redis(-server)?|sqlite3?|nginx|apache2|httpd|git|git-lfs|neovim|vim|emacs|code|"
    r"nodejs|golang(-go)?|go|rustc|rustup|cargo|python3|openjdk(-\d+)?(-jdk)?|gcc|clang|"
    r"cmake|kubectl|helm|terraform|ansible|virtualbox|qemu(-system-x86)?|texlive|r-base|"
    r"julia|ruby|php|ffmpeg|gimp|inkscape|blender|kicad|wireshark|tmux|zsh|fish|syncthing|"
    r"tailscale|wireguard(-tools)?|steam)$"
)


def _desktop_entry(text: str) -> dict[str, str]:
    """The unlocalised keys of the [Desktop Entry] group."""
    entry, inside_group = {}, False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            inside_group = line == "[Desktop Entry]"
        elif inside_group and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            entry.setdefault(key.strip(), value.strip())
    return entry


def _group(categories: list[str]) -> str | None:
    for category, group in _GROUPS:
        if category in categories:
            return group
    return None if _DESKTOP_PLUMBING & set(categories) else "other applications"


def linux_apps(ctx: ScanContext, state: ScanState) -> dict[str, set[str]]:
    groups: dict[str, set[str]] = {}
    seen_ids: set[str] = set()  # a user's entry overrides the system one with the same id
    for directory, base in paths.desktop_entry_dirs(ctx):
        for path in fs.files(directory, state):
            if path.suffix != ".desktop" or path.name in seen_ids:
                continue
            seen_ids.add(path.name)
            entry = _desktop_entry(fs.read_metadata(path, base, limit=256 * 1024) or "")
            hidden = entry.get("NoDisplay") == "true" or entry.get("Hidden") == "true"
            if entry.get("Type") != "Application" or hidden or not entry.get("Name"):
                continue
            group = _group([c for c in entry.get("Categories", "").split(";") if c])
            if group:
                groups.setdefault(group, set()).add(entry["Name"])
    return groups


def notable_packages(ctx: ScanContext, state: ScanState) -> set[str]:
    root, found = ctx.system_root, set()
    status = fs.read_metadata(root / "var/lib/dpkg/status", root, limit=64 * 1024 * 1024)
    for paragraph in (status or "").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in paragraph.splitlines() if ": " in line[:80])
        if fields.get("Status", "").endswith(" installed"):
            found.add(fields.get("Package", ""))
    for directory in fs.subdirs(root / "var/lib/pacman/local", state):
        found.add(directory.name.rsplit("-", 2)[0])  # name-version-release
    for cellar in ("opt/homebrew/Cellar", "usr/local/Cellar", "home/linuxbrew/.linuxbrew/Cellar"):
        found.update(d.name for d in fs.subdirs(root / cellar, state))
    return {name for name in found if _NOTABLE.match(name)}


def mac_apps(ctx: ScanContext, state: ScanState) -> set[str]:
    return {
        entry.name.removesuffix(".app")
        for directory, _ in paths.mac_application_dirs(ctx)
        for entry in fs.entries(directory, state)
        if entry.name.endswith(".app")
    }


def windows_apps(ctx: ScanContext, state: ScanState) -> set[str]:
    names = set()
    for programs, _ in paths.windows_start_menus(ctx):
        stack = [(programs, 0)]
        while stack:
            directory, depth = stack.pop()
            names.update(p.stem for p in fs.files(directory, state) if p.suffix == ".lnk")
            if depth < 2:
                stack.extend((d, depth + 1) for d in fs.subdirs(directory, state))
    if sys.platform == "win32" and ctx.home == Path.home():
        names.update(_registry_apps())
    return {n for n in names if not _NOISE.search(n)}


def _registry_apps() -> set[str]:  # pragma: no cover - Windows only
    import winreg

    names: set[str] = set()
    uninstall = r"Software\Microsoft\Windows\CurrentVersion\Uninstall"
    wow = r"Software\WOW6432Node\Microsoft\Windows\CurrentVersion\Uninstall"
    for hive in (winreg.HKEY_LOCAL_MACHINE, winreg.HKEY_CURRENT_USER):
        for location in (uninstall, wow):
            try:
                key = winreg.OpenKey(hive, location)
            except OSError:
                continue
            with key:
                for index in range(winreg.QueryInfoKey(key)[0]):
                    try:
                        with winreg.OpenKey(key, winreg.EnumKey(key, index)) as sub:
                            name = winreg.QueryValueEx(sub, "DisplayName")[0]
                            if _registry_flag(winreg, sub, "SystemComponent"):
                                continue
                    except OSError:
                        continue
                    if isinstance(name, str) and name.strip():
                        names.add(name.strip())
    return names


def _registry_flag(winreg, key, name: str) -> bool:  # pragma: no cover - Windows only
    try:
        return winreg.QueryValueEx(key, name)[0] == 1
    except OSError:
        return False


def _sorted(names: set[str]) -> list[str]:
    return sorted(names, key=lambda n: (n.lower(), n))


def scan(ctx: ScanContext, state: ScanState) -> Iterator[Found]:
    if ctx.platform == "linux":
        for group, names in sorted(linux_apps(ctx, state).items()):
            yield Found(f"Installed {group}: {join_limited(_sorted(names), NAMES_SHOWN)}")
        packages = notable_packages(ctx, state)
        if packages:
            yield Found(f"Installed packages include {join_limited(sorted(packages), 40)}")
        return
    names = mac_apps(ctx, state) if ctx.platform == "darwin" else windows_apps(ctx, state)
    if names:
        yield Found(f"Installed applications: {join_limited(_sorted(names), 60)}")


SCANNER = Scanner(
    name="apps",
    description="installed applications (launcher entries, package lists, Start Menu)",
    scan=scan,
)
