"""A small circuit breaker: after N failed calls in a row, fail fast for a cool-down.

State is per process (each worker learns on its own that the server is down); the
persistent failure counters are what every process shares.
"""

import threading
import time
from collections.abc import Callable


class CircuitBreaker:
    def __init__(
        self, *, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial = False

    @property
    def state(self) -> str:
        """closed (calls go through), open (failing fast) or half-open (one trial call)."""
        with self._lock:
            if self._opened_at is None:
                return "closed"
            if self._clock() - self._opened_at >= self.cooldown:
                return "half-open"
            return "open"

    def allow(self) -> bool:
        with self._lock:
            if self._opened_at is None:
                return True
            if self._clock() - self._opened_at < self.cooldown or self._trial:
                return False
            self._trial = True  # one call probes whether the server is back
            return True

    def success(self) -> None:
        with self._lock:
            self._failures, self._opened_at, self._trial = 0, None, False

    def failure(self) -> None:
        with self._lock:
            self._failures += 1
            if self._trial or self._failures >= self.threshold:
                self._opened_at, self._trial = self._clock(), False
