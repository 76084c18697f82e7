"""Apps that serve many people: an app, its tokens, its people, and acting for one of them.

An app token (`gaia_app_...`) is one credential for an application with many users. The
app creates its people by its own external id; each person is an ordinary account whose
memory is theirs alone. A request with the app token names the person it acts for
(`user_id`), and is then that person's request through an *acting token*: an `ApiToken`
of the person, one per app token, whose secret is never issued. Every write it makes
records that token, so history says which app (its agent) and which app token (its name)
made it. An app never sees a person it did not create: another app's external ids are
simply unknown to it.
"""

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, QuerySet
from django.utils import timezone

from accounts.models import Agent, ApiToken, App, AppPerson, AppToken
from accounts.services import agent_get_or_create, secret_hash, token_create, token_mark_used
from core.validation import clean_short

APP_TOKEN_PREFIX = "gaia_app_"


class PersonNotFound(ObjectDoesNotExist):
    """No person of this app has that external id (or it belongs to another app)."""


class PersonDisabled(Exception):
    """An administrator disabled the person's account: no app acts for them."""


def clean_external_id(value: Any, *, field: str = "user_id") -> str:
    """An app's id for one of its people: 1-200 characters of valid text, trimmed."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValidationError({field: "Must be a string."}, code="invalid")
    cleaned = clean_short(str(value), field=field, limit=200).strip()
    if not cleaned:
        raise ValidationError({field: "Must not be empty."}, code="required")
    return cleaned


def app_create(*, name: str, description: str = "", created_by: Any = None) -> App:
    """A new app named `name` (a slug, unique)."""
    slug = clean_short(name, field="name", limit=100).strip()
    if not slug or not all(c.isalnum() or c in "-_" for c in slug):
        raise ValidationError(
            {"name": "Letters, digits, - and _ only, 1-100 of them."}, code="invalid"
        )
    if App.objects.filter(name=slug).exists():
        raise ValidationError({"name": "An app of this name exists."}, code="unique")
    return App.objects.create(
        name=slug,
        description=clean_short(description, field="description", limit=2000),
        created_by=created_by if getattr(created_by, "pk", None) else None,
    )


def app_token_create(*, app: App, name: str = "default") -> tuple[AppToken, str]:
    """A new token for `app`; returns the row and the secret, which is never stored."""
    secret = APP_TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = AppToken.objects.create(
        app=app,
        name=(clean_short(name, field="name", limit=100).strip() or "default"),
        prefix=secret[: len(APP_TOKEN_PREFIX) + 6],
        key_hash=secret_hash(secret),
    )
    return token, secret


def app_token_revoke(*, app: App, token_id: int) -> AppToken:
    """Revoke one of `app`'s tokens; effective for the very next request."""
    token = AppToken.objects.select_related("app").get(app=app, pk=token_id)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def is_app_secret(secret: str) -> bool:
    return secret.startswith(APP_TOKEN_PREFIX)


def app_token_authenticate(secret: str) -> AppToken | None:
    """The usable app token for `secret` (not revoked, app not disabled), or None."""
    if not secret or len(secret) > 200 or not is_app_secret(secret):
        return None
    token = AppToken.objects.select_related("app").filter(key_hash=secret_hash(secret)).first()
    if token is None or not token.is_usable:
        return None
    token_mark_used(token)
    return token


def person_list(*, app: App) -> QuerySet[AppPerson]:
    return AppPerson.objects.filter(app=app).select_related("user").order_by("created_at", "pk")


def person_get(*, app: App, external_id: Any) -> AppPerson:
    """`app`'s person with that external id; PersonNotFound for any other (missing, or
    another app's: the same answer)."""
    found = person_list(app=app).filter(external_id=clean_external_id(external_id)).first()
    if found is None:
        raise PersonNotFound("No such person.")
    return found


def person_create(
    *, app: App, external_id: Any, metadata: dict | None = None
) -> tuple[AppPerson, bool]:
    """`app`'s person `external_id`, created (with an account that cannot log in) when
    missing; returns it and whether it was created. Safe when two requests race."""
    external_id = clean_external_id(external_id)
    existing = AppPerson.objects.filter(app=app, external_id=external_id).first()
    if existing is not None:
        return existing, False
    if metadata is not None and not isinstance(metadata, dict):
        raise ValidationError({"metadata": "Must be an object."}, code="invalid")
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(
                username=f"{app.name[:60]}.{secrets.token_hex(8)}"
            )
            person = AppPerson.objects.create(
                app=app, user=user, external_id=external_id, metadata=metadata or {}
            )
    except IntegrityError:  # created by a concurrent request meanwhile
        return AppPerson.objects.get(app=app, external_id=external_id), False
    return person, True


def person_of(user: Any) -> AppPerson | None:
    """The app person an account is, or None for an ordinary account."""
    if user is None or getattr(user, "pk", None) is None:
        return None
    return AppPerson.objects.select_related("app").filter(user_id=user.pk).first()


def acting_token(*, app_token: AppToken, user: Any) -> ApiToken:
    """The person's token that requests made with `app_token` act through (created on
    first use): its agent is named after the app, its name after the app token."""
    found = (
        ApiToken.objects.for_user(user)
        .select_related("owner", "agent")
        .filter(app_token=app_token)
        .first()
    )
    if found is not None:
        return found
    agent = agent_get_or_create(user=user, name=app_token.app.name)
    return ApiToken.objects.create(
        owner=user,
        name=f"{app_token.app.name}/{app_token.name}"[:100],
        prefix="app",
        key_hash=secret_hash(APP_TOKEN_PREFIX + "acting:" + secrets.token_urlsafe(32)),
        agent=agent,
        app=app_token.app,
        app_token=app_token,
    )


def person_acting(*, app_token: AppToken, person: AppPerson) -> ApiToken:
    """The token requests of `app_token` act for `person` through (`acting_token`).
    PersonDisabled for an account an administrator disabled; PersonNotFound when the
    account went meanwhile (an erase deleted it as the token was being made)."""
    if not person.user.is_active:
        raise PersonDisabled("This person's account is disabled.")
    try:
        with transaction.atomic():
            return acting_token(app_token=app_token, user=person.user)
    except IntegrityError:
        raise PersonNotFound("No such person.") from None


def act_for(*, app_token: AppToken, external_id: Any) -> tuple[Any, ApiToken]:
    """Whom a request of `app_token` naming `external_id` (its `user_id`) is: the
    person's account and acting token. PersonNotFound for a missing or another app's id,
    ValidationError for a malformed one, PersonDisabled for a disabled account."""
    person = person_get(app=app_token.app, external_id=external_id)
    return person.user, person_acting(app_token=app_token, person=person)


def person_token_create(
    *, app: App, person: AppPerson, name: str, agent_name: str | None = None
) -> tuple[ApiToken, str]:
    """A token the app issues to one of its people (for their own agent to hold)."""
    token, secret = token_create(user=person.user, name=name, agent_name=agent_name)
    ApiToken.objects.filter(pk=token.pk).update(app=app)
    token.app = app
    return token, secret


def person_tokens(*, app: App, person: AppPerson) -> QuerySet[ApiToken]:
    """The tokens `app` issued to `person` (not the acting ones)."""
    return (
        ApiToken.objects.for_user(person.user)
        .filter(app=app, app_token__isnull=True)
        .select_related("agent")
        .order_by("created_at", "pk")
    )


def person_token_revoke(*, app: App, person: AppPerson, token_id: int) -> ApiToken:
    token = person_tokens(app=app, person=person).get(pk=token_id)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def person_agent(*, person: AppPerson, name: str) -> Agent:
    """The person's agent called `name` (mem0's agent_id), created on first use."""
    return agent_get_or_create(user=person.user, name=name)


def person_delete(*, app: App, person: AppPerson) -> None:
    """Delete `app`'s person and their account (its tokens, agents and settings go with
    it): only the account rows. Privacy's `app_person_erase` erases their memory and
    then calls this, in one unit."""
    if person.app_id != app.pk:
        raise PersonNotFound("No such person.")
    person.user.delete()


def app_create_with_token(
    *, name: str, description: str = "", token_name: str = "default", created_by: Any = None
) -> tuple[App, AppToken, str]:
    """A new app and its first token, together or not at all; returns the secret once."""
    with transaction.atomic():
        app = app_create(name=name, description=description, created_by=created_by)
        token, secret = app_token_create(app=app, name=token_name)
    return app, token, secret


def app_token_add(*, app: App, name: str) -> tuple[AppToken, str]:
    """Another token for an existing app; refuses a name one of its usable tokens has (two
    of one name could not be told apart when one must be revoked)."""
    wanted = clean_short(name, field="name", limit=100).strip() or "default"
    taken = app.tokens.filter(name=wanted, revoked_at__isnull=True).first()
    if taken is not None:
        raise ValidationError(
            {"name": f"The app has a usable token named '{wanted}' ({taken.prefix}...)."},
            code="unique",
        )
    return app_token_create(app=app, name=wanted)


def app_list() -> QuerySet[App]:
    """Every app, with how many people it has, by name (for staff)."""
    return App.objects.annotate(people_count=Count("people")).order_by("name")


def app_set_disabled(*, app: App, disabled: bool) -> App:
    """Disable an app (its tokens answer 401 from the next request) or enable it again."""
    app.disabled_at = (app.disabled_at or timezone.now()) if disabled else None
    app.save(update_fields=["disabled_at"])
    return app


def person_token_issue(
    *, app: App, person: AppPerson, name: str, agent_name: str | None = None
) -> tuple[ApiToken, str]:
    """A token for `person`'s own agent (`person_token_create`), refusing a name the
    app already issued them a usable token of."""
    wanted = clean_short(name, field="name", limit=100).strip() or "default"
    if any(t.is_usable for t in person_tokens(app=app, person=person).filter(name=wanted)):
        raise ValidationError(
            {"name": f"This person has a usable token named '{wanted}': revoke it first."},
            code="unique",
        )
    return person_token_create(app=app, person=person, name=wanted, agent_name=agent_name)


def app_update(*, app: App, description: str) -> App:
    """Change what an app is described as (its name stays: tokens and history use it)."""
    app.description = clean_short(description, field="description", limit=2000)
    app.save(update_fields=["description"])
    return app
