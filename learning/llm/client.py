"""OpenAI-compatible /v1/chat/completions client (Lemonade, Ollama, llama.cpp, vLLM, OpenAI).

One call = one overall deadline (GAIA_LLM_TIMEOUT) covering every attempt, back-off
sleep and byte received. Connect errors, 429 (Retry-After honoured, bounded) and 5xx
are retried with exponential back-off and jitter; a circuit breaker shared by every
process fails fast while the server is down. JSON mode is requested and dropped for
good when the server rejects it. The answer is read as models really write it
(`learning.llm.parse`) into the job's shape (`learning.llm.shapes`) and checked against
the job's schema; an answer still unusable gets one repair round-trip (the model is
told what was wrong and asked again, within the same deadline), then the call fails
with the reason. Every outcome is counted.
"""

import email.utils
import json
import random
import time
from typing import Any

import httpx
import jsonschema

from core.outgoing import client as http_client
from core.outgoing import deadline, time_left
from learning.llm import shapes
from learning.llm.base import LLMError
from learning.llm.breaker import SharedBreaker
from learning.llm.counters import OK, llm_count
from learning.llm.parse import AnswerError, json_values, strip_thinking

CUT_OFF = "answer cut off at the token limit (GAIA_LLM_MAX_TOKENS)"
ECHO_CHARS = 2000  # of the unusable answer, shown back to the model with the repair request


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


def read_answer(content: str, *, schema: dict, read: shapes.Reader, cut_off: bool) -> Any:
    """The job's data from a model's answer text; AnswerError saying why there is none."""
    text = strip_thinking(content)
    if not text:
        raise AnswerError(CUT_OFF if cut_off else "empty answer (nothing after the thinking)")
    problems: list[AnswerError] = []
    values = list(json_values(text))
    for index, value in enumerate([*values, text]):  # the text itself last: Markdown lists
        try:
            data = read(value)
            jsonschema.validate(data, schema)
        except AnswerError as problem:
            if index < len(values):
                problems.append(
                    AnswerError(f"answer does not fit the schema: {problem}"[:300], problem.kind)
                )
            continue
        except jsonschema.ValidationError as error:
            reason = f"answer does not fit the schema: {error.message}"[:300]
            problems.append(AnswerError(reason, "schema"))
            continue
        return data
    if cut_off:
        raise AnswerError(CUT_OFF)
    fitting = [p for p in problems if p.kind == "schema"]
    raise fitting[0] if fitting else AnswerError("answer not JSON")


def repair_request(problem: AnswerError) -> str:
    if str(problem) == CUT_OFF:
        return (
            "Your answer was cut off at the token limit. Answer again, shorter: only the "
            "JSON object, fewer and shorter entries, no explanation, no thinking."
        )
    return (
        f"Your answer was not valid JSON of the expected shape ({problem}). Answer again "
        "with only the JSON object described in the instructions: no prose, no code "
        "fences, double-quoted keys and strings, no trailing commas."
    )


def message_text(message: dict) -> str:
    """The text of a chat message: a string, or a list of text parts (some servers)."""
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


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
        self.breaker = SharedBreaker(threshold=breaker_threshold, cooldown=breaker_cooldown)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = http_client(headers=headers)  # the operator's URL: private allowed

    def complete_json(
        self,
        *,
        system: str,
        prompt: str,
        schema: dict,
        read: shapes.Reader = shapes.raw,
        user: Any = None,
        purpose: str = "",
    ) -> Any:
        """The answer to (system, prompt) read by `read` and valid against `schema`;
        LLMError if none. The outcome is counted for `user` (kind "ok" or the failure)."""
        try:
            answer = self._complete(system, prompt, schema, read)
        except LLMError as error:
            llm_count(error.kind, user=user, message=f"{purpose}: {error}"[:500])
            raise
        llm_count(OK, user=user)
        return answer

    def _complete(self, system: str, prompt: str, schema: dict, read: shapes.Reader) -> Any:
        if not self.breaker.allow():
            raise LLMError("circuit_open", "LLM server failing; waiting before trying again")
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        with deadline(time.monotonic() + self.timeout):  # one deadline, repair included
            content, cut_off = self._ask(messages)
            try:
                return read_answer(content, schema=schema, read=read, cut_off=cut_off)
            except AnswerError as problem:
                first = problem
            shown = strip_thinking(content)[:ECHO_CHARS] or "(no answer)"
            messages += [
                {"role": "assistant", "content": shown},
                {"role": "user", "content": repair_request(first)},
            ]
            try:
                content, cut_off = self._ask(messages, repair=True)
            except LLMError as error:
                if error.kind != "timeout":
                    raise
                raise LLMError(first.kind, f"{first} (no time left to ask again)") from None
        try:
            return read_answer(content, schema=schema, read=read, cut_off=cut_off)
        except AnswerError as problem:
            reason = str(problem) if str(problem) == str(first) else f"{problem}; first: {first}"
            raise LLMError(
                problem.kind, f"{reason} (also after one repair request)"[:400]
            ) from None

    def _ask(self, messages: list[dict], *, repair: bool = False) -> tuple[str, bool]:
        """One exchange: the answer text and whether it was cut off at the token limit."""
        try:
            body = self._post_with_retries(messages)
        except LLMError as error:
            if error.transient and not (repair and error.kind == "timeout"):
                self.breaker.failure(error.kind)  # a repair that ran out of time is no outage
            elif not error.transient:
                self.breaker.success()  # it answered: reachable, just not useful
            raise
        self.breaker.success()
        return self._content(body)

    def recheck(self) -> None:
        """Probe the server when the shared state says it fails and a call is allowed,
        so the state comes back to ok without waiting for work (the sweep calls this)."""
        if self.breaker.troubled() and self.breaker.allow():
            self.probe()

    def probe(self) -> bool:
        """Whether the server answers a tiny request now (recorded like any call)."""
        try:
            with deadline(time.monotonic() + self.timeout):
                self._ask([{"role": "user", "content": 'Answer with {"ok": true}'}])
        except LLMError:
            return False
        return True

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

    def _content(self, body: bytes) -> tuple[str, bool]:
        try:
            choice = json.loads(body)["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError("bad_response", "not an OpenAI chat completion") from None
        if not isinstance(message, dict):
            raise LLMError("bad_response", "the answer has no message")
        # Reasoning servers (vLLM, Ollama) put the thinking in a field of its own; a
        # model that ran out of tokens while thinking leaves the content empty.
        return message_text(message), choice.get("finish_reason") == "length"
