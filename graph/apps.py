from django.apps import AppConfig


class GraphConfig(AppConfig):
    """A person's entities (people, organisations, projects, places...) and the relations
    between them over time (docs/graph.md)."""

    name = "graph"
    default_auto_field = "django.db.models.BigAutoField"
