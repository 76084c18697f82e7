"""Request parsers of the API (kept apart from core.api.conventions: DRF imports this module
while it builds APIView, so it must not import rest_framework.views itself)."""

from rest_framework import exceptions
from rest_framework.parsers import JSONParser as DRFJSONParser

from core.text import data_problem


class JSONParser(DRFJSONParser):
    """DRF's JSON parser, plus: absurdly nested JSON is a 400, not a RecursionError (500),
    and a body whose keys or strings are not valid text (core.text) is a 400 naming the
    first bad one, whichever view and serializer read it."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply.") from None
        found = data_problem(data)
        if found:
            path, problem = found
            raise exceptions.ValidationError({path or "non_field_errors": [problem]})
        return data
