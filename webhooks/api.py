"""The webhooks API (/api/v1/webhooks/): a person (their token or web session) or an app
(its app token without user_id) registers endpoints, reads their deliveries, sends a
ping, rotates the secret, pauses, resumes and deletes. Each sees only their own."""

from collections.abc import Callable
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema_view, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import is_app_request
from core.api.openapi import Operations, path_id
from core.api.serializers import refuse_body
from core.api.views import PagedListView, request_body, valid_body
from webhooks import delivery, selectors, services
from webhooks.models import Delivery, Endpoint
from webhooks.serializers import (
    DeliverySerializer,
    EndpointCreateSerializer,
    EndpointSerializer,
    EndpointUpdateSerializer,
    EndpointWithSecretSerializer,
)

ENDPOINT_ID = path_id("The endpoint's id; another owner's id answers 404 like a missing one.")
api = Operations(["webhooks"])
on_endpoint = api.at(ENDPOINT_ID, row=EndpointSerializer)
WHO = (
    " With a person's token (or web session): that person's endpoints. With an app token "
    "and no user_id: the app's endpoints, which receive the events of all its people."
)


def owner_of(request: Request) -> dict[str, Any]:
    """Whose endpoints a request reaches: the app's (app token acting for no one) or the
    person's."""
    if is_app_request(request):
        return {"app": request.user.app}
    return {"user": request.user}


def _endpoint(request: Request, pk: int) -> Endpoint:
    return selectors.endpoint_get(endpoint_id=pk, **owner_of(request))


def _fresh(request: Request, endpoint: Endpoint) -> dict:
    return EndpointSerializer(_endpoint(request, endpoint.pk)).data


class _Base(APIView):
    permission_classes = [IsAuthenticated]  # a person, or an app token acting for no one


@api.paged_list(
    "webhooks_list",
    summary="List your webhook endpoints",
    description="Oldest first, with how many deliveries wait for each." + WHO,
    failures=(404,),  # a page past the end
)
class WebhookListView(_Base, PagedListView):
    serializer_class = EndpointSerializer

    def get(self, request: Request) -> Response:
        return self.paged(selectors.endpoint_list(**owner_of(request)))

    @api.body_action(
        "webhooks_register",
        EndpointCreateSerializer,
        EndpointWithSecretSerializer,
        status=201,
        summary="Register a webhook endpoint",
        description="Answers the endpoint with its signing `secret`, shown only this once "
        "(rotate it to get a new one)." + WHO,
    )
    def post(self, request: Request) -> Response:
        data = valid_body(EndpointCreateSerializer, request)
        endpoint, secret = services.endpoint_create(**owner_of(request), **data)
        body = {**_fresh(request, endpoint), "secret": secret}
        return Response(body, status=status.HTTP_201_CREATED)


class WebhookDetailView(_Base):
    @on_endpoint.row_answer("webhooks_get", summary="Get one webhook endpoint")
    def get(self, request: Request, pk: int) -> Response:
        return Response(EndpointSerializer(_endpoint(request, pk)).data)

    @on_endpoint.row_change(
        "webhooks_update",
        EndpointUpdateSerializer,
        summary="Change an endpoint's URL, events or description",
    )
    def patch(self, request: Request, pk: int) -> Response:
        endpoint = _endpoint(request, pk)
        services.endpoint_update(endpoint=endpoint, **valid_body(EndpointUpdateSerializer, request))
        return Response(_fresh(request, endpoint))

    @on_endpoint.operation(
        "webhooks_delete",
        None,
        body=None,
        status=204,
        summary="Delete an endpoint, its waiting deliveries and its log",
        failures=(400, 404),
    )
    def delete(self, request: Request, pk: int) -> Response:
        refuse_body(request_body(request))
        services.endpoint_delete(endpoint=_endpoint(request, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


_SECRET = inline_serializer(
    "WebhookSecret", {"id": serializers.IntegerField(), "secret": serializers.CharField()}
)


class WebhookSecretView(_Base):
    @on_endpoint.row_action(
        "webhooks_rotate_secret",
        _SECRET,
        summary="Replace the endpoint's signing secret",
        description="The old secret signs nothing from now on; the new one is shown only "
        "in this answer.",
    )
    def post(self, request: Request, pk: int) -> Response:
        refuse_body(request_body(request))
        endpoint = _endpoint(request, pk)
        secret = services.endpoint_rotate_secret(endpoint=endpoint)
        return Response({"id": endpoint.pk, "secret": secret})


class _Switch(_Base):
    """Turns sending to an endpoint off or on (`switch`); takes no body, answers the
    endpoint."""

    switch: Callable[..., Endpoint]

    def post(self, request: Request, pk: int) -> Response:
        refuse_body(request_body(request))
        endpoint = self.switch(endpoint=_endpoint(request, pk))
        return Response(_fresh(request, endpoint))


def _switch_schema(operation_id: str, summary: str, description: str) -> Any:
    return extend_schema_view(
        post=on_endpoint.row_action(operation_id, summary=summary, description=description)
    )


@_switch_schema(
    "webhooks_pause",
    "Pause an endpoint",
    "Nothing is sent until it is resumed; events keep being queued for it.",
)
class WebhookPauseView(_Switch):
    switch = staticmethod(services.endpoint_pause)


@_switch_schema(
    "webhooks_resume",
    "Resume an endpoint (paused by you or after repeated failure)",
    "Sending starts again at once with the oldest waiting delivery.",
)
class WebhookResumeView(_Switch):
    switch = staticmethod(services.endpoint_resume)


class WebhookPingView(_Base):
    @on_endpoint.row_action(
        "webhooks_ping",
        DeliverySerializer,
        summary="Send a test event (ping) to the endpoint now",
        description="Sent at once, outside the endpoint's queue (also when paused), and "
        "logged; the answer is the delivery with its outcome.",
    )
    def post(self, request: Request, pk: int) -> Response:
        refuse_body(request_body(request))
        sent = delivery.ping_send(endpoint=_endpoint(request, pk))
        found = selectors.delivery_list(endpoint=sent.endpoint).get(pk=sent.pk)
        return Response(DeliverySerializer(found).data)


@on_endpoint.paged_list(
    "webhooks_deliveries",
    parameters=[
        OpenApiParameter(
            "status",
            OpenApiTypes.STR,
            enum=[s for s, _ in Delivery.STATUSES],
            description="Only deliveries with this status.",
        ),
    ],
    summary="List an endpoint's deliveries, newest first, with every attempt",
    failures=(400, 404),
)
class WebhookDeliveriesView(_Base, PagedListView):
    serializer_class = DeliverySerializer

    def get(self, request: Request, pk: int) -> Response:
        endpoint = _endpoint(request, pk)
        wanted = request.query_params.get("status") or None
        if wanted is not None and wanted not in dict(Delivery.STATUSES):
            raise serializers.ValidationError({"status": ["Unknown status."]})
        return self.paged(selectors.delivery_list(endpoint=endpoint, status=wanted))
