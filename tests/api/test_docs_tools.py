"""The documentation names the memory tools the server offers, and never counts them
(it said "five" when there were six)."""

import re
from pathlib import Path

from learning.agent_tools import EXTRACT_TOOL
from memory.agent_tools import TOOL_NAMES

ROOT = Path(__file__).resolve().parents[2]
DOCS = [
    ROOT / "README.md",
    ROOT / "docs" / "agents.md",
    ROOT / "clients" / "python" / "README.md",
    *sorted((ROOT / "clients" / "python").rglob("*.py")),
]
NUMBERS = "two|three|four|five|six|seven|eight|nine|ten|[0-9]+"


def test_no_document_counts_the_memory_tools():
    for path in DOCS:
        counted = re.findall(rf"\b(?:{NUMBERS}) (?:memory )?tools\b", path.read_text(), re.I)
        assert counted == [], path


def test_the_readme_names_every_tool_the_server_offers():
    readme = (ROOT / "README.md").read_text()
    for name in [*TOOL_NAMES, EXTRACT_TOOL["function"]["name"]]:
        assert f"`{name}`" in readme, name
