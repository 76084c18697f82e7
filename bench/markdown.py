"""The Markdown tables the benchmarks print."""

from collections.abc import Iterable
from typing import Any


def markdown_table(head: list[str], rows: Iterable[list[Any]]) -> list[str]:
    """A table's lines: `head`, the rule under it, then one line a row."""
    return [_line(head), "|" + "---|" * len(head), *(_line(row) for row in rows)]


def _line(cells: list[Any]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"
