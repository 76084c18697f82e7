"""An app's own endpoints (an app token, no user_id): who the app is, its people by their
external id (create, list, read, erase) and the tokens it issues to them.

Another app's person is answered exactly like a missing one (404): an app only knows the
external ids it created. Ids are path segments, URL-encoded (see docs/apps.md).
"""

from django.core.exceptions import ValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import people
from accounts.api.serializers import (
    MeSerializer,
    NewPersonTokenSerializer,
    PersonCreateSerializer,
    PersonErasedSerializer,
    PersonSerializer,
    PersonTokenCreateSerializer,
    PersonTokenSerializer,
)
from accounts.auth import IsAppToken
from accounts.models import AppPerson
from core.api.openapi import Operations, path_id
from core.api.serializers import refuse_body
from core.api.views import PagedListView, valid_body
from privacy.services import app_person_erase

USER_ID = OpenApiParameter(
    "user_id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="The app's id for the person, URL-encoded (a space is %20). Another app's "
    "person answers 404 like a missing one.",
)
TOKEN_ID = path_id("The token's id, from the person's token list.")
APP_FAILURES = (401, 403, 404)  # 403: not an app token, or one acting for a person
api = Operations(["apps"], failures=APP_FAILURES)
on_person = api.at(USER_ID)


class AppOwnEndpoint:
    """The app's own endpoints: an app token without user_id (auth never acts for a
    person here), rate-limited per app token (the API's one throttle)."""

    permission_classes = [IsAppToken]


def _person(request: Request, user_id: str) -> AppPerson:
    """The calling app's person; a missing, foreign or malformed id is the same 404."""
    try:
        return people.person_get(app=request.user.app, external_id=user_id)
    except ValidationError:
        raise people.PersonNotFound("No such person.") from None


class AppMeView(AppOwnEndpoint, APIView):
    @api.operation(
        "app_get",
        MeSerializer,
        summary="The app this token belongs to",
        description="Its name, how many people it has, its tokens (no secrets) and the "
        "token of this request.",
        failures=(401, 403),
    )
    def get(self, request: Request) -> Response:
        app = people.app_list().get(pk=request.user.app.pk)
        app.token = request.auth
        return Response(MeSerializer(app).data)


@api.paged_list(
    "people_list",
    summary="List the app's people",
    description="Oldest first, paged (`page`, `page_size`).",
)
class PeopleView(AppOwnEndpoint, PagedListView):
    serializer_class = PersonSerializer

    def get(self, request: Request) -> Response:
        return self.paged(people.person_list(app=request.user.app))

    @api.found_or_created(
        "people_add",
        PersonCreateSerializer,
        PersonSerializer,
        summary="Create a person (or get the existing one)",
        description="201 with the new person; 200 with the existing one (its metadata "
        "unchanged) when the app already has this user_id. The person's account cannot "
        "log into the web app.",
        failures=(400, 401, 403),
    )
    def post(self, request: Request) -> Response:
        given = valid_body(PersonCreateSerializer, request)
        person, created = people.person_create(
            app=request.user.app, external_id=given["user_id"], metadata=given.get("metadata")
        )
        answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(PersonSerializer(person).data, status=answer)


class PersonDetailView(AppOwnEndpoint, APIView):
    @on_person.row_answer("people_get", PersonSerializer, summary="Get one person")
    def get(self, request: Request, user_id: str) -> Response:
        return Response(PersonSerializer(_person(request, user_id)).data)

    @on_person.row_action(
        "people_erase",
        PersonErasedSerializer,
        summary="Erase a person: everything of theirs, then their account",
        description="Hard-deletes every memory, version, turn, session, tool call and "
        "queued task of the person (as the account erase does), then the account with "
        "its tokens and agents. Cannot be undone; the user_id is free again afterwards.",
    )
    def delete(self, request: Request, user_id: str) -> Response:
        refuse_body(request.data)
        person = _person(request, user_id)
        erased = app_person_erase(app=person.app, person=person)
        return Response({"user_id": person.external_id, "erased": erased})


@on_person.paged_list(
    "people_tokens_list",
    summary="List the tokens the app issued to a person",
)
class PersonTokensView(AppOwnEndpoint, PagedListView):
    serializer_class = PersonTokenSerializer

    def get(self, request: Request, user_id: str) -> Response:
        person = _person(request, user_id)
        return self.paged(people.person_tokens(app=request.user.app, person=person))

    @on_person.row_change(
        "people_tokens_issue",
        PersonTokenCreateSerializer,
        NewPersonTokenSerializer,
        status=201,
        summary="Issue a token to a person (for their own agent to hold)",
        description="The token acts only as this person, like a token they made "
        "themselves. Its secret is in this answer only.",
        failures=(400, *APP_FAILURES),
    )
    def post(self, request: Request, user_id: str) -> Response:
        person = _person(request, user_id)
        given = valid_body(PersonTokenCreateSerializer, request)
        token, secret = people.person_token_issue(
            app=request.user.app,
            person=person,
            name=given["name"],
            agent_name=given.get("agent") or None,
        )
        token.secret = secret
        return Response(NewPersonTokenSerializer(token).data, status=status.HTTP_201_CREATED)


class PersonTokenDetailView(AppOwnEndpoint, APIView):
    @on_person.at(TOKEN_ID).row_erase(
        "people_tokens_revoke",
        "Revoked.",
        summary="Revoke a token the app issued to a person",
        description="It stops working with the next request. Revoking twice is fine.",
    )
    def delete(self, request: Request, user_id: str, pk: int) -> Response:
        refuse_body(request.data)
        person = _person(request, user_id)
        people.person_token_revoke(app=request.user.app, person=person, token_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
