"""Project manifests: the declared package name and dependency names, nothing else.

pyproject.toml (PEP 621 and Poetry), package.json, Cargo.toml and go.mod, read at a
project's top level only. Versions, scripts and every other field are ignored.
"""

import json
import re
import tomllib
from collections.abc import Callable, Iterator

from discovery.scanners import fs
from discovery.scanners.base import Found, ScanContext, Scanner, ScanState, join_limited
from discovery.scanners.projects import Project, find_projects

DEPENDENCIES_SHOWN = 20
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")

Parsed = tuple[str | None, list[str]]


def _names(values: object) -> list[str]:
    return [str(v) for v in values] if isinstance(values, dict | list) else []


def _python_name(requirement: str) -> str | None:
    match = _REQUIREMENT.match(requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else None


def pyproject(text: str) -> Parsed:
    data = tomllib.loads(text)
    project = data.get("project") or {}
    poetry = (data.get("tool") or {}).get("poetry") or {}
    deps = [_python_name(r) for r in _names(project.get("dependencies"))]
    deps += [_python_name(n) for n in _names(poetry.get("dependencies")) if n != "python"]
    return project.get("name") or poetry.get("name"), [d for d in deps if d]


def package_json(text: str) -> Parsed:
    data = json.loads(text)
    if not isinstance(data, dict):
        return None, []
    deps = _names(data.get("dependencies")) + _names(data.get("devDependencies"))
    name = data.get("name")
    return (name if isinstance(name, str) else None), deps


def cargo_toml(text: str) -> Parsed:
    data = tomllib.loads(text)
    deps = _names(data.get("dependencies")) + _names(data.get("dev-dependencies"))
    return (data.get("package") or {}).get("name"), deps


def go_mod(text: str) -> Parsed:
    module, deps, block = None, [], False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip() if "// indirect" not in raw else ""
        if not line:
            continue
        if line.startswith("module "):
            module = line.split()[1].strip('"')
        elif line.startswith("require ("):
            block = True
        elif block and line == ")":
            block = False
        elif block or line.startswith("require "):
            parts = line.removeprefix("require ").split()
            if parts:
                deps.append(parts[0].strip('"'))
    return module, deps


PARSERS: dict[str, Callable[[str], Parsed]] = {
    "pyproject.toml": pyproject,
    "package.json": package_json,
    "Cargo.toml": cargo_toml,
    "go.mod": go_mod,
}


def describe(project: Project, filename: str, state: ScanState) -> Found | None:
    text = fs.read_metadata(project.path / filename, project.root)
    if text is None:
        return None
    try:
        name, deps = PARSERS[filename](text)
    except (ValueError, TypeError, AttributeError, IndexError) as error:
        state.warn(f"{project.name}/{filename} could not be parsed: {type(error).__name__}")
        return None
    name = name.strip() if isinstance(name, str) else None
    label = f"{filename}, package '{name}'" if name and name != project.name else filename
    deps = sorted({d for d in deps if d}, key=str.lower)
    what = f"depends on {join_limited(deps, DEPENDENCIES_SHOWN)}" if deps else "has no dependencies"
    return Found(
        f"Project '{project.name}' ({label}) {what}", context="work", entity=project.entity
    )


def scan(ctx: ScanContext, state: ScanState) -> Iterator[Found]:
    for project in find_projects(ctx, state):
        for filename in PARSERS:
            if filename in project.markers:
                found = describe(project, filename, state)
                if found:
                    yield found


SCANNER = Scanner(
    name="manifests",
    description="project manifests (pyproject.toml, package.json, Cargo.toml, go.mod): "
    "package names and declared dependencies",
    scan=scan,
)
