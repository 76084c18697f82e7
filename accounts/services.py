"""Accounts: API tokens (hashed, shown once, revocable) and per-user settings."""

import hashlib
import secrets
import zoneinfo
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.models import Agent, ApiToken, AppToken, UserSettings

TOKEN_PREFIX = "gaia_"
_LAST_USED_GRANULARITY = timedelta(minutes=1)


def secret_hash(secret: str) -> str:
    """What is stored of a token's secret (ApiToken and AppToken `key_hash`)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def token_mark_used(token: ApiToken | AppToken) -> None:
    """Record that `token` was used now; written at most once a minute per token, so
    every request does not write."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > _LAST_USED_GRANULARITY:
        type(token).objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


def agent_get_or_create(*, user, name: str) -> Agent:
    """The user's agent called `name`, created on first use."""
    agent, _ = Agent.objects.get_or_create(
        owner=user, name=((name or "").strip() or "default")[:100]
    )
    return agent


def token_create(
    *, user, name: str, expires_at: datetime | None = None, agent_name: str | None = None
) -> tuple[ApiToken, str]:
    """Create a token for `user` acting as agent `agent_name` (default: the token's name).

    Returns the row and the secret, which is never stored.
    """
    name = (name or "").strip() or "default"
    agent = agent_get_or_create(user=user, name=agent_name or name)
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        owner=user,
        name=name[:100],
        prefix=secret[: len(TOKEN_PREFIX) + 6],
        key_hash=secret_hash(secret),
        expires_at=expires_at,
        agent=agent,
    )
    return token, secret


def token_authenticate(secret: str) -> ApiToken | None:
    """The usable token for `secret` (active user, not revoked, not expired), or None."""
    if not secret or len(secret) > 200:
        return None
    token = (
        ApiToken.objects.select_related("owner", "agent")
        .filter(key_hash=secret_hash(secret))
        .first()
    )
    if token is None or not token.is_usable or not token.owner.is_active:
        return None
    token_mark_used(token)
    return token


def token_revoke(*, user, token_id: int) -> ApiToken:
    """Revoke one of `user`'s tokens; effective for the very next request."""
    token = ApiToken.objects.for_user(user).get(pk=token_id)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


EDITABLE = (
    "timezone",
    "memory_enabled",
    "auto_extract",
    "extraction_steering",
    "discovery_consent",
    "contexts",
)


def user_settings_get(user: Any) -> UserSettings:
    settings, _ = UserSettings.objects.get_or_create(user_id=user.pk)
    return settings


def user_settings_update(*, user: Any, **fields: Any) -> UserSettings:
    """Change only the given settings; unknown names and bad values are refused."""
    unknown = set(fields) - set(EDITABLE)
    if unknown:
        raise ValidationError({name: "Unknown setting." for name in sorted(unknown)})
    if "timezone" in fields:
        try:
            zoneinfo.ZoneInfo(str(fields["timezone"]))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValidationError({"timezone": "Unknown time zone."}, code="invalid") from None
    if "extraction_steering" in fields and len(fields["extraction_steering"] or "") > 4000:
        raise ValidationError({"extraction_steering": "At most 4000 characters."})
    if "contexts" in fields:
        contexts = fields["contexts"]
        if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
            raise ValidationError({"contexts": "Must be a list of names."})
        fields["contexts"] = sorted({c.strip()[:100] for c in contexts if c.strip()})
    settings = user_settings_get(user)
    for name, value in fields.items():
        setattr(settings, name, value)
    settings.save()
    return settings


def user_tz(user: Any) -> zoneinfo.ZoneInfo:
    """The user's time zone (UTC when unset or unknown)."""
    try:
        return zoneinfo.ZoneInfo(user_settings_get(user).timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def user_zone(user: Any) -> Callable[[], zoneinfo.ZoneInfo]:
    """The user's time zone, read only when called (for `parse_when`'s naive values)."""
    return partial(user_tz, user)


def user_context(user: Any) -> dict[str, Any]:
    """What input serializers need to know of the caller: who, and in which time zone."""
    return {"user": user, "tz": user_zone(user)}
