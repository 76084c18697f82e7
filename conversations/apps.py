from django.apps import AppConfig

from conversations.corpus import TURNS
from retrieval.corpus import declare


class ConversationsConfig(AppConfig):
    name = "conversations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        declare(TURNS)  # searchable through retrieval's front door
