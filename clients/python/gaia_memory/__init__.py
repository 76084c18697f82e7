"""Python client for the Gaia Memory Server: MemoryClient (sync), AsyncMemoryClient, and
MemoryMixin, which gives any agent class long-term memory (`class MyAgent(MemoryMixin,
Agent)`, the mixin first)."""

from gaia_memory._request import Retry
from gaia_memory.client import AsyncMemoryClient, MemoryClient
from gaia_memory.errors import (
    AuthenticationError,
    GaiaConnectionError,
    GaiaError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
)
from gaia_memory.mixin import MEMORY_TOOL_NAMES, MemoryMixin
from gaia_memory.types import Memory, RecallHit, ToolCallRecord, ToolResult, Turn, TurnHit

__version__ = "0.1.0"
__all__ = [
    "MEMORY_TOOL_NAMES",
    "AsyncMemoryClient",
    "AuthenticationError",
    "GaiaConnectionError",
    "GaiaError",
    "InvalidRequestError",
    "Memory",
    "MemoryClient",
    "MemoryMixin",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RecallHit",
    "Retry",
    "ServerError",
    "ServiceUnavailableError",
    "ToolCallRecord",
    "ToolResult",
    "Turn",
    "TurnHit",
]
