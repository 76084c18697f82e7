"""Git repositories under the roots (remotes and branches from the .git directory's own
files) and the git identity from ~/.gitconfig. Git is never run and no object is read."""

from collections.abc import Iterator
from pathlib import Path

from discovery.scanners import fs, gitconfig
from discovery.scanners.base import Found, ScanContext, Scanner, ScanState, join_limited
from discovery.scanners.paths import gitconfig_files
from discovery.scanners.projects import Project, display_path, find_projects

MAX_BRANCHES = 200
BRANCHES_SHOWN = 10


def branches(git_dir: Path, root: Path, state: ScanState) -> list[str]:
    """Local branch names: loose refs (file names only) and packed-refs."""
    names: set[str] = set()
    heads = git_dir / "refs" / "heads"
    stack = [heads] if fs.inside(heads, root) else []
    while stack and len(names) < MAX_BRANCHES and not state.expired():
        directory = stack.pop()
        names.update(p.relative_to(heads).as_posix() for p in fs.files(directory, state))
        stack.extend(fs.subdirs(directory, state, hidden=True))
    packed = fs.read_metadata(git_dir / "packed-refs", root, limit=8 * 1024 * 1024) or ""
    for line in packed.splitlines():
        _, _, ref = line.partition(" ")
        if ref.startswith("refs/heads/"):
            names.add(ref.removeprefix("refs/heads/").strip())
    return sorted(names)[:MAX_BRANCHES]


def remotes(config: gitconfig.GitConfig) -> list[str]:
    """'origin github.com/owner/repo' per remote with a network location."""
    found = []
    for (section, name), values in sorted(config.items()):
        if section != "remote" or not name:
            continue
        location = gitconfig.remote_location((values.get("url") or [""])[-1])
        if location:
            found.append(f"{name} {location}")
    return found


def describe(project: Project, ctx: ScanContext, state: ScanState) -> Found | None:
    git_dir = project.path / ".git"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return None  # worktrees and submodules point elsewhere; their repo is found there
    text = fs.read_metadata(git_dir / "config", project.root)
    if text is None:
        state.warn(f"{display_path(project.path, ctx.home)}: no readable .git/config")
        return None
    parts = []
    found_remotes = remotes(gitconfig.parse(text))
    if found_remotes:
        label = "remote" if len(found_remotes) == 1 else "remotes"
        parts.append(f"{label} {', '.join(found_remotes)}")
    else:
        parts.append("no remote")
    names = branches(git_dir, project.root, state)
    if names:
        label = "branch" if len(names) == 1 else "branches"
        parts.append(f"{label} {join_limited(names, BRANCHES_SHOWN)}")
    where = display_path(project.path, ctx.home)
    return Found(
        f"Git repository '{project.name}' ({where}): {'; '.join(parts)}",
        context="work",
        entity=project.entity,
    )


def identity(ctx: ScanContext) -> str | None:
    """user.name from the global git config (the XDG file first, ~/.gitconfig wins)."""
    name = None
    for path in gitconfig_files(ctx):
        text = fs.read_metadata(path, ctx.home)
        if text:
            name = gitconfig.get(gitconfig.parse(text), "user", "name") or name
    return name


def scan(ctx: ScanContext, state: ScanState) -> Iterator[Found]:
    name = identity(ctx)
    if name:
        yield Found(f"Uses the name '{name}' for git commits", context="work")
    for project in find_projects(ctx, state):
        if ".git" in project.markers:
            found = describe(project, ctx, state)
            if found:
                yield found


SCANNER = Scanner(
    name="git",
    description="git repositories (remotes, branches from .git/config and refs) and git name",
    scan=scan,
)
