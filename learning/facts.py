"""Store LLM-proposed facts through memory_create, each one failing alone."""

from collections.abc import Callable
from typing import Any

import jsonschema
from django.core.exceptions import ValidationError
from django.db import transaction

from learning.graph_proposals import proposals_store
from learning.llm.counters import llm_count
from learning.prompts import FACT
from memory.services import memory_create


def fact_fields(fact: Any) -> dict[str, Any]:
    """The storable fields of one proposed fact; ValidationError when it is malformed."""
    try:
        jsonschema.validate(fact, FACT)
    except jsonschema.ValidationError as error:
        raise ValidationError(f"Malformed fact: {error.message}", code="invalid") from None
    fields = {
        "content": fact["content"],
        "category": (fact.get("category") or "fact").strip().lower(),
        "entity": fact.get("entity") or "",
        "domain": fact.get("domain") or "",
    }
    if fact.get("importance") is not None:  # the model's rating, else from the category
        fields["importance"] = fact["importance"]
    return fields


def facts_store(
    *,
    user: Any,
    facts: list[Any],
    source: str,
    context: str | None = None,
    source_turn: Any = None,
    store: bool = True,
    agent: Any = None,
    turn_for: Callable[[str], Any] | None = None,
) -> list[dict[str, Any]]:
    """One result per fact: its fields and either the stored item id or the error.

    Privileged categories, credentials and malformed facts are refused one by one
    (counted as "operation_refused"); the others are stored, each with `source_turn`, or
    with the turn `turn_for(content)` names when given (the turn the fact came from).
    """
    results: list[dict[str, Any]] = []
    for fact in facts:
        try:
            fields = fact_fields(fact)
        except ValidationError as error:
            llm_count("operation_refused", user=user, message=error.messages[0])
            results.append({"content": "", "error": error.messages[0]})
            continue
        result: dict[str, Any] = dict(fields)
        if store:
            try:
                with transaction.atomic():
                    item = memory_create(
                        user=user,
                        source=source,
                        context=context,
                        source_turn=turn_for(fields["content"]) if turn_for else source_turn,
                        agent=agent,
                        **fields,
                    )
                result.update(id=item.pk, deduplicated=item.deduplicated)
                if isinstance(fact, dict) and (fact.get("entities") or fact.get("relations")):
                    turn = item.source_turn_id
                    proposals_store(user=user, fact=fact, item_id=item.pk, turn_id=turn)
            except ValidationError as error:
                llm_count("operation_refused", user=user, message="; ".join(error.messages))
                result["error"] = "; ".join(error.messages)
        results.append(result)
    return results
