"""A small reader for git's config format and remote URLs (git itself is never run)."""

import re
from urllib.parse import urlsplit

_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_SCP = re.compile(r"^(?:[\w.+-]+@)?([\w.-]+):(?!//)(.+)$")

GitConfig = dict[tuple[str, str], dict[str, list[str]]]


def parse(text: str) -> GitConfig:
    """{(section, subsection): {key: [values]}}; section and key names lower-cased."""
    config: GitConfig = {}
    section: tuple[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        match = _SECTION.match(line)
        if match:
            name, sub = match.group(1).lower(), match.group(2)
            if sub is None and "." in name:  # legacy [section.subsection]
                name, sub = name.split(".", 1)
            section = (name, (sub or "").replace('\\"', '"').replace("\\\\", "\\"))
            continue
        if section is None:
            continue
        key, sep, value = line.partition("=")
        key = key.strip().lower()
        if not re.fullmatch(r"[a-z][a-z0-9-]*", key):
            continue
        config.setdefault(section, {}).setdefault(key, []).append(_value(value) if sep else "true")
    return config


def _value(raw: str) -> str:
    """Unquote a value and drop a trailing comment outside quotes."""
    out, quoted, escaped = [], False, False
    for char in raw.strip():
        if escaped:
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(char, char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def get(config: GitConfig, section: str, key: str, sub: str = "") -> str | None:
    """The last value of a key, as git itself resolves repeats."""
    values = config.get((section, sub), {}).get(key)
    return values[-1] if values else None


def remote_location(url: str) -> str | None:
    """'github.com/owner/repo' from any remote URL form, without user, password or port.

    Local paths give None: they say nothing beyond the folder that was scanned.
    """
    url = url.strip()
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme == "file" or not parts.hostname:
            return None
        host, path = parts.hostname, parts.path
    else:
        match = _SCP.match(url)
        if not match or len(match.group(1)) == 1:  # C:\path is a Windows drive, not a host
            return None
        host, path = match.groups()
    path = path.strip("/").removesuffix(".git").strip("/")
    return f"{host.lower()}/{path}" if path else host.lower()
