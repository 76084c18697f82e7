"""The marks of the test modules, read from their source with `ast` (nothing is imported):
which URL names each test marks `cross_user` (tests/test_architecture.py).

A mark may sit on a test function, a test class, a method of one, or a module's
`pytestmark` (one mark or a list). Its arguments are string constants, or `*NAME` for a
module-level tuple or list of them. Anything else raises: a mark the reader cannot
understand must fail the guard, not drop out of it.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_modules(root: Path = TESTS) -> list[Path]:
    """Every test module under `root` (test_*.py), in a stable order."""
    return sorted(root.rglob("test_*.py"))


def _module_name(path: Path) -> str:
    relative = path.relative_to(TESTS.parent).with_suffix("")
    return ".".join(relative.parts)


def _constants(tree: ast.Module) -> dict[str, list[str]]:
    """Module-level NAME = ("a", "b") or ["a", "b"]: the names a mark may unpack."""
    found: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple | ast.List):
            values = node.value.elts
            if all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = [v.value for v in values]
    return found


def _is_mark(node: ast.expr, name: str) -> bool:
    """`pytest.mark.<name>(...)` (or `mark.<name>(...)`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == name
        and isinstance(node.func.value, ast.Attribute | ast.Name)
        and getattr(node.func.value, "attr", getattr(node.func.value, "id", None)) == "mark"
    )


def _arguments(call: ast.Call, constants: dict[str, list[str]], where: str) -> list[str]:
    names: list[str] = []
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            names.append(arg.value)
        elif (
            isinstance(arg, ast.Starred)
            and isinstance(arg.value, ast.Name)
            and arg.value.id in constants
        ):
            names.extend(constants[arg.value.id])
        else:
            raise ValueError(f"{where}: a mark argument that is no string: {ast.unparse(arg)}")
    return names


def _holders(tree: ast.Module, module: str) -> Iterator[tuple[str, list[ast.expr]]]:
    """(where, the mark expressions on it) for the module, its tests and test classes."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            value = node.value
            yield module, list(value.elts) if isinstance(value, ast.List | ast.Tuple) else [value]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not node.name.startswith(("test_", "Test")):
                continue
            yield f"{module}::{node.name}", node.decorator_list
            if isinstance(node, ast.ClassDef):
                for method in node.body:
                    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                        if method.name.startswith("test_"):
                            where = f"{module}::{node.name}::{method.name}"
                            yield where, method.decorator_list


def marked(name: str, source: str, module: str) -> dict[str, list[str]]:
    """argument -> where it is marked, for every `name` mark in one module's `source`."""
    tree = ast.parse(source)
    constants = _constants(tree)
    found: dict[str, list[str]] = {}
    for where, expressions in _holders(tree, module):
        for expression in expressions:
            if _is_mark(expression, name):
                for argument in _arguments(expression, constants, where):
                    found.setdefault(argument, []).append(where)
    return found


def marked_in_tests(name: str, root: Path = TESTS) -> dict[str, list[str]]:
    """argument -> the tests marked with it, over every test module under `root`."""
    found: dict[str, list[str]] = {}
    for path in test_modules(root):
        for argument, where in marked(name, path.read_text(), _module_name(path)).items():
            found.setdefault(argument, []).extend(where)
    return found
