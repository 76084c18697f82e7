"""Discovery API: propose findings scanned elsewhere, review them, reset.

Views only parse input, call one service and serialize the result; errors follow
core.api.conventions (400 for bad input, 403 without consent, 404 for missing or foreign ids).
"""

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.openapi import Operations, path_id
from core.api.serializers import refuse_body
from core.api.views import PagedListView, request_body
from discovery import selectors, services
from discovery.serializers import (
    STATUS_FILTERS,
    ApprovedFindingSerializer,
    ApproveRequestSerializer,
    BulkApproveRequestSerializer,
    BulkApproveResponseSerializer,
    FindingSerializer,
    ProposeRequestSerializer,
    ProposeResponseSerializer,
    ResetRequestSerializer,
    ResetResponseSerializer,
)
from privacy import services as privacy_services

TAGS = ["discovery"]
FINDING_ID = path_id("The finding's id. Another user's id answers 404, like a missing one.")
api = Operations(TAGS)
on_finding = api.at(FINDING_ID)


class DiscoveryView(APIView):
    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, services.ConsentRequired):
            exc = exceptions.PermissionDenied(detail=exc.message, code=exc.code)
        return super().handle_exception(exc)


def _object(data: Any, fields: Iterable[str]) -> dict:
    """The body as an object holding only `fields` (unknown fields are refused)."""
    if data in (None, ""):
        return {}
    if not isinstance(data, dict):
        raise ValidationError("The request body must be a JSON object.", code="invalid")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValidationError({name: "Unknown field: it cannot be set." for name in unknown})
    return data


class FindingsView(DiscoveryView, PagedListView):
    serializer_class = FindingSerializer

    @extend_schema(
        operation_id="discovery_findings_list",
        tags=TAGS,
        summary="List findings (the review queue)",
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=STATUS_FILTERS,
                default="pending",
                description="Which findings: pending review (the default), approved, "
                "rejected, or all.",
            ),
            OpenApiParameter(
                "scanner",
                OpenApiTypes.STR,
                required=False,
                description="Only the findings of this scanner, e.g. git or projects.",
            ),
        ],
        responses=FindingSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        services.discovery_require_consent(request.user)
        findings = selectors.findings_list(
            user=request.user,
            status=request.query_params.get("status", "pending"),
            scanner=request.query_params.get("scanner") or None,
        )
        return self.paged(findings)

    @extend_schema(
        operation_id="discovery_findings_propose",
        tags=TAGS,
        summary="Propose findings scanned elsewhere (python -m discovery.scan)",
        description='Body: {"findings": [...]} or a bare list. Pending, decided and '
        "already stored facts are skipped; credential-shaped content is refused.",
        request=ProposeRequestSerializer,
        responses={201: ProposeResponseSerializer, 200: ProposeResponseSerializer},
    )
    def post(self, request: Request) -> Response:
        data = request_body(request)
        findings = _object(data, ["findings"]).get("findings") if isinstance(data, dict) else data
        result = services.finding_propose_many(user=request.user, findings=findings)
        body = result.as_dict() | {"findings": FindingSerializer(result.created, many=True).data}
        return Response(body, status=status.HTTP_201_CREATED if result.created else 200)


class FindingApproveView(DiscoveryView):
    @on_finding.stated(
        "discovery_finding_approve",
        ApproveRequestSerializer,
        ApprovedFindingSerializer,
        summary="Approve a finding, optionally edited: it becomes knowledge",
    )
    def post(self, request: Request, pk: int) -> Response:
        edits = _object(request_body(request), services.EDITABLE)
        finding = services.finding_approve(user=request.user, finding_id=pk, edits=edits)
        return Response(ApprovedFindingSerializer(finding).data)


class FindingRejectView(DiscoveryView):
    @on_finding.stated(
        "discovery_finding_reject", None, FindingSerializer, summary="Reject a finding"
    )
    def post(self, request: Request, pk: int) -> Response:
        refuse_body(request_body(request))
        finding = services.finding_reject(user=request.user, finding_id=pk)
        return Response(FindingSerializer(finding).data)


class FindingsApproveView(DiscoveryView):
    @api.stated(
        "discovery_findings_approve_bulk",
        BulkApproveRequestSerializer,
        BulkApproveResponseSerializer,
        summary="Approve several findings as they are (all or nothing)",
    )
    def post(self, request: Request) -> Response:
        ids = _object(request_body(request), ["ids"]).get("ids")
        findings = services.findings_approve_bulk(user=request.user, finding_ids=ids)
        return Response(
            {"approved": len(findings), "findings": FindingSerializer(findings, many=True).data}
        )


class ResetView(DiscoveryView):
    @extend_schema(
        operation_id="discovery_reset",
        tags=TAGS,
        summary="Erase every discovery-sourced item and all findings",
        description='Requires {"confirm": true}. Works with or without consent.',
        request=ResetRequestSerializer,
        responses=ResetResponseSerializer,
    )
    def post(self, request: Request) -> Response:
        if _object(request_body(request), ["confirm"]).get("confirm") is not True:
            raise ValidationError(
                'Resetting erases all discovery items: send {"confirm": true}.',
                code="confirmation_required",
            )
        result = privacy_services.discovery_reset(user=request.user)
        return Response(
            {"erased_items": result.erased_items, "cleared_findings": result.cleared_findings}
        )
