"""The common scanner interface: what a scan is given, what it yields, how it is bounded.

Standard library only: the standalone client (`python -m discovery.scan`) imports this
package on a user's laptop, where Django is not installed.
"""

import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_TIME_LIMIT = 30.0  # seconds per scanner
DEFAULT_MAX_FINDINGS = 100  # findings per scanner
DEFAULT_MAX_ENTRIES = 200_000  # directory entries a scanner may look at
DEFAULT_DAYS = 30  # browser history window


def current_platform() -> str:
    """'linux', 'darwin' or 'windows' (other Unixes scan like Linux)."""
    if sys.platform.startswith("win"):
        return "windows"
    return "darwin" if sys.platform == "darwin" else "linux"


@dataclass(frozen=True)
class ScanContext:
    """Where to look. Every location is derived from `home` and `system_root`, so a test
    (or an operator scanning for another account) can point a scan at any directory."""

    home: Path
    roots: tuple[Path, ...] = ()
    platform: str = field(default_factory=current_platform)
    system_root: Path = Path("/")
    days: int = DEFAULT_DAYS
    time_limit: float = DEFAULT_TIME_LIMIT
    max_findings: int = DEFAULT_MAX_FINDINGS
    max_entries: int = DEFAULT_MAX_ENTRIES
    now: datetime = field(default_factory=lambda: datetime.now(UTC))


def valid_text(value: str) -> str:
    """`value` with every lone surrogate replaced by U+FFFD. A file name that is not UTF-8
    comes back from the OS with its bad bytes as lone surrogates, which no JSON encoder
    or database takes (the server refuses them); the rest of the name stays readable.
    (The server's own rule is core.text; this package cannot import Django code.)"""
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@dataclass(frozen=True)
class Found:
    """One proposed fact, its text always valid. `scanner` is filled in by the runner."""

    content: str
    category: str = "fact"
    context: str = "global"
    entity: str = ""
    sensitive: bool = False
    scanner: str = ""

    def __post_init__(self) -> None:
        for name in ("content", "context", "entity"):
            object.__setattr__(self, name, valid_text(getattr(self, name)))

    def as_dict(self) -> dict:
        return {
            "content": self.content,
            "category": self.category,
            "context": self.context,
            "entity": self.entity,
            "sensitive": self.sensitive,
            "scanner": self.scanner,
        }


class ScanState:
    """The budget of one scanner run (time and directory entries) and its warnings.

    Scanners call `tick()` per directory entry or row and stop when it returns False;
    the runner also stops waiting for findings once the time is up.
    """

    def __init__(self, ctx: ScanContext, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.deadline = clock() + ctx.time_limit
        self.max_entries = ctx.max_entries
        self.entries = 0
        self.truncated = False
        self.warnings: list[str] = []

    def time_up(self) -> bool:
        if self._clock() >= self.deadline:
            self.truncated = True
            return True
        return False

    def expired(self) -> bool:
        """Time is up or enough entries were looked at: stop walking and reading."""
        if self.time_up() or self.entries >= self.max_entries:
            self.truncated = True
            return True
        return False

    def tick(self, n: int = 1) -> bool:
        """Count `n` entries looked at; False once the budget is spent."""
        self.entries += n
        return not self.expired()

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


ScanFunction = Callable[[ScanContext, ScanState], Iterable[Found]]


@dataclass(frozen=True)
class Scanner:
    name: str
    description: str
    scan: ScanFunction
    always_sensitive: bool = False


@dataclass
class ScanReport:
    scanner: str
    findings: list[Found] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    truncated: bool = False
    seconds: float = 0.0

    def summary(self) -> str:
        """One line for progress output."""
        if self.error:
            text = f"{self.scanner}: failed ({self.error}); kept {len(self.findings)} finding(s)"
        else:
            text = f"{self.scanner}: {len(self.findings)} finding(s) in {self.seconds:.1f}s"
        if self.truncated:
            text += " (stopped at its time or size limit)"
        return text + "".join(f"\n  warning: {w}" for w in self.warnings)


def run_scanner(scanner: Scanner, ctx: ScanContext) -> ScanReport:
    """Run one scanner inside its budget. An exception ends that scanner only: the report
    says why and keeps what was found before it."""
    state = ScanState(ctx)
    report = ScanReport(scanner=scanner.name)
    started = time.monotonic()
    seen: set[str] = set()
    try:
        for found in scanner.scan(ctx, state):
            key = " ".join(found.content.lower().split())
            if key in seen:
                continue
            seen.add(key)
            if len(report.findings) >= ctx.max_findings:
                state.truncated = True
                break
            report.findings.append(_stamp(found, scanner))
            if state.time_up():  # what is already computed is kept; no more is waited for
                break
    except Exception as error:  # noqa: BLE001 - one scanner's failure must not stop the rest
        report.error = f"{type(error).__name__}: {error}"
    report.truncated = state.truncated
    report.warnings = list(state.warnings)
    report.seconds = time.monotonic() - started
    return report


def _stamp(found: Found, scanner: Scanner) -> Found:
    return Found(
        content=found.content,
        category=found.category,
        context=found.context,
        entity=found.entity,
        sensitive=found.sensitive or scanner.always_sensitive,
        scanner=scanner.name,
    )


def run_scanners(
    scanners: Iterable[Scanner],
    ctx: ScanContext,
    on_report: Callable[[ScanReport], None] | None = None,
) -> list[ScanReport]:
    reports = []
    for scanner in scanners:
        report = run_scanner(scanner, ctx)
        if on_report is not None:
            on_report(report)
        reports.append(report)
    return reports


_SLUG = re.compile(r"[^a-z0-9._-]+")


def entity_for(kind: str, name: str) -> str:
    """'project:my_app' from ('project', 'My App')."""
    slug = _SLUG.sub("_", name.strip().lower()).strip("_")
    return f"{kind}:{slug}"[:200] if slug else ""


def join_limited(names: Iterable[str], limit: int) -> str:
    """'a, b, c and 4 more' — keeps one finding readable however long the list."""
    names = list(names)
    shown = ", ".join(names[:limit])
    return f"{shown} and {len(names) - limit} more" if len(names) > limit else shown


def iter_unique(items: Iterable[str]) -> Iterator[str]:
    seen: set[str] = set()
    for item in items:
        if item not in seen:
            seen.add(item)
            yield item
