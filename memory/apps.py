from django.apps import AppConfig

from memory.corpus import ITEMS
from retrieval.corpus import declare


class MemoryConfig(AppConfig):
    """The knowledge store: what a user's agents know about them."""

    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        declare(ITEMS)  # searchable through retrieval's front door
