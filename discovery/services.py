"""The one write path for findings: the command, the API, the web queue and the admin
all call these. Every read starts at `Finding.objects.for_user`, so another user's
finding id behaves exactly like a missing one (`Finding.DoesNotExist`)."""

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.services import user_settings_get
from core.ids import MAX_ID
from core.validation import clean_short, clean_text, refuse_credentials
from discovery.models import Finding
from discovery.scanners import ALWAYS_SENSITIVE, SCANNERS
from memory import services as memory
from memory.models import CATEGORIES, CONTENT_MAX, SOURCE_CONFIDENCE, KnowledgeItem

MAX_BATCH = 1000
EDITABLE = ("content", "category", "context", "entity", "sensitive")
CONFIDENCE = SOURCE_CONFIDENCE["discovery"]
_WORD = re.compile(r"\w+", re.UNICODE)


class ConsentRequired(PermissionDenied):
    """Discovery is off for this user until they enable it."""

    code = "discovery_consent_required"
    message = (
        "Discovery is off for this account. Turn it on in Settings (web app: Discovery) "
        "before scanning or reviewing findings."
    )

    def __init__(self) -> None:
        super().__init__(self.message)


def discovery_require_consent(user: Any) -> None:
    if not user_settings_get(user).discovery_consent:
        raise ConsentRequired()


def fingerprint(content: str) -> str:
    """The same for contents that differ only in case, spacing or punctuation."""
    normal = " ".join(_WORD.findall(content.lower()))
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


@dataclass
class ProposeResult:
    created: list[Finding] = field(default_factory=list)
    duplicate: int = 0  # already pending (or repeated within the batch)
    rejected: int = 0  # rejected before: never proposed again
    approved: int = 0  # approved before
    stored: int = 0  # memory already holds the same fact
    refused: int = 0  # credential-shaped: never stored, not even as a proposal

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": len(self.created),
            "skipped": {
                "duplicate": self.duplicate,
                "rejected": self.rejected,
                "approved": self.approved,
                "stored": self.stored,
                "refused": self.refused,
            },
        }


def _clean(entry: Any, index: int) -> dict[str, Any]:
    """Validate one proposed finding; errors name it as findings[index].field."""
    if not isinstance(entry, dict):
        raise ValidationError({f"findings[{index}]": "Each finding must be an object."})
    unknown = set(entry) - {*EDITABLE, "scanner", "confidence"}
    if unknown:
        raise ValidationError(
            {f"findings[{index}].{name}": "Unknown field." for name in sorted(unknown)}
        )
    try:
        scanner = entry.get("scanner")
        if not isinstance(scanner, str) or scanner not in SCANNERS:
            raise ValidationError({"scanner": f"Use one of: {', '.join(SCANNERS)}."})
        category = entry.get("category") or "fact"
        if category not in CATEGORIES:
            raise ValidationError({"category": f"Use one of: {', '.join(CATEGORIES)}."})
        sensitive = entry.get("sensitive", False)
        if not isinstance(sensitive, bool):
            raise ValidationError({"sensitive": "Must be true or false."})
        return {
            "content": clean_text(entry.get("content"), field="content", limit=CONTENT_MAX),
            "category": category,
            "context": clean_short(entry.get("context"), field="context", limit=100,
                                   default="global"),
            "entity": clean_short(entry.get("entity"), field="entity", limit=200).lower(),
            "sensitive": sensitive or scanner in ALWAYS_SENSITIVE,
            "scanner": scanner,
        }  # fmt: skip
    except ValidationError as error:
        raise ValidationError(
            {f"findings[{index}].{name}": msgs for name, msgs in error.message_dict.items()}
        ) from error


def _stored_fingerprints(user: Any, scopes: set[tuple[str, str, str]]) -> set[str]:
    """Fingerprints of the active knowledge in the given (category, context, entity) scopes."""
    found: set[str] = set()
    for category, context, entity in scopes:
        contents = (
            KnowledgeItem.objects.for_user(user)
            .active()
            .filter(category=category, context=context, entity=entity)
            .values_list("content", flat=True)
        )
        found.update(fingerprint(c) for c in contents.iterator())
    return found


def finding_propose_many(*, user: Any, findings: list[Any]) -> ProposeResult:
    """Store scanned facts as pending proposals for `user` to review.

    Skips what is already pending, was decided before, or is already in memory; refuses
    credential-shaped content. A malformed entry fails the whole batch (ValidationError
    naming it) and nothing is stored.
    """
    discovery_require_consent(user)
    if not isinstance(findings, list):
        raise ValidationError({"findings": "Must be a list."})
    if len(findings) > MAX_BATCH:
        raise ValidationError({"findings": f"At most {MAX_BATCH} findings per request."})
    cleaned = [_clean(entry, index) for index, entry in enumerate(findings)]
    result = ProposeResult()
    with transaction.atomic():
        known = dict(
            Finding.objects.for_user(user)
            .filter(fingerprint__in=[fingerprint(c["content"]) for c in cleaned])
            .values_list("fingerprint", "status")
        )
        stored = _stored_fingerprints(user, {(c["category"], c["context"], c["entity"])
                                             for c in cleaned})  # fmt: skip
        new: list[Finding] = []
        for entry in cleaned:
            mark = fingerprint(entry["content"])
            status = known.get(mark)
            if status is not None:
                field_name = "duplicate" if status == "pending" else status
                setattr(result, field_name, getattr(result, field_name) + 1)
                continue
            if mark in stored:
                result.stored += 1
                continue
            try:
                refuse_credentials(entry["content"])
            except ValidationError:
                result.refused += 1
                continue
            known[mark] = "pending"
            new.append(Finding(owner=user, fingerprint=mark, confidence=CONFIDENCE, **entry))
        # ignore_conflicts: a concurrent scan of the same user may have won the race.
        Finding.objects.bulk_create(new, ignore_conflicts=True)
    result.created = list(
        Finding.objects.for_user(user)
        .filter(fingerprint__in=[f.fingerprint for f in new])
        .order_by("pk")
    )
    return result


def _clean_edits(edits: dict[str, Any] | None) -> dict[str, Any]:
    edits = dict(edits or {})
    unknown = set(edits) - set(EDITABLE)
    if unknown:
        raise ValidationError({name: "This field cannot be edited." for name in sorted(unknown)})
    if "category" in edits and edits["category"] not in CATEGORIES:
        raise ValidationError({"category": f"Use one of: {', '.join(CATEGORIES)}."})
    if "sensitive" in edits and not isinstance(edits["sensitive"], bool):
        raise ValidationError({"sensitive": "Must be true or false."})
    return edits


def finding_approve(*, user: Any, finding_id: int, edits: dict[str, Any] | None = None) -> Finding:
    """Turn a finding into knowledge (source `discovery`, confidence 0.4), optionally
    edited first. History and e-mail findings stay sensitive whatever the edit says.

    The finding keeps its original content (and fingerprint); `finding.knowledge` is the
    stored item, which may be an existing near-duplicate that memory folded it into.
    """
    discovery_require_consent(user)
    edits = _clean_edits(edits)
    with transaction.atomic():
        finding = Finding.objects.for_user(user).select_for_update().get(pk=finding_id)
        if finding.status == "approved":
            raise ValidationError("This finding is already approved.", code="already_approved")
        fields = {name: getattr(finding, name) for name in EDITABLE} | edits
        if finding.scanner in ALWAYS_SENSITIVE:
            fields["sensitive"] = True
        item = memory.memory_create(
            user=user,
            source="discovery",
            confidence=CONFIDENCE,
            metadata={"discovery": {"finding": finding.pk, "scanner": finding.scanner}},
            **fields,
        )
        finding.status = "approved"
        finding.knowledge = item
        finding.decided_at = timezone.now()
        finding.save(update_fields=["status", "knowledge", "decided_at"])
    return finding


def finding_reject(*, user: Any, finding_id: int) -> Finding:
    """Reject a pending finding: it is never proposed again (until a reset)."""
    discovery_require_consent(user)
    with transaction.atomic():
        finding = Finding.objects.for_user(user).select_for_update().get(pk=finding_id)
        if finding.status == "approved":
            raise ValidationError(
                "This finding is already approved; forget the knowledge item instead.",
                code="already_approved",
            )
        if finding.status == "pending":
            finding.status = "rejected"
            finding.decided_at = timezone.now()
            finding.save(update_fields=["status", "decided_at"])
    return finding


def findings_approve_bulk(*, user: Any, finding_ids: list[Any]) -> list[Finding]:
    """Approve several findings as they are; all or nothing. Already approved ones are
    left as they are; an id that is not one of the user's findings is a DoesNotExist."""
    discovery_require_consent(user)
    if not isinstance(finding_ids, list) or not finding_ids:
        raise ValidationError({"ids": "Give a non-empty list of finding ids."})
    if len(finding_ids) > MAX_BATCH or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in finding_ids
    ):
        raise ValidationError({"ids": f"At most {MAX_BATCH} integer ids."})
    ids = list(dict.fromkeys(finding_ids))
    if not all(0 < i <= MAX_ID for i in ids):  # no row has one: no query may see it
        raise ValidationError({"ids": f"An id is from 1 to {MAX_ID}."})
    with transaction.atomic():
        found = dict(Finding.objects.for_user(user).filter(pk__in=ids).values_list("pk", "status"))
        if len(found) != len(ids):
            raise Finding.DoesNotExist("No such finding.")
        approved = []
        for finding_id in ids:
            if found[finding_id] != "approved":
                try:
                    finding_approve(user=user, finding_id=finding_id)
                except ValidationError as error:
                    raise ValidationError({str(finding_id): error.messages}) from error
            approved.append(finding_id)
    return list(Finding.objects.for_user(user).filter(pk__in=approved).order_by("pk"))
