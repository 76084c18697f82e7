"""What every mem0 endpoint shares: the app-token authentication, the error shape mem0's
SDK reads (`detail`), 501 for what is not supported, and finding the app's people and
their items.

Only an app token is accepted (`Authorization: Token gaia_app_...`, as mem0's SDK sends
it, or `Bearer`): mem0's API serves many users with one key, and so does an app here. A
person's own token answers 401 with a message saying so.
"""

from typing import Any

from django.db.models import QuerySet
from rest_framework import authentication, exceptions, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import people
from accounts.auth import AppPrincipal
from accounts.models import ApiToken, AppPerson, AppToken
from accounts.selectors import agent_owners
from conversations.selectors import session_owners, sessions_of_turns
from core.api.conventions import TokenRateThrottle, exception_handler
from core.erasing import writes_refused
from mem0api.api.filters import Scope
from memory import selectors
from memory.models import KnowledgeItem

NOT_AN_APP_TOKEN = (
    "This endpoint takes an app token (gaia_app_...) as mem0's api_key; a person's own "
    "token does not work here."
)


class NotSupported(exceptions.APIException):
    """501: a part of mem0's API this server does not offer, named in the message."""

    status_code = status.HTTP_501_NOT_IMPLEMENTED
    default_code = "not_supported"
    default_detail = "Not supported by this server."


class AppTokenAuthentication(authentication.BaseAuthentication):
    """`Token <app token>` (mem0's SDK) or `Bearer <app token>`."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header:
            return None
        if header[0].lower() not in ("token", "bearer") or len(header) != 2:
            raise exceptions.AuthenticationFailed("Use: Authorization: Token <app token>.")
        if not people.is_app_secret(header[1]):
            raise exceptions.AuthenticationFailed(NOT_AN_APP_TOKEN)
        token = people.app_token_authenticate(header[1])
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked app token.")
        return AppPrincipal(token), token

    def authenticate_header(self, request: Request) -> str:
        return "Bearer"  # the house's scheme; mem0's "Token" is accepted the same


class IsApp(permissions.BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(getattr(request, "auth", None), AppToken)


def _detail(data: dict) -> str:
    error = data.get("error", {})
    fields = error.get("fields") or {}
    if fields:
        return "; ".join(f"{name}: {' '.join(msgs)}" if name else " ".join(msgs)
                         for name, msgs in fields.items())  # fmt: skip
    return str(error.get("message", ""))


def mem0_exception_handler(exc: Exception, context: dict) -> Response | None:
    """The house error shape, plus `detail`: the text mem0's SDK puts in its exceptions."""
    response = exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "error" in response.data:
        response.data["detail"] = _detail(response.data)
    return response


class Mem0View(APIView):
    authentication_classes = [AppTokenAuthentication]
    permission_classes = [IsApp]
    throttle_classes = [TokenRateThrottle]  # per app token (AppToken.rate_key)

    def get_exception_handler(self) -> Any:
        return mem0_exception_handler

    def permission_denied(self, request: Request, message: Any = None, code: Any = None) -> None:
        if request.authenticators and not request.successful_authenticator:
            raise exceptions.NotAuthenticated(NOT_AN_APP_TOKEN)
        raise exceptions.PermissionDenied(NOT_AN_APP_TOKEN)


def refuse_unsupported(given: dict, names: set[str], what: str) -> None:
    """501 naming the options of `given` this server does not offer for `what`."""
    asked = sorted(name for name in names if given.get(name) not in (None, False, "", [], {}))
    if asked:
        raise NotSupported(f"{what}: {', '.join(asked)} not supported by this server.")


def app_of(request: Request) -> Any:
    return request.auth.app


def acting(request: Request, person: AppPerson) -> ApiToken:
    """The person's token this app token writes through: history names app and token.
    A person whose account an administrator disabled is refused (403); a write while the
    person's erase runs is the 503 `erase_running` (an `add` racing `delete_users` would
    otherwise store for the person being erased)."""
    request.app_person = person  # whom a failure during their erase is about
    if person.user.is_active:
        writes_refused(request, person.user)
    try:
        return people.person_acting(app_token=request.auth, person=person)
    except people.PersonDisabled as disabled:
        raise exceptions.PermissionDenied(str(disabled)) from None


def people_for(app: Any, scope: Scope) -> list[AppPerson]:
    """The app's people a scope covers: its user, or (no user) those with that agent or
    run. An unknown user covers no one: never another app's person."""
    found = people.person_list(app=app).filter(user__is_active=True)
    if scope.user_id is not None:
        try:
            person = people.person_get(app=app, external_id=scope.user_id)
        except people.PersonNotFound:
            return []
        return [person] if person.user.is_active else []
    if scope.agent_id is not None:
        found = found.filter(user_id__in=agent_owners(name=scope.agent_id))
    if scope.run_id is not None:
        found = found.filter(user_id__in=session_owners(session_id=scope.run_id))
    return list(found)


def scoped_items(person: AppPerson, scope: Scope) -> QuerySet[KnowledgeItem]:
    """The person's active items in the scope (their agent's, their run's, those its
    conditions select), newest first."""
    items = selectors.memory_list(user=person.user, agent=scope.agent_id).filter(scope.where)
    if scope.run_id is not None:
        items = items.filter(source_turn__session__session_id=scope.run_id)
    return items


def item_of_app(app: Any, memory_id: str) -> tuple[AppPerson, KnowledgeItem]:
    """The active item `memory_id` of one of the app's people, and that person; any other
    id (missing, forgotten, another app's) is the same KnowledgeItem.DoesNotExist."""
    if not (memory_id.isascii() and memory_id.isdigit()) or len(memory_id) > 18:
        raise KnowledgeItem.DoesNotExist
    owner_id = selectors.item_owner(
        item_id=int(memory_id), owner_ids=people.person_list(app=app).values("user_id")
    )
    person = people.person_list(app=app).filter(user_id=owner_id, user__is_active=True).first()
    if owner_id is None or person is None:
        raise KnowledgeItem.DoesNotExist
    item = selectors.memory_visible(user=person.user, item_id=int(memory_id), active_only=True)
    return person, item


def runs_of(items: list[KnowledgeItem]) -> dict[int, str]:
    """item id -> the run (session id) it was learned in or stored with."""
    turn_ids = {item.source_turn_id: item.pk for item in items if item.source_turn_id}
    owners = {item.owner_id for item in items}
    sessions = sessions_of_turns(turn_ids=list(turn_ids), owner_ids=owners)
    return {item.pk: sessions[item.source_turn_id] for item in items
            if item.source_turn_id in sessions}  # fmt: skip
