"""The OpenAI-compatible chat-completions consolidator (DeepSeek's API by default), over httpx.

One request per attempt (``stream: false``), an end-to-end timeout, and exactly one retry when the
answer is not the strict JSON proposal asked for. The API key is read from the environment
variable *named* by the model choice at request time and never stored or logged. Cancellation is
checked every ``poll_seconds`` while a request is in flight: the request is abandoned (its
connection closed) and CancelledError is raised. Any failure raises ConsolidationError.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import ValidationError

from core.consolidation.base import (
    CancelCheck,
    ConsolidationInput,
    DebugSink,
    NullDebugSink,
    never_cancelled,
    raise_if_cancelled,
)
from core.consolidation.proposals import Proposal
from core.errors import CancelledError, ConsolidationError
from core.model_catalog import ModelChoice

SYSTEM_PROMPT = """\
You consolidate long-term memory for a coding agent from one finished work session.
There are two memory scopes:
- GLOBAL.md: one Markdown document about the user in general (profile, preferences, tips that hold
  across every project). Only change it for facts the USER stated about themselves in general, and
  never for anything specific to this project.
- Workspace records: one record per durable fact of THIS workspace only. Each record has
  name (lower-case kebab-case, e.g. "use-pnpm"), description (one line saying when it matters),
  type ("feedback": the user's correction or confirmation of how the agent works; "project": goals,
  constraints and decisions that cannot be recovered from the code or git; "reference": pointers to
  URLs, issues, dashboards, documents) and body (the fact, then "**Why:** ..." and
  "**How to apply:** ..." paragraphs).
Save only what is durable, explicit and reusable: explicit "remember" requests, stated preferences,
corrections, decisions with their reasons. Do not save temporary state, guesses about preferences,
unconfirmed plans, one-off errors, secrets or credentials, or what the repository already records.
Prefer updating an existing record (same name, whole record) over adding a near-duplicate; delete a
record only when the session shows it is wrong. Cite the seq numbers of the evidence for each change.

Answer with ONE JSON object and nothing else:
{"summary": "<one sentence>",
 "changes": [
  {"op": "put", "record": {"name": "...", "description": "...", "type": "feedback|project|reference",
   "body": "..."}, "reason": "...", "evidence": [<seq>, ...]},
  {"op": "delete", "name": "...", "reason": "...", "evidence": [<seq>, ...]},
  {"op": "replace_global", "text": "<the whole new GLOBAL.md>", "reason": "...", "evidence": [<seq>, ...]},
  {"op": "no_change", "reason": "...", "evidence": []}
 ]}
Use {"op": "no_change"} alone when nothing is worth remembering."""


def build_messages(request: ConsolidationInput) -> list[dict[str, str]]:
    """The chat messages for ``request`` (Global, the workspace's records, then the evidence)."""
    records = [
        {"name": r.name, "description": r.description, "type": r.type, "body": r.body.strip("\n")}
        for r in request.records
    ]
    user = (
        f"Workspace: {request.cwd}\n\n"
        "## Current GLOBAL.md\n\n"
        f"{request.global_text.strip() or '(empty)'}\n\n"
        "## Current workspace records (JSON)\n\n"
        f"{json.dumps(records, ensure_ascii=False, indent=1)}\n\n"
        "## Session evidence (seq numbers in brackets)\n\n"
        f"{request.evidence_text}\n\n"
        "Reply with the JSON object only."
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        first_newline = text.find("\n")
        text = text[first_newline + 1 :] if first_newline >= 0 else ""
        if text.rstrip().endswith("```"):
            text = text.rstrip()[:-3]
    return text.strip()


def _normalize_ops(data: Any) -> Any:
    """Accept ``no-change``/``replace-global`` spellings of the op names (hyphen vs underscore)."""
    if isinstance(data, dict) and isinstance(data.get("changes"), list):
        for change in data["changes"]:
            if isinstance(change, dict) and isinstance(change.get("op"), str):
                change["op"] = change["op"].strip().replace("-", "_")
    return data


def parse_proposal(content: str) -> tuple[Proposal | None, list[str]]:
    """The proposal in a model answer, or None and what was wrong (locations only, never values)."""
    try:
        data = json.loads(_strip_fences(content))
    except json.JSONDecodeError as exc:
        return None, [f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"]
    if not isinstance(data, dict):
        return None, ["the answer is not a JSON object"]
    try:
        return Proposal.model_validate(_normalize_ops(data)), []
    except ValidationError as exc:
        return None, _validation_problems(exc)


# Field names of the proposal schema: any other key in an error location is the model's own text.
_SCHEMA_KEYS = frozenset(
    {"changes", "summary", "op", "record", "name", "description", "type", "body", "reason", "evidence"}
    | {"workspace", "text", "put", "delete", "replace_global", "no_change"}
)


def _validation_problems(exc: ValidationError) -> list[str]:
    """Where and how the answer breaks the schema, without echoing what the model wrote.

    These texts go back to the model, into the failed receipt and into debug logs, so model output
    (which may quote the conversation) must not: unknown keys become ``<key>``, and messages that
    repeat the offending input (an unknown ``op`` tag, for one) are replaced by their error type.
    """
    out: list[str] = []
    for error in exc.errors():
        loc = ".".join(str(part) if isinstance(part, int) or part in _SCHEMA_KEYS else "<key>" for part in error["loc"])
        message = error["msg"]
        value = error.get("input")
        if error["type"] == "union_tag_invalid":
            message = "unknown op; expected replace_global, put, delete or no_change"
        elif isinstance(value, str | int | float) and str(value) and str(value) in message:
            message = error["type"]
        out.append(f"{loc or 'answer'}: {message}")
    return out[:20]


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: bytes
    elapsed_ms: float


class _Endpoint:
    """HTTP plumbing shared by the consolidator and the connection test."""

    def __init__(
        self,
        choice: ModelChoice,
        *,
        timeout_seconds: float,
        env: Mapping[str, str] | None,
        poll_seconds: float,
    ) -> None:
        self.choice = choice
        self.timeout_seconds = timeout_seconds
        self.env = env
        self.poll_seconds = poll_seconds

    def url(self, path: str) -> str:
        return self.choice.base_url.rstrip("/") + path

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        name = self.choice.api_key_env
        if name:
            env = os.environ if self.env is None else self.env
            key = env.get(name, "").strip()
            if not key:
                raise ConsolidationError(
                    f"The environment variable {name} is not set, so there is no API key for "
                    f"{self.choice.label}. Set it (DSH manages the key) and try again.",
                    reason="no-key",
                )
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def send(self, method: str, path: str, body: Any, cancelled: CancelCheck) -> HttpAnswer:
        """One request, end-to-end timeout, cancellable while in flight."""
        headers = self.headers()
        url = self.url(path)
        timeout = self.timeout_seconds

        async def run() -> HttpAnswer:
            start = time.monotonic()
            async with httpx.AsyncClient(timeout=httpx.Timeout(timeout), follow_redirects=False) as client:
                task = asyncio.ensure_future(
                    client.request(method, url, json=body if body is not None else None, headers=headers)
                )
                try:
                    while True:
                        done, _ = await asyncio.wait({task}, timeout=self.poll_seconds)
                        if done:
                            response = task.result()
                            return HttpAnswer(response.status_code, response.content, (time.monotonic() - start) * 1000)
                        if cancelled():
                            raise CancelledError("Consolidation cancelled. Nothing was written.")
                        if time.monotonic() - start > timeout:
                            raise httpx.ReadTimeout("end-to-end timeout")
                finally:
                    if not task.done():
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                            await task

        try:
            return asyncio.run(run())
        except httpx.TimeoutException:
            raise ConsolidationError(
                f"{self.choice.label} did not answer within {timeout:g} s; nothing was changed. "
                "Try again, or raise the request timeout in Settings.",
                reason="timeout",
            ) from None
        except httpx.HTTPError as exc:
            raise ConsolidationError(
                f"Could not reach {self.choice.base_url} ({type(exc).__name__}: {exc}); nothing was changed. "
                "Check the base URL in Settings and the network connection.",
                reason="refused" if isinstance(exc, httpx.ConnectError) else "unreachable",
            ) from None


def _api_error(body: bytes) -> str:
    """The short error message an OpenAI-compatible API puts in a failed answer, if any."""
    from core.secrets import redact

    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return ""
    err = data.get("error") if isinstance(data, dict) else None
    message = err.get("message") if isinstance(err, dict) else err
    return redact(str(message))[:200] if message else ""


def _status_hint(status: int, choice: ModelChoice) -> str:
    """What the user can do about an HTTP failure (with a leading space), or ""."""
    if status in (401, 403):
        return f" Check that {choice.api_key_env} holds a valid key." if choice.api_key_env else ""
    if status == 429:
        return " The service is rate-limiting requests; wait a minute and try again."
    if status == 404:
        return " Check the base URL and the model name in Settings."
    if status >= 500:
        return " The service failed on its side; try again later."
    return " Check the model settings, then try again."


class ChatModelConsolidator:
    """A :class:`~core.consolidation.base.Consolidator` backed by an OpenAI-compatible chat model."""

    name = "model"

    def __init__(
        self,
        choice: ModelChoice,
        *,
        timeout_seconds: float = 120.0,
        max_output_tokens: int = 8192,
        env: Mapping[str, str] | None = None,
        poll_seconds: float = 0.05,
    ) -> None:
        self.choice = choice
        self.max_output_tokens = max_output_tokens
        self._endpoint = _Endpoint(choice, timeout_seconds=timeout_seconds, env=env, poll_seconds=poll_seconds)

    @property
    def model(self) -> str:
        return self.choice.endpoint_key

    def propose(
        self,
        request: ConsolidationInput,
        *,
        cancelled: CancelCheck = never_cancelled,
        debug: DebugSink | None = None,
    ) -> Proposal:
        debug = debug or NullDebugSink()
        messages = build_messages(request)
        problems: list[str] = []
        json_mode = True
        for attempt in (1, 2):  # one retry on malformed output, never on HTTP failures
            raise_if_cancelled(cancelled)
            answer = self._post(messages, attempt, json_mode, cancelled, debug)
            if answer.status == 400 and json_mode and b"response_format" in answer.body:
                # Some OpenAI-compatible servers do not know JSON mode; the prompt asks for JSON anyway.
                json_mode = False
                answer = self._post(messages, attempt, json_mode, cancelled, debug)
            if answer.status != 200:
                detail = _api_error(answer.body)
                hint = _status_hint(answer.status, self.choice)
                raise ConsolidationError(
                    f"{self.choice.label} answered HTTP {answer.status}"
                    + (f" ({detail})" if detail else "")
                    + f"; nothing was changed.{hint}"
                )
            content, problems = self._content(answer.body)
            proposal: Proposal | None = None
            if content is not None:
                proposal, problems = parse_proposal(content)
            if proposal is not None:
                debug.event("parsed", try_number=attempt, changes=len(proposal.changes))
                return proposal
            debug.event("malformed", try_number=attempt, problems=problems)
            if content is not None:
                messages = [
                    *messages,
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": "That answer was not the JSON object asked for: "
                        + "; ".join(problems)
                        + ". Reply again with only the JSON object, following the schema exactly.",
                    },
                ]
        raise ConsolidationError(
            f"{self.choice.label} twice answered with something that is not a valid proposal "
            f"({'; '.join(problems[:3])}); nothing was changed. Run it again, or pick another model "
            "(or the offline consolidator) in Settings."
        )

    def _post(
        self,
        messages: list[dict[str, str]],
        attempt: int,
        json_mode: bool,
        cancelled: CancelCheck,
        debug: DebugSink,
    ) -> HttpAnswer:
        body: dict[str, Any] = {
            "model": self.choice.model,
            "messages": messages,
            "temperature": 0,
            "stream": False,
            "max_tokens": self.max_output_tokens,
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        request_bytes = len(json.dumps(body, ensure_ascii=False).encode("utf-8"))
        debug.event("request", try_number=attempt, request_bytes=request_bytes, json_mode=json_mode)
        try:
            answer = self._endpoint.send("POST", "/chat/completions", body, cancelled)
        except ConsolidationError as exc:
            debug.event("http_error", try_number=attempt, error=exc.message)
            raise
        debug.event(
            "response",
            try_number=attempt,
            status=answer.status,
            response_bytes=len(answer.body),
            http_ms=round(answer.elapsed_ms, 1),
        )
        return answer

    @staticmethod
    def _content(body: bytes) -> tuple[str | None, list[str]]:
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None, ["the HTTP answer is not JSON"]
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return None, ["the HTTP answer has no choices[0].message.content"]
        if not isinstance(content, str) or not content.strip():
            return None, ["the model's answer is empty"]
        return content, []


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    message: str
    status_code: int | None = None
    elapsed_ms: float = 0.0
    model_listed: bool | None = None  # None: the endpoint does not list models
    reason: str = ""  # when not ok and no HTTP answer: ConsolidationError.reason ("timeout", ...)


def check_connection(
    choice: ModelChoice,
    *,
    timeout_seconds: float = 10.0,
    cancelled: CancelCheck = never_cancelled,
    env: Mapping[str, str] | None = None,
) -> ConnectionReport:
    """Settings' "test connection": ``GET <base>/models`` with the key; never raises (except cancel)."""
    endpoint = _Endpoint(choice, timeout_seconds=timeout_seconds, env=env, poll_seconds=0.05)
    try:
        answer = endpoint.send("GET", "/models", None, cancelled)
    except ConsolidationError as exc:
        return ConnectionReport(False, exc.message.replace("; nothing was changed.", "."), reason=exc.reason)
    if answer.status in (401, 403):
        return ConnectionReport(
            False,
            f"{choice.base_url} refused the key (HTTP {answer.status}); check {choice.api_key_env or 'the key'}.",
            answer.status,
            answer.elapsed_ms,
        )
    if answer.status != 200:
        detail = _api_error(answer.body)
        return ConnectionReport(
            False,
            f"{choice.base_url} answered HTTP {answer.status}" + (f" ({detail})" if detail else ""),
            answer.status,
            answer.elapsed_ms,
        )
    listed: bool | None = None
    try:
        data = json.loads(answer.body)
        ids = [m.get("id") for m in data.get("data", []) if isinstance(m, dict)]
        listed = choice.model in ids if ids else None
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        listed = None
    message = f"Connected to {choice.base_url} in {answer.elapsed_ms:.0f} ms"
    if listed is False:
        message += f", but it does not list the model {choice.model!r}"
    return ConnectionReport(True, message + ".", answer.status, answer.elapsed_ms, listed)
