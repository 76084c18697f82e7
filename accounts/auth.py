"""Authentication for agents and apps.

- `Authorization: Bearer <token>`: one person's agent token.
- `Authorization: Bearer gaia_app_...` (or `Token gaia_app_...`, as mem0's SDK sends it):
  an app token. With `user_id` (query string or JSON body) naming one of the app's people
  the request is that person's, through the app's acting token (`accounts.people`);
  without it, only the app's own endpoints (people, tokens) accept it. The app's own
  endpoints (views whose permission is `IsAppToken`) never act for a person: there a
  `user_id` in the body or path is the app's data (the person to create or read).

Authentication sets `request.user` and `request.auth` and nothing else: whom an app acts
for is decided in `accounts.people` (`act_for`). The `user_id` stays in the request; it is
the acting token's (`ApiToken.request_keys`), and the views read the operation's body and
query without it (`core.api.views.request_body`, `request_query`).
"""

from typing import Any

from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request

from accounts import people
from accounts.models import ACTING_KEY, AppToken
from accounts.services import token_authenticate
from core.erasing import writes_refused

USER_ID = ACTING_KEY


class AppPrincipal:
    """Who an app token is when it acts for no one: the app itself, owning no rows."""

    is_authenticated = True
    is_active = True
    is_staff = False
    is_superuser = False
    is_anonymous = False
    pk = None
    id = None

    def __init__(self, app_token: AppToken) -> None:
        self.app = app_token.app
        self.username = f"app:{self.app.name}"

    def __str__(self) -> str:
        return self.username


def _secret(request: Request, keywords: tuple[str, ...]) -> str | None:
    header = authentication.get_authorization_header(request).decode("latin-1")
    if not header:
        return None
    parts = header.split()
    if parts[0].lower() not in keywords:
        return None
    if len(parts) != 2:
        raise exceptions.AuthenticationFailed("Malformed Authorization header.")
    return parts[1]


def requested_person_id(request: Request) -> Any:
    """The `user_id` a request names (query string first, then a JSON object body)."""
    value = request.query_params.get(USER_ID)
    if value is None and isinstance(request.data, dict):
        value = request.data.get(USER_ID)
    return value


def _is_app_endpoint(request: Request) -> bool:
    """True on the app's own endpoints (people, their tokens, the app itself)."""
    view = (getattr(request, "parser_context", None) or {}).get("view")
    return IsAppToken in getattr(view, "permission_classes", ())


def app_authenticate(request: Request, secret: str) -> tuple[Any, Any]:
    """(the person's account, their acting token) when the request names a person of the
    token's app; (AppPrincipal, app token) when it names none."""
    app_token = people.app_token_authenticate(secret)
    if app_token is None:
        raise exceptions.AuthenticationFailed("Invalid or revoked app token.")
    if _is_app_endpoint(request):
        return AppPrincipal(app_token), app_token
    person_id = requested_person_id(request)
    if person_id is None:
        return AppPrincipal(app_token), app_token
    try:
        acting = people.act_for(app_token=app_token, external_id=person_id)
    except people.PersonNotFound:
        raise exceptions.NotFound("No such person (user_id) of this app.") from None
    except people.PersonDisabled as disabled:
        raise exceptions.AuthenticationFailed(str(disabled)) from None
    except Exception as exc:  # a malformed id (ValidationError, or the database's refusal)
        raise exceptions.ValidationError({USER_ID: ["Not a valid user_id."]}) from exc
    return acting


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        secret = _secret(request, ("bearer", "token"))
        if secret is None:
            return None
        if people.is_app_secret(secret):
            return app_authenticate(request, secret)
        token = token_authenticate(secret)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid, expired or revoked token.")
        return token.owner, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def is_app_request(request: Request) -> bool:
    """True for an app token acting for no one."""
    return isinstance(getattr(request, "auth", None), AppToken)


class ActsForAPerson(permissions.IsAuthenticated):
    """The default: a signed-in person or a person's token; an app token must name the
    person it acts for (`user_id`)."""

    message = "An app token acts for one of its people here: pass user_id."
    refuses_writes_during_erase = True

    def has_permission(self, request: Request, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        if is_app_request(request):
            raise exceptions.PermissionDenied(self.message)
        if self.refuses_writes_during_erase:
            writes_refused(request)  # 503 while the person's erase runs
        return True


class ActsForAPersonToolByTool(ActsForAPerson):
    """MCP's: every message is a POST, reading or not, so the tool dispatcher refuses
    the writing tools while the person's erase runs (a tool error the agent reads) and
    answers the rest."""

    refuses_writes_during_erase = False


class IsAppToken(permissions.BasePermission):
    """Only an app token acting for no one (the app's own endpoints)."""

    message = "This endpoint takes an app token (gaia_app_...), without user_id."

    def has_permission(self, request: Request, view: Any) -> bool:
        return is_app_request(request)
