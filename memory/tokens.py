"""API tokens: created once (secret shown once), stored as a SHA-256 hash, revocable."""

import hashlib
import secrets
from datetime import datetime, timedelta

from django.utils import timezone

from memory.models import ApiToken

TOKEN_PREFIX = "gaia_"
_LAST_USED_GRANULARITY = timedelta(minutes=1)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def token_create(*, user, name: str, expires_at: datetime | None = None) -> tuple[ApiToken, str]:
    """Create a token for `user`; returns the row and the secret, which is never stored."""
    name = (name or "").strip() or "default"
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        owner=user,
        name=name[:100],
        prefix=secret[: len(TOKEN_PREFIX) + 6],
        key_hash=_hash(secret),
        expires_at=expires_at,
    )
    return token, secret


def token_authenticate(secret: str) -> ApiToken | None:
    """The usable token for `secret` (active user, not revoked, not expired), or None."""
    if not secret or len(secret) > 200:
        return None
    token = ApiToken.objects.select_related("owner").filter(key_hash=_hash(secret)).first()
    if token is None or not token.is_usable or not token.owner.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > _LAST_USED_GRANULARITY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def token_revoke(*, user, token_id: int) -> ApiToken:
    """Revoke one of `user`'s tokens; effective for the very next request."""
    token = ApiToken.objects.for_user(user).get(pk=token_id)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
