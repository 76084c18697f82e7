"""Staff's apps endpoint: list the apps, create one with its first token (the secret is
in that answer only). For a staff user's session or token with the admin's permission
for it (listing: view apps; creating: add apps), as the admin asks; nobody else, no app
token."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import people
from accounts.api.serializers import AppCreateSerializer, AppSerializer, CreatedAppSerializer
from core.api.serializers import errors
from core.api.views import PagedListView, valid_body


class IsStaff(permissions.BasePermission):
    """A staff user (their session or one of their tokens); app tokens never are."""

    message = "Only staff may manage apps."

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff and user.is_active)


class MayManageApps(IsStaff):
    """Staff whom the admin lets do this: view apps to list them, add apps to create one
    (and so read its first token's secret)."""

    message = "Only staff with the admin's permission for apps may do this."

    def has_permission(self, request: Request, view: Any) -> bool:
        action = "view" if request.method in permissions.SAFE_METHODS else "add"
        return super().has_permission(request, view) and request.user.has_perm(
            f"accounts.{action}_app"
        )


class AppsView(PagedListView):
    permission_classes = [MayManageApps]
    serializer_class = AppSerializer

    @extend_schema(
        operation_id="apps_list",
        tags=["apps"],
        summary="List the apps (staff)",
        description="Every app by name, with its people count and tokens (no secrets). "
        "Takes the admin's permission to view apps.",
        responses={200: AppSerializer(many=True), **errors(401, 403)},
    )
    def get(self, request: Request) -> Response:
        return self.paged(people.app_list().prefetch_related("tokens"))

    @extend_schema(
        operation_id="apps_register",
        tags=["apps"],
        summary="Create an app and its first token (staff)",
        description="The token's secret (`token.secret`) is in this answer only. Takes "
        "the admin's permission to add apps.",
        request=AppCreateSerializer,
        responses={201: CreatedAppSerializer, **errors(400, 401, 403)},
    )
    def post(self, request: Request) -> Response:
        given = valid_body(AppCreateSerializer, request)
        app, token, secret = people.app_create_with_token(
            name=given["name"],
            description=given.get("description", ""),
            token_name=given.get("token_name") or "default",
            created_by=request.user,
        )
        app.people_count = 0
        token.secret = secret
        app.token = token
        return Response(CreatedAppSerializer(app).data, status=status.HTTP_201_CREATED)
