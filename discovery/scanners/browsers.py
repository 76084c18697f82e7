"""What the bookmark and history scanners share: domains from URLs and the places
where each browser keeps its files."""

from urllib.parse import urlsplit


def domain(url: object) -> str | None:
    """'docs.python.org' from an http(s) URL (no 'www.', no path, query or user); else None."""
    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    return host.lower().removeprefix("www.")
