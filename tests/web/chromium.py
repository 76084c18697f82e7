"""Where the browser tests find a Chromium: GAIA_CHROMIUM when set, else the first of the
usual names on PATH and the usual install paths (Debian, Ubuntu, Fedora, snap, Homebrew,
macOS apps). Playwright's own download is never fetched (no `playwright install`)."""

import os
import shutil
from pathlib import Path

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
PATHS = (
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/usr/lib64/chromium-browser/chromium-browser",
    "/snap/bin/chromium",
    "/opt/google/chrome/chrome",
    "/opt/homebrew/bin/chromium",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)


def find_chromium() -> str | None:
    """The Chromium to drive, or None (GAIA_CHROMIUM naming a missing file is None too)."""
    given = os.environ.get("GAIA_CHROMIUM", "").strip()
    if given:
        return given if Path(given).is_file() else None
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return next((path for path in PATHS if Path(path).is_file()), None)


def missing_reason() -> str:
    given = os.environ.get("GAIA_CHROMIUM", "").strip()
    if given:
        return f"GAIA_CHROMIUM={given} is not a file"
    return (
        f"no Chromium found (looked for {', '.join(NAMES)} on PATH and in {', '.join(PATHS)}): "
        "install one (Debian: apt-get install chromium) or set GAIA_CHROMIUM to its path"
    )
