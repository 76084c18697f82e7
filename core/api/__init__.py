"""The API's conventions: one error shape, parsers and renderers, routes, the schema and
the serializers' shapes."""
