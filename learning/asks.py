"""Questions to the model about one block of data: its instructions, the data under a
label, the answer's schema and the reader that checks it (extract, profile, reconcile)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from learning import prompts
from learning.llm import shapes
from learning.llm.client import OpenAICompatLLM


@dataclass(frozen=True)
class Ask:
    system: Callable[[], str]
    schema: dict
    read: shapes.Reader

    def answer(
        self, llm: OpenAICompatLLM, label: str, value: Any, *, user: Any, purpose: str
    ) -> Any:
        """The model's answer about `value`, shown as DATA under `label`; LLMError if none."""
        return llm.complete_json(
            system=self.system(),
            prompt=f"DATA\n{label}:\n{prompts.data(value)}",
            schema=self.schema,
            read=self.read,
            user=user,
            purpose=purpose,
        )


FACTS = Ask(prompts.facts_system, prompts.FACTS_SCHEMA, shapes.facts)
PROFILE = Ask(prompts.profile_system, prompts.PROFILE_SCHEMA, shapes.bullets)
RECONCILE = Ask(prompts.reconcile_system, prompts.RECONCILE_SCHEMA, shapes.judgements)
