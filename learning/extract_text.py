"""Extract action: decompose a text blob into atomic facts, stored when asked."""

from typing import Any

from django.db import transaction

from core.secrets import mask_secrets
from learning import asks
from learning.facts import facts_store
from learning.llm import LLMError, get_llm

TEXT_MAX = 20_000


def text_extract(
    *, user: Any, text: str, store: bool = False, context: str | None = None, agent: Any = None
) -> dict[str, Any]:
    """Atomic facts of `text` (source llm_extract), each stored when `store` is true.

    Raises LLMError when no LLM is configured or it gives no usable answer (nothing is
    stored then). One refused fact (privileged category, credential) fails alone. Secrets
    in `text` are masked before the model sees it, as in a stored turn. Stored facts are
    `agent`'s, in `context` (default: the agent's default context).
    """
    llm = get_llm()
    if llm is None:
        raise LLMError("not_configured", "No LLM is configured (GAIA_LLM_URL).")
    masked, _ = mask_secrets(text[:TEXT_MAX])
    answer = asks.FACTS.answer(llm, "Text", masked, user=user, purpose="extract action")
    with transaction.atomic():
        facts = facts_store(
            user=user,
            facts=answer["facts"],
            source="llm_extract",
            context=context,
            store=store,
            agent=agent,
        )
    return {"facts": facts, "stored": sum(1 for f in facts if "id" in f)}
