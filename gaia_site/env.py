"""Tiny typed readers for environment variables (every knob has a safe default).

A value that cannot be read stops start-up with the variable's name: `GAIA_SECURE=ture`
must not silently mean "off".
"""

import math
import os
import sys
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}


def envstr(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def envbool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if value == "":
        return default
    if value in TRUE | FALSE:
        return value in TRUE
    raise ImproperlyConfigured(
        f"{name}={os.environ[name]!r} is not a yes/no value. "
        f"Use one of: {', '.join(sorted(TRUE))} or {', '.join(sorted(FALSE))}."
    )


def _number(name: str, default: int | float, kind: type) -> int | float:
    value = os.environ.get(name, "").strip()
    if value == "":
        return default
    try:
        number = kind(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):  # "nan" or "inf" would make every comparison meaningless
        what = "a whole number" if kind is int else "a number"
        raise ImproperlyConfigured(f"{name}={value!r} is not {what}.")
    return number


def envint(name: str, default: int) -> int:
    return int(_number(name, default, int))


def envfloat(name: str, default: float) -> float:
    return float(_number(name, default, float))


def envfloat_or_none(name: str) -> float | None:
    """A number, or None when the variable is empty or missing (the feature is off)."""
    return None if os.environ.get(name, "").strip() == "" else envfloat(name, 0.0)


def envlist(name: str, default: str = "") -> list[str]:
    return [part.strip() for part in envstr(name, default).split(",") if part.strip()]


def data_dir(name: str, default: str, *, must_write: bool) -> Path:
    """The directory `name` names, created if missing. With `must_write` (the SQLite
    database or the secret key is kept there) the server must be able to write in it:
    start-up stops with one line naming the variable and the cause (a read-only disk,
    missing permissions, a file in the way), not a traceback from a first write."""
    path = Path(envstr(name, default)).resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
        if must_write:  # a file can be made there (a full disk is health's to report)
            tempfile.TemporaryFile(dir=path).close()
    except OSError as error:
        sys.stderr.write(
            f"Cannot start: {name}={str(path)!r} is not a directory this server can write "
            f"in ({error.strerror or error}). It keeps the database and the secret key "
            f"there: give the user running the server write access, or set {name} to "
            "another directory.\n"
        )
        raise SystemExit(1) from None
    return path
