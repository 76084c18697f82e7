"""Project folders under the given roots: folder names and file extensions -> languages.

Only names are looked at (directory listings); no file under a root is ever opened here.
"""

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from discovery.scanners import fs
from discovery.scanners.base import Found, ScanContext, Scanner, ScanState, entity_for
from discovery.scanners.paths import default_roots

MAX_DEPTH = 3  # how deep below a root a project may sit
LANGUAGE_DEPTH = 6  # how deep inside a project extensions are counted
FILES_PER_PROJECT = 5_000
LANGUAGES_SHOWN = 4

MARKERS = frozenset(
    {
        ".git", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "package.json",
        "Cargo.toml", "go.mod", "pom.xml", "build.gradle", "build.gradle.kts",
        "CMakeLists.txt", "Makefile", "Gemfile", "composer.json", "mix.exs",
        "Package.swift", "pubspec.yaml", "deno.json",
    }
)  # fmt: skip
MARKER_SUFFIXES = (".sln", ".csproj")

LANGUAGES = {
    ".py": "Python", ".pyi": "Python", ".ipynb": "Jupyter Notebook",
    ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".tsx": "TypeScript", ".rs": "Rust", ".go": "Go", ".java": "Java",
    ".kt": "Kotlin", ".kts": "Kotlin", ".scala": "Scala", ".swift": "Swift",
    ".m": "Objective-C", ".mm": "Objective-C", ".c": "C", ".h": "C", ".cpp": "C++",
    ".cc": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++", ".cs": "C#", ".fs": "F#",
    ".rb": "Ruby", ".php": "PHP", ".pl": "Perl", ".sh": "Shell", ".bash": "Shell",
    ".zsh": "Shell", ".ps1": "PowerShell", ".lua": "Lua", ".r": "R", ".jl": "Julia",
    ".dart": "Dart", ".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell",
    ".ml": "OCaml", ".clj": "Clojure", ".elm": "Elm", ".zig": "Zig", ".nim": "Nim",
    ".sql": "SQL", ".html": "HTML", ".css": "CSS", ".scss": "SCSS", ".vue": "Vue",
    ".svelte": "Svelte", ".tf": "Terraform", ".sol": "Solidity", ".vhd": "VHDL",
    ".v": "Verilog", ".sv": "SystemVerilog", ".cu": "CUDA", ".f90": "Fortran",
}  # fmt: skip


@dataclass
class Project:
    root: Path
    path: Path
    markers: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def entity(self) -> str:
        return entity_for("project", self.name)


def roots_of(ctx: ScanContext) -> list[Path]:
    """The roots to scan (given, or the usual folders under home), each once."""
    chosen = list(ctx.roots) or default_roots(ctx)
    unique: dict[Path, None] = {}
    for root in chosen:
        try:
            unique.setdefault(Path(root).expanduser().resolve(), None)
        except OSError:
            continue
    return list(unique)


def find_projects(ctx: ScanContext, state: ScanState) -> list[Project]:
    """Folders with a project marker (up to MAX_DEPTH below a root), plus plain top-level
    folders of a root that hold no marked project themselves."""
    marked: list[Project] = []
    plain: list[Project] = []
    for root in roots_of(ctx):
        if not root.is_dir():
            state.warn(f"root {root} is not a directory")
            continue
        queue = [(root, 0)]
        while queue and not state.expired():
            directory, depth = queue.pop(0)
            names, children = set(), []
            for entry in fs.entries(directory, state):
                names.add(entry.name)
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir and not entry.name.startswith(".") and entry.name not in fs.SKIP_DIRS:
                    children.append(Path(entry.path))
            markers = (names & MARKERS) | {n for n in names if n.endswith(MARKER_SUFFIXES)}
            if markers:
                marked.append(Project(root, directory, markers))
                continue  # a project's own sub-folders are part of it
            if depth == 1:
                plain.append(Project(root, directory))
            if depth < MAX_DEPTH:
                queue.extend((child, depth + 1) for child in children)
    holders = {parent for p in marked for parent in p.path.parents}
    return marked + [p for p in plain if p.path not in holders]


def languages(project: Project, state: ScanState) -> Counter:
    """Files per language, from extensions only."""
    counts: Counter = Counter()
    for seen, path in enumerate(fs.walk_files(project.path, state, LANGUAGE_DEPTH)):
        if seen >= FILES_PER_PROJECT:
            break
        language = LANGUAGES.get(path.suffix.lower())
        if language:
            counts[language] += 1
    return counts


def top_languages(counts: Counter, limit: int = LANGUAGES_SHOWN) -> list[str]:
    return [name for name, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))][:limit]


def human_list(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def display_path(path: Path, home: Path) -> str:
    """'~/src/gaia' under home, else the absolute path, always with forward slashes."""
    try:
        return "~/" + path.relative_to(home.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def scan(ctx: ScanContext, state: ScanState) -> Iterator[Found]:
    projects = find_projects(ctx, state)
    per_project = [(p, top_languages(languages(p, state))) for p in projects]
    per_project = [(p, langs) for p, langs in per_project if langs]
    usage = Counter(lang for _, langs in per_project for lang in langs)
    if usage:
        overall = top_languages(usage, limit=8)
        yield Found(f"Programs in {human_list(overall)}", category="skill", context="work")
    for project, langs in per_project:
        where = display_path(project.path, ctx.home)
        yield Found(
            f"Project '{project.name}' ({where}) is written in {human_list(langs)}",
            context="work",
            entity=project.entity,
        )


SCANNER = Scanner(
    name="projects",
    description="project folders under the roots: names and languages (from file extensions)",
    scan=scan,
)
