from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_delete, post_migrate

from retrieval.fulltext_upkeep import ensure_after_migrate
from retrieval.snapshots import on_owner_deleted


class RetrievalConfig(AppConfig):
    """Search machinery: full-text and vector indexes, embedders, fusion."""

    name = "retrieval"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # hooks reach the models, which are importable only once the registry is ready
        from retrieval.embedding import hooks

        hooks.install()  # embedding on write, index updates, the "embedder" health check
        post_migrate.connect(ensure_after_migrate, dispatch_uid="gaia-fulltext-triggers")
        post_delete.connect(
            on_owner_deleted, sender=settings.AUTH_USER_MODEL, dispatch_uid="gaia-snapshots"
        )
