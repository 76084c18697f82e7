"""What an item's fields may hold: the checks every write of an item runs (create, update,
batch, import, lineage) before anything is stored."""

from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.services import user_settings_get, user_zone
from core.jsonsafe import check_json
from core.validation import (
    clean_confidence,
    clean_short,
    clean_text,
    parse_when,
    refuse_credentials,
)
from memory.models import CATEGORIES, CONTENT_MAX, PRIVILEGED_CATEGORIES

AUTOMATIC_SOURCES = {"llm_extract", "consolidation", "error_auto", "discovery"}
UPDATABLE = (
    "content",
    "category",
    "domain",
    "context",
    "entity",
    "sensitive",
    "confidence",
    "importance",
    "pinned",
    "metadata",
    "due_at",
    "reminded_at",
)
CATEGORY_IMPORTANCE = {
    "profile": 1.0,
    "permission": 1.0,
    "system": 0.9,
    "preference": 0.8,
    "error": 0.7,
    "skill": 0.7,
    "fact": 0.6,
    "reminder": 0.6,
    "note": 0.4,
}


def _clean_category(category: Any, source: str) -> str:
    category = (category or "fact").strip().lower() if isinstance(category, str) else category
    if category not in CATEGORIES + PRIVILEGED_CATEGORIES:
        raise ValidationError(
            {"category": f"Unknown category. Use one of: {', '.join(CATEGORIES)}."},
            code="invalid",
        )
    if category in PRIVILEGED_CATEGORIES and source in AUTOMATIC_SOURCES:
        raise ValidationError(
            {"category": f"'{category}' is privileged: automatic sources may not write it."},
            code="privileged",
        )
    return category


def _clean_metadata(value: Any) -> dict:
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise ValidationError({"metadata": "Must be a JSON object."}, code="invalid")
    try:
        check_json(value)
    except ValueError as error:
        raise ValidationError({"metadata": str(error)}, code="invalid") from None
    return value


def clean_fields(user: Any, fields: dict[str, Any], *, source: str) -> dict[str, Any]:
    """Validate and normalise the given subset of item fields."""
    cleaned: dict[str, Any] = {}
    if "content" in fields:
        cleaned["content"] = clean_text(fields["content"], field="content", limit=CONTENT_MAX)
        refuse_credentials(cleaned["content"])
    if "category" in fields:
        cleaned["category"] = _clean_category(fields["category"], source)
    for name, limit, default in (
        ("domain", 100, ""),
        ("context", 100, "global"),
        ("entity", 200, ""),
    ):
        if name in fields:
            cleaned[name] = clean_short(fields[name], field=name, limit=limit, default=default)
            if name == "entity":
                cleaned[name] = cleaned[name].lower()
    if "sensitive" in fields:
        cleaned["sensitive"] = bool(fields["sensitive"])
    if "pinned" in fields:
        cleaned["pinned"] = bool(fields["pinned"])
    if "importance" in fields and fields["importance"] is not None:
        cleaned["importance"] = clean_confidence(fields["importance"], default=0.5)
    if "confidence" in fields and fields["confidence"] is not None:
        cleaned["confidence"] = clean_confidence(fields["confidence"], default=0.5)
    if "metadata" in fields:
        cleaned["metadata"] = _clean_metadata(fields["metadata"])
    if "due_at" in fields:
        cleaned["due_at"] = parse_when(fields["due_at"], field="due_at", tz=user_zone(user))
    if "reminded_at" in fields:
        value = fields["reminded_at"]
        cleaned["reminded_at"] = (
            timezone.now()
            if isinstance(value, str) and value.strip().lower() == "now"
            else parse_when(value, field="reminded_at", tz=user_zone(user))
        )
    return cleaned


def default_importance(category: str, source: str) -> float:
    """What an item matters on its own when nobody rated it: identity and permissions
    first, then preferences, what a person said themselves, then the rest; automatic
    sources a step lower than the same category told directly."""
    base = CATEGORY_IMPORTANCE.get(category, 0.5)
    return round(base if source in ("user", "tool") else base * 0.8, 3)


def check_memory_enabled(user: Any, source: str) -> None:
    """Refuse a write by anyone but the user while memory is turned off for them."""
    if source != "user" and not user_settings_get(user).memory_enabled:
        raise ValidationError(
            "Memory is turned off for this user (web app: Settings).", code="memory_disabled"
        )
