"""OpenAPI house rules: the schema class every API view uses, and described path parameters.

Public text is written for the public: developer docstrings of views and serializers never
become descriptions in the schema (they name internals); operations describe themselves
with `extend_schema(summary=, description=)`, fields with `help_text`.
"""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import get_override
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter


class AutoSchema(SpectacularAutoSchema):
    def get_description(self) -> str:
        return ""  # not the view's docstring; extend_schema(description=...) still applies

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if get_override(serializer, "description", None) is None:
            schema.pop("description", None)  # not the serializer's (or its base's) docstring
        return schema


def path_id(description: str) -> OpenApiParameter:
    """The integer `id` in a path, described."""
    return OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description=description)


SESSION_ID = OpenApiParameter(
    "session_id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="The session id the agent chose when it logged the session's turns.",
)
