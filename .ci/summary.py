"""Print each CI pass's tests and times from its JUnit XML report and its wall time.

    python .ci/summary.py REPORTS   # REPORTS/<pass>.xml and REPORTS/passes.tsv
                                    # (pass, seconds, load average at its end)

The test seconds are the sum of every test's own time (set-up, call and teardown) over the
processes that ran them: what the pass cost in CPU, where the wall time is what it took.
"""

import sys
from pathlib import Path
from xml.etree import ElementTree


def totals(report: Path) -> dict[str, float]:
    """tests, failures, errors, skipped and the summed seconds of one JUnit XML report."""
    found = {"tests": 0.0, "failures": 0.0, "errors": 0.0, "skipped": 0.0, "seconds": 0.0}
    for suite in ElementTree.parse(report).iter("testsuite"):
        for key in ("tests", "failures", "errors", "skipped"):
            found[key] += float(suite.get(key, 0))
        found["seconds"] += sum(float(c.get("time", 0)) for c in suite.iter("testcase"))
    return found


def main(folder: Path) -> None:
    walls, loads = {}, {}
    if (folder / "passes.tsv").exists():
        for line in (folder / "passes.tsv").read_text().splitlines():
            name, seconds, *load = line.split("\t")
            walls[name], loads[name] = float(seconds), (load or [""])[0]
    print(
        f"{'pass':<12} {'wall':>8} {'tests':>6} {'failed':>6} {'skipped':>7} {'test s':>8} "
        f"{'load':>5}"
    )
    for name, wall in walls.items():
        report = folder / f"{name}.xml"
        if not report.exists():
            print(f"{name:<12} {wall:>7.0f}s {'':>6} {'':>6} {'':>7} {'':>8} {loads[name]:>5}")
            continue
        t = totals(report)
        failed = t["failures"] + t["errors"]
        print(
            f"{name:<12} {wall:>7.0f}s {t['tests']:>6.0f} {failed:>6.0f} {t['skipped']:>7.0f} "
            f"{t['seconds']:>7.0f}s {loads[name]:>5}"
        )
    print(f"{'all':<12} {sum(walls.values()):>7.0f}s")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "var/reports"))
