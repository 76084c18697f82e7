"""OpenAI-compatible /v1/chat/completions client (Lemonade, Ollama, llama.cpp, vLLM, OpenAI).

One call = one overall deadline (GAIA_LLM_TIMEOUT) covering every attempt, back-off
sleep and byte received. Connect errors, 429 (Retry-After honoured, bounded) and 5xx
are retried with exponential back-off and jitter; a circuit breaker fails fast while the
server is down. The answer must be JSON valid against the caller's schema; JSON mode is
requested and dropped for good when the server rejects it. Every outcome is counted.
"""

import email.utils
import json
import random
import re
import time
from typing import Any

import httpx
import jsonschema

from learning.llm.base import LLMError
from learning.llm.breaker import CircuitBreaker
from learning.llm.counters import OK, llm_count
from learning.llm.transport import DeadlineTransport, deadline, time_left

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


class _Retry(Exception):
    def __init__(self, error: LLMError, retry_after: float | None = None) -> None:
        self.error, self.retry_after = error, retry_after


class _JsonModeRejected(Exception):
    pass


def endpoint_for(url: str) -> str:
    """The chat endpoint of a base URL given up to /v1 (or already ending in it)."""
    url = url.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def loads_answer(text: str) -> Any:
    """JSON from a model answer, tolerating code fences and prose around one object."""
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start == -1 or end <= start:
            raise
        return json.loads(text[start : end + 1])


class OpenAICompatLLM:
    def __init__(
        self,
        *,
        url: str,
        model: str,
        api_key: str = "",
        timeout: float = 60.0,
        connect_timeout: float = 5.0,
        retries: int = 3,
        max_tokens: int = 1024,
        max_bytes: int = 1024 * 1024,
        json_mode: bool = True,
        backoff: float = 0.5,
        retry_after_max: float = 30.0,
        breaker_threshold: int = 5,
        breaker_cooldown: float = 60.0,
    ) -> None:
        self.endpoint = endpoint_for(url)
        self.model = model
        self.name = f"{model or 'default'} @ {url}"
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self.retries, self.backoff, self.retry_after_max = max(0, retries), backoff, retry_after_max
        self.max_tokens, self.max_bytes = max_tokens, max_bytes
        self.json_mode = json_mode
        self.breaker = CircuitBreaker(threshold=breaker_threshold, cooldown=breaker_cooldown)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            transport=DeadlineTransport(), headers=headers, follow_redirects=False
        )

    def complete_json(
        self, *, system: str, prompt: str, schema: dict, user: Any = None, purpose: str = ""
    ) -> Any:
        """The answer to (system, prompt) as JSON valid against `schema`; LLMError if none.

        The outcome is counted for `user` (kind "ok" or the failure kind).
        """
        try:
            answer = self._complete(system, prompt, schema)
        except LLMError as error:
            llm_count(error.kind, user=user, message=f"{purpose}: {error}"[:500])
            raise
        llm_count(OK, user=user)
        return answer

    def _complete(self, system: str, prompt: str, schema: dict) -> Any:
        if not self.breaker.allow():
            raise LLMError("circuit_open", "LLM server failing; waiting before trying again")
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        with deadline(time.monotonic() + self.timeout):
            try:
                body = self._post_with_retries(messages)
            except LLMError as error:
                if error.transient:
                    self.breaker.failure()
                else:
                    self.breaker.success()  # it answered: reachable, just not useful
                raise
        self.breaker.success()
        return self._parse(body, schema)

    def _post_with_retries(self, messages: list[dict]) -> bytes:
        attempt = 0
        while True:
            try:
                return self._post(messages)
            except _JsonModeRejected:
                self.json_mode = False  # this server has no JSON mode; ask in the prompt only
                continue
            except _Retry as retry:
                attempt += 1
                if attempt > self.retries:
                    raise retry.error from None
                if retry.retry_after is not None:
                    delay = min(retry.retry_after, self.retry_after_max)
                else:
                    delay = self.backoff * 2 ** (attempt - 1) * (1 + random.random())
                left = time_left() or 0.0
                if delay >= left:
                    raise LLMError(
                        retry.error.kind, f"{retry.error} (no time left to retry)"
                    ) from None
                time.sleep(delay)

    def _payload(self, messages: list[dict]) -> dict:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "stream": False,
        }
        if self.json_mode:
            payload["response_format"] = {"type": "json_object"}
        return payload

    def _post(self, messages: list[dict]) -> bytes:
        left = time_left() or 0.0
        timeout = httpx.Timeout(left, connect=min(self.connect_timeout, left))
        json_mode = self.json_mode
        try:
            with self._http.stream(
                "POST", self.endpoint, json=self._payload(messages), timeout=timeout
            ) as response:
                return self._read(response, json_mode)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise _Retry(LLMError("connect", f"cannot connect: {error}")) from None
        except httpx.TimeoutException:
            raise LLMError("timeout", f"no complete answer within {self.timeout:g}s") from None
        except (httpx.NetworkError, httpx.RemoteProtocolError) as error:
            raise _Retry(LLMError("network", f"connection broke: {error}")) from None

    def _read(self, response: httpx.Response, json_mode: bool) -> bytes:
        status = response.status_code
        if status == 429:
            raise _Retry(
                LLMError("rate_limited", "HTTP 429 Too Many Requests"),
                parse_retry_after(response.headers.get("retry-after")),
            )
        if status >= 500:
            raise _Retry(LLMError("server_error", f"HTTP {status}"))
        if status in (400, 422) and json_mode:
            raise _JsonModeRejected()
        if status != 200:
            raise LLMError("http_error", f"HTTP {status}")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise LLMError("too_large", f"answer of {declared} bytes refused")
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                raise LLMError("too_large", f"answer over {self.max_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def _parse(self, body: bytes, schema: dict) -> Any:
        try:
            choice = json.loads(body)["choices"][0]
            content = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError("bad_response", "not an OpenAI chat completion") from None
        if not isinstance(content, str):
            raise LLMError("bad_response", "the answer has no text content")
        try:
            data = loads_answer(content)
        except ValueError:
            truncated = choice.get("finish_reason") == "length"
            raise LLMError(
                "invalid_json", "answer cut off (max tokens)" if truncated else "answer not JSON"
            ) from None
        try:
            jsonschema.validate(data, schema)
        except jsonschema.ValidationError as error:
            raise LLMError(
                "schema", f"answer does not fit the schema: {error.message}"[:300]
            ) from None
        return data
