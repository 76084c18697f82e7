"""Geometry of the dashboard's activity chart, drawn as inline SVG by the template.

A pure function of the daily counts (grouped bars, one group a day), so the chart needs
no JavaScript and no library, and native SVG <title> tooltips give each day's numbers.
"""

import math
from dataclasses import dataclass, field
from datetime import date
from typing import Any

WIDTH, HEIGHT = 1000, 240
LEFT, RIGHT, TOP, BOTTOM = 40, 8, 10, 30
SERIES = (
    ("turns", "Turns"),
    ("memories", "New memories"),
    ("tool_calls", "Tool calls"),
)
GRID_LINES = 4
GROUP_FILL = 0.72  # share of a day's width its bars take


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float


@dataclass
class Series:
    key: str
    label: str
    total: int
    bars: list[Bar] = field(default_factory=list)  # days with activity only


@dataclass
class Column:
    x: float
    width: float
    label: str  # the day's tooltip


def nice_ceiling(value: int) -> int:
    """Smallest 'round' top for the y axis (1, 2 or 5 x 10^k per grid line) >= value."""
    if value <= GRID_LINES:
        return GRID_LINES
    magnitude = 10 ** math.floor(math.log10(value / GRID_LINES))
    factor = next(f for f in (1, 2, 5, 10) if f * magnitude * GRID_LINES >= value)
    return factor * magnitude * GRID_LINES


def _day_label(iso: str) -> str:
    day = date.fromisoformat(iso)
    return f"{day:%b} {day.day}"


def activity_chart(days: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the template needs: bars per series, grid lines, ticks, tooltips."""
    n = max(len(days), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = nice_ceiling(max((d[k] for d in days for k, _ in SERIES), default=0))
    step = plot_w / n
    bar_w = step * GROUP_FILL / len(SERIES)
    baseline = TOP + plot_h

    def center(i: int) -> float:
        return LEFT + (i + 0.5) * step

    series = []
    for k, (key, label) in enumerate(SERIES):
        bars = []
        for i, d in enumerate(days):
            if d[key]:
                height = max(d[key] / top * plot_h, 1.5)  # a 1 among 200 stays visible
                x = center(i) - step * GROUP_FILL / 2 + k * bar_w
                bars.append(
                    Bar(round(x, 2), round(baseline - height, 2), round(bar_w, 2), round(height, 2))
                )
        series.append(Series(key, label, sum(d[key] for d in days), bars))
    grid = [
        {"y": round(baseline - i / GRID_LINES * plot_h, 2), "label": top * i // GRID_LINES}
        for i in range(GRID_LINES + 1)
    ]
    columns = [
        Column(
            x=round(LEFT + i * step, 2),
            width=round(step, 2),
            label=f"{_day_label(d['date'])}: {d['turns']} turns, "
            f"{d['memories']} new memories, {d['tool_calls']} tool calls",
        )
        for i, d in enumerate(days)
    ]
    # One date label a week, always including the last day (today).
    ticks = [
        {"x": round(center(i), 2), "label": _day_label(d["date"])}
        for i, d in enumerate(days)
        if (n - 1 - i) % 7 == 0
    ]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "baseline": baseline,
        "series": series,
        "grid": grid,
        "columns": columns,
        "ticks": ticks,
        "empty": all(s.total == 0 for s in series),
    }
