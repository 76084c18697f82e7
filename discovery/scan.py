"""Standalone discovery client: scan this computer and send the findings to a Gaia server.

    python -m discovery.scan --server https://memory.example.org --token gaia_... [--dry-run]

Needs only the standard library and httpx (no Django): copy the `discovery/__init__.py`,
`discovery/scan.py` and `discovery/scanners/` files, or run it from a checkout. Findings
arrive as proposals; nothing becomes memory until you approve it in the web app or API.
The token may also come from the GAIA_TOKEN environment variable.
"""

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

import httpx

from discovery import scanners
from discovery.scanners.base import DEFAULT_DAYS, DEFAULT_TIME_LIMIT, ScanContext

FINDINGS_PATH = "/api/v1/discovery/findings/"
BATCH = 500


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m discovery.scan", description=__doc__.split("\n")[0])
    p.add_argument("--server", help="Gaia server URL, e.g. http://127.0.0.1:8000")
    p.add_argument("--token", help="API token (default: $GAIA_TOKEN)")
    p.add_argument("--sources", nargs="+", choices=list(scanners.SCANNERS), help="default: all")
    p.add_argument("--roots", nargs="+", type=Path, help="project folders (default: ~/src...)")
    p.add_argument("--home", type=Path, default=None, help="home directory to scan")
    p.add_argument("--system-root", type=Path, default=None, help="machine root (default /)")
    p.add_argument("--days", type=int, default=DEFAULT_DAYS, help="browser history window")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                   help="seconds per scanner")  # fmt: skip
    p.add_argument("--timeout", type=float, default=30.0, help="HTTP timeout in seconds")
    p.add_argument("--dry-run", action="store_true", help="print the findings, send nothing")
    return p


def _error(response: httpx.Response) -> str:
    """The server's message, its status and the request's id (the server's log lines for
    the request carry the same id: what an operator looks for)."""
    request_id = response.headers.get("X-Request-ID")
    said = f"HTTP {response.status_code}" + (f", request {request_id}" if request_id else "")
    try:
        return f"{response.json()['error']['message']} ({said})"
    except (ValueError, KeyError, TypeError):  # not the API's answer: a proxy's, say
        return said


def main(
    argv: list[str] | None = None,
    out: TextIO | None = None,
    *,
    transport: httpx.BaseTransport | None = None,
) -> int:
    """Run the client; its exit code (0 sent, 1 refused, 2 not run or unreachable).
    `transport`: another way to the server than the network (tests)."""
    args = parser().parse_args(argv)
    out = out or sys.stdout
    token = args.token or os.environ.get("GAIA_TOKEN", "")
    if not args.dry_run and not (args.server and token):
        print("Give --server and --token (or GAIA_TOKEN), or use --dry-run.", file=out)
        return 2
    if args.dry_run:
        return _scan(args, None, out)
    client = httpx.Client(
        base_url=args.server.rstrip("/"),
        headers={"Authorization": f"Bearer {token}"},
        timeout=args.timeout,
        transport=transport,
    )
    with client:
        try:  # ask first, so a refused account does not scan for nothing
            check = client.get(FINDINGS_PATH, params={"page_size": 1})
        except httpx.HTTPError as error:
            print(f"Cannot reach {args.server}: {error}", file=out)
            return 2
        if check.status_code != 200:
            print(f"The server refused: {_error(check)}", file=out)
            return 1
        return _scan(args, client, out)


def _scan(args: argparse.Namespace, client: httpx.Client | None, out: TextIO) -> int:
    ctx = ScanContext(
        home=(args.home or Path.home()).expanduser(),
        roots=tuple(args.roots or ()),
        system_root=args.system_root or Path(os.environ.get("SystemDrive", "") + "/"),
        days=max(1, args.days),
        time_limit=args.time_limit,
    )
    reports = scanners.run_scanners(
        scanners.select(args.sources), ctx, on_report=lambda r: print(r.summary(), file=out)
    )
    found = [f.as_dict() for r in reports for f in r.findings]
    if client is None:
        for f in found:
            print(f"  [{f['scanner']}] {f['content']}{' [sensitive]' * f['sensitive']}", file=out)
        print(f"Dry run: {len(found)} finding(s), nothing sent.", file=out)
        return 0
    return _send(client, found, out)


def _send(client: httpx.Client, found: list[dict], out: TextIO) -> int:
    created, skipped = 0, {}
    for start in range(0, len(found), BATCH):
        try:
            response = client.post(FINDINGS_PATH, json={"findings": found[start : start + BATCH]})
        except httpx.HTTPError as error:
            print(f"Sending failed: {error}", file=out)
            return 2
        if response.status_code not in (200, 201):
            print(f"The server refused the findings: {_error(response)}", file=out)
            return 1
        body = response.json()
        created += body["created"]
        for why, n in body["skipped"].items():
            skipped[why] = skipped.get(why, 0) + n
    detail = ", ".join(f"{n} {why}" for why, n in skipped.items() if n) or "none"
    print(
        f"Sent {len(found)} finding(s): {created} new proposal(s), skipped {detail}. "
        "Review them in the web app (Discovery).",
        file=out,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
