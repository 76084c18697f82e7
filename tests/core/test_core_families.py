"""`core/` by family: the kernel, the API's conventions (`core/api/`), the server process
(`core/server/`). The kernel's modules import neither family, except the wiring that
puts them together (the app's ready(), its receivers, URLs and views); neither family
imports the other."""

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
WIRING = {"apps.py", "receivers.py", "urls.py", "views.py"}


def imported(path: Path) -> set[str]:
    """The modules a file imports, by dotted name (`from core.api import x` counts as
    `core.api.x` and `core.api`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def reaches(path: Path, family: str) -> set[str]:
    return {name for name in imported(path) if name.split(".")[:2] == ["core", family]}


def test_the_kernel_imports_neither_family_except_its_wiring():
    kernel = [p for p in CORE.glob("*.py") if p.name not in WIRING]
    assert len(kernel) > 10  # the walk finds the kernel at all
    leaks = {
        p.name: sorted(reaches(p, "api") | reaches(p, "server"))
        for p in kernel
        if reaches(p, "api") | reaches(p, "server")
    }
    assert not leaks, f"kernel modules importing core.api / core.server: {leaks}"


def test_the_api_conventions_and_the_server_process_do_not_import_each_other():
    api, server = sorted((CORE / "api").glob("*.py")), sorted((CORE / "server").glob("*.py"))
    assert len(api) > 5 and len(server) > 5
    crossing = {p.name: sorted(reaches(p, "server")) for p in api if reaches(p, "server")}
    crossing |= {p.name: sorted(reaches(p, "api")) for p in server if reaches(p, "api")}
    assert not crossing, f"one family importing the other: {crossing}"


def test_the_flat_modules_the_families_replaced_are_gone():
    flat = {"api.py", "api_views.py", "metrics.py", "middleware.py", "health.py", "openapi.py"}
    assert not flat & {p.name for p in CORE.glob("*.py")}
