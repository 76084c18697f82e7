"""POST /api/v1/account/erase/: erase the caller's whole memory (or count it, dry run)."""

from django.core.exceptions import ValidationError
from drf_spectacular.utils import extend_schema_serializer, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.openapi import body_action
from core.api.serializers import StrictSerializer
from core.api.views import valid_body
from privacy.services import memory_erase_user

_COUNTS = serializers.DictField(child=serializers.IntegerField())


@extend_schema_serializer(component_name="AccountErase")
class EraseRequestSerializer(StrictSerializer):
    confirm = serializers.BooleanField(default=False, help_text="Must be true to erase.")
    dry_run = serializers.BooleanField(default=False, help_text="Only count what would go.")


class AccountEraseView(APIView):
    @body_action(
        "account_erase",
        EraseRequestSerializer,
        inline_serializer(
            "AccountEraseResult", {"dry_run": serializers.BooleanField(), "erased": _COUNTS}
        ),
        tags=["account"],
        summary="Erase the caller's whole memory (cannot be undone)",
        description=(
            "Hard-deletes every item, turn, session, tool call and discovery finding of "
            "the caller, their profile cache, LLM counters, reconciled pairs and the "
            'queued background tasks that name them. Requires `{"confirm": true}`; '
            "`dry_run` only counts. The account, its tokens and settings stay."
        ),
    )
    def post(self, request: Request) -> Response:
        given = valid_body(EraseRequestSerializer, request)
        dry_run = given["dry_run"]
        if not dry_run and not given["confirm"]:
            raise ValidationError(
                'Erasing your whole memory cannot be undone: send {"confirm": true}.',
                code="confirmation_required",
            )
        counts = memory_erase_user(user=request.user, dry_run=dry_run)
        return Response({"dry_run": dry_run, "erased": counts})
