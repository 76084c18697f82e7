"""Request parsers of the API (kept apart from core.api: DRF imports this module
while it builds APIView, so it must not import rest_framework.views itself)."""

from rest_framework import exceptions
from rest_framework.parsers import JSONParser as DRFJSONParser


class JSONParser(DRFJSONParser):
    """DRF's JSON parser, plus: absurdly nested JSON is a 400, not a RecursionError (500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply.") from None
