"""What every LLM implementation offers, and the one error it raises."""

from typing import Any, Protocol

# Failure kinds, as counted in learning.llm.counters and shown in stats and health.
TRANSIENT_KINDS = ("connect", "timeout", "rate_limited", "server_error", "network")
FAILURE_KINDS = TRANSIENT_KINDS + (
    "circuit_open",
    "http_error",
    "too_large",
    "bad_response",
    "invalid_json",
    "schema",
)


class LLMError(Exception):
    """A call that produced no usable answer; `kind` is one of FAILURE_KINDS."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind

    @property
    def transient(self) -> bool:
        """Worth trying again later (the server may come back); bad answers are not."""
        return self.kind in TRANSIENT_KINDS or self.kind == "circuit_open"


class LLM(Protocol):
    name: str

    def complete_json(
        self, *, system: str, prompt: str, schema: dict, user: Any = None, purpose: str = ""
    ) -> Any:
        """The model's answer as JSON valid against `schema`, or LLMError."""
        ...
