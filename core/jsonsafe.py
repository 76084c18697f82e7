"""JSON values every database backend can store (PostgreSQL jsonb is the strictest)."""

import math
from typing import Any

from core.text import text_problem

JSON_MAX_DEPTH = 20


def check_json(value: Any, depth: int = 0) -> None:
    """Raise ValueError for text that is not valid (core.text: lone surrogates, NUL) in
    keys or values, non-finite numbers or absurd nesting."""
    if depth > JSON_MAX_DEPTH:
        raise ValueError(f"Nested deeper than {JSON_MAX_DEPTH} levels.")
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            raise ValueError(problem)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("Numbers must be finite.")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_json(key, depth + 1)
            check_json(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            check_json(item, depth + 1)
