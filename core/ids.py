"""Row ids from outside: 1 to 2^63-1, what a bigint primary key holds on every backend.

PostgreSQL raises on a larger integer and SQLite's driver cannot bind one, so an id from
a URL, a body, a form or a tool's arguments is checked here before any query sees it:

- `<id:pk>` in a URL (`IdConverter`, registered by core.apps): 0, a larger number or a
  hundred digits match no URL, a 404 for every method before any view runs;
- `core.api.serializers.IdField` in a body: a 400 naming the field;
- `as_id(text)` for a form field or a query parameter; `ID_RANGE` for a tool's schema.
"""

MAX_ID = 2**63 - 1
ID_DIGITS = len(str(MAX_ID))
ID_RANGE = {"minimum": 1, "maximum": MAX_ID}  # of an id in a JSON schema


def as_id(text: str) -> int | None:
    """`text` as a row id (decimal digits, 1 to MAX_ID), or None."""
    if not (text.isascii() and text.isdigit()) or len(text) > ID_DIGITS:
        return None
    number = int(text)
    return number if 1 <= number <= MAX_ID else None


class IdConverter:
    """`<id:pk>`: a row id in a path (see the module docstring)."""

    regex = f"[0-9]{{1,{ID_DIGITS}}}"

    def to_python(self, value: str) -> int:
        number = as_id(value)
        if number is None:
            raise ValueError(f"not a row id: {value}")  # Django: this URL does not match
        return number

    def to_url(self, value: int | str) -> str:
        return str(value)
