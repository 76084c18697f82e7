"""What retrieval connects at start-up (its modules read the models, so only in ready())."""

from django.conf import settings
from django.db.models.signals import post_delete, post_migrate

from retrieval import late_writes
from retrieval.embedding import hooks
from retrieval.fulltext_upkeep import ensure_after_migrate
from retrieval.snapshots import on_owner_deleted


def install() -> None:
    """Called once from RetrievalConfig.ready()."""
    hooks.install()  # embedding on write, index updates, the "embedder" health check
    late_writes.install()  # token vectors after commit (after the embedding's hook)
    post_migrate.connect(ensure_after_migrate, dispatch_uid="gaia-fulltext-triggers")
    post_delete.connect(
        on_owner_deleted, sender=settings.AUTH_USER_MODEL, dispatch_uid="gaia-snapshots"
    )
