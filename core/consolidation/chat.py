"""The OpenAI-compatible chat-completions consolidator (DeepSeek's API by default), over httpx.

Requests are ``stream: false`` with an end-to-end timeout; the first one is bounded
(``core.consolidation.context``), later ones answer the model's read-only tool calls
(``core.consolidation.tools``), and a malformed answer or tool call gets exactly one retry. The
API key is read from the environment variable *named* by the model choice at request time and
never stored or logged. Cancellation is
checked every ``poll_seconds`` while a request is in flight: the request is abandoned (its
connection closed) and CancelledError is raised. Any failure raises ConsolidationError.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from core.consolidation.base import (
    CancelCheck,
    ConsolidationInput,
    DebugSink,
    NullDebugSink,
    never_cancelled,
    raise_if_cancelled,
)
from core.consolidation.context import RecordSearch, build_context
from core.consolidation.prompt import system_prompt
from core.consolidation.proposals import Proposal, Transcript, TranscriptEntry
from core.consolidation.tools import SUBMIT, TOOL_DEFINITIONS, MemoryTools, ToolError
from core.errors import CancelledError, ConsolidationError, ConsolidationReason
from core.model_catalog import ModelChoice

SYSTEM_PROMPT = system_prompt(tools=False)
"""The instructions of a request without tools (core.consolidation.prompt has every rule and example)."""


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
    if isinstance(data, dict):
        data.pop("transcript", None)  # ours to write, never the model's
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
        import asyncio  # (with httpx ~15 MB of modules: imported when a model is asked, not with the window)

        import httpx

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
                reason=_transport_reason(exc),
            ) from None


def _transport_reason(exc: BaseException) -> ConsolidationReason:
    """ "dns" when the host name did not resolve (a socket.gaierror under the transport error),
    "refused" for another failed connect, else "unreachable": decided from exception types."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, socket.gaierror):
            return "dns"
        cause = cause.__cause__ or cause.__context__
    import httpx

    return "refused" if isinstance(exc, httpx.ConnectError) else "unreachable"


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


def _rejects_tools(status: int, body: bytes) -> bool:
    """An endpoint that does not do tool calling answers 400 naming them (there is no standard code)."""
    lowered = body.lower()
    return status in (400, 422) and (b"tool" in lowered or b"function" in lowered)


_NO_TOOLS_NOTE = (
    "This endpoint does not accept tool calls, so the model answered from the first request alone "
    "(it could not search or read other records)."
)


class _Conversation:
    """One model consolidation in progress: the messages sent, the transcript, the retry budgets."""

    def __init__(self, system: str, first: str) -> None:
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": first},
        ]
        self.entries: list[TranscriptEntry] = [TranscriptEntry(kind="request", text=first)]
        self.rounds = 0
        self.fallback_note = ""
        self.malformed_calls = 0
        self.bad_answers = 0
        self.problems: list[str] = []

    def transcript(self) -> Transcript:
        return Transcript(entries=tuple(self.entries), rounds=self.rounds, fallback_note=self.fallback_note)

    def restart(self, first: str, note: str) -> None:
        """Start again without tools: the instructions now end with "answer with one JSON object"."""
        self.messages = [{"role": "system", "content": system_prompt(tools=False)}, {"role": "user", "content": first}]
        self.entries.append(TranscriptEntry(kind="note", text=note))
        self.entries.append(TranscriptEntry(kind="request", text=first))
        self.fallback_note = note

    def ask_again(self, content: str, problems: list[str]) -> None:
        self.messages += [
            {"role": "assistant", "content": content},
            {
                "role": "user",
                "content": "That answer was not the JSON object asked for: "
                + "; ".join(problems)
                + ". Reply again with only the JSON object, following the schema exactly.",
            },
        ]


class ChatModelConsolidator:
    """A :class:`~core.consolidation.base.Consolidator` backed by an OpenAI-compatible chat model.

    The first request is bounded (``core.consolidation.context``). With ``tool_rounds > 0`` the
    model may call the read-only tools of ``core.consolidation.tools`` for that many rounds before
    it must submit; an endpoint that rejects ``tools`` gets the single JSON request instead, and the
    review says so. A malformed answer or tool call gets one retry; a second one fails the run.
    """

    name = "model"

    def __init__(
        self,
        choice: ModelChoice,
        *,
        timeout_seconds: float = 120.0,
        max_output_tokens: int = 8192,
        env: Mapping[str, str] | None = None,
        poll_seconds: float = 0.05,
        tool_rounds: int = 6,
        input_budget_bytes: int = 256_000,
    ) -> None:
        self.choice = choice
        self.max_output_tokens = max_output_tokens
        self.tool_rounds = tool_rounds
        self.input_budget_bytes = input_budget_bytes
        self._endpoint = _Endpoint(choice, timeout_seconds=timeout_seconds, env=env, poll_seconds=poll_seconds)

    @property
    def model(self) -> str:
        return self.choice.endpoint_key

    def first_request(self, request: ConsolidationInput, *, tools: bool, search: RecordSearch | None = None) -> str:
        context = build_context(
            request,
            budget_bytes=self.input_budget_bytes,
            system_bytes=len(system_prompt(tools=tools).encode("utf-8")),
            tools=tools,
            search=search,
        )
        return context.text

    def propose(
        self,
        request: ConsolidationInput,
        *,
        cancelled: CancelCheck = never_cancelled,
        debug: DebugSink | None = None,
    ) -> Proposal:
        debug = debug or NullDebugSink()
        tools = MemoryTools(request)
        use_tools = self.tool_rounds > 0
        chat = _Conversation(
            system_prompt(tools=use_tools), self.first_request(request, tools=use_tools, search=tools.search)
        )
        json_mode = not use_tools  # JSON mode and tool calling don't mix on every server
        attempt = 0
        while True:
            raise_if_cancelled(cancelled)
            attempt += 1
            answer = self._post(chat.messages, attempt, json_mode, use_tools, cancelled, debug)
            if use_tools and _rejects_tools(answer.status, answer.body):
                use_tools, json_mode = False, True
                chat.restart(self.first_request(request, tools=False, search=tools.search), _NO_TOOLS_NOTE)
                debug.event("tools_rejected", try_number=attempt)
                continue
            if answer.status == 400 and json_mode and b"response_format" in answer.body:
                # Some OpenAI-compatible servers do not know JSON mode; the prompt asks for JSON anyway.
                json_mode = False
                answer = self._post(chat.messages, attempt, json_mode, use_tools, cancelled, debug)
            if answer.status != 200:
                detail = _api_error(answer.body)
                hint = _status_hint(answer.status, self.choice)
                raise ConsolidationError(
                    f"{self.choice.label} answered HTTP {answer.status}"
                    + (f" ({detail})" if detail else "")
                    + f"; nothing was changed.{hint}",
                    reason="http",
                )
            message, problems = self._message(answer.body)
            calls = message.get("tool_calls") if message is not None else None
            if message is not None and isinstance(calls, list) and calls:
                proposal = self._tool_round(chat, message, calls, tools, debug)
                if proposal is not None:
                    return proposal
                continue
            content = message.get("content") if message is not None else None
            if not isinstance(content, str) or not content.strip():
                problems = problems or ["the model's answer is empty"]
                content = None
            proposal = None
            if content is not None:
                chat.entries.append(TranscriptEntry(kind="answer", text=content))
                proposal, problems = parse_proposal(content)
            if proposal is not None:
                debug.event("parsed", try_number=attempt, changes=len(proposal.changes), tool_rounds=chat.rounds)
                return proposal.model_copy(update={"transcript": chat.transcript()})
            debug.event("malformed", try_number=attempt, problems=problems)
            chat.problems = problems
            chat.bad_answers += 1
            if chat.bad_answers > 1:
                raise self._twice_malformed(problems)
            if content is not None:
                chat.ask_again(content, problems)

    def _twice_malformed(self, problems: list[str]) -> ConsolidationError:
        return ConsolidationError(
            f"{self.choice.label} twice answered with something that is not a valid proposal "
            f"({'; '.join(problems[:3])}); nothing was changed. Run it again, or pick another model "
            "(or the offline consolidator) in Settings.",
            reason="malformed",
        )

    def _tool_round(
        self,
        chat: _Conversation,
        message: dict[str, Any],
        calls: list[Any],
        tools: MemoryTools,
        debug: DebugSink,
    ) -> Proposal | None:
        """Answer one round of tool calls; the proposal when the model submitted one."""
        chat.messages.append({"role": "assistant", "content": message.get("content") or "", "tool_calls": calls})
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            arguments = function.get("arguments") if isinstance(function, dict) else None
            call_id = call.get("id", "") if isinstance(call, dict) else ""
            arguments = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
            chat.entries.append(TranscriptEntry(kind="tool_call", tool=str(name or "?"), arguments=arguments))
            if name == SUBMIT:
                proposal, problems = parse_proposal(arguments)
                if proposal is not None:
                    debug.event("parsed", via="submit_proposal", changes=len(proposal.changes), tool_rounds=chat.rounds)
                    return proposal.model_copy(update={"transcript": chat.transcript()})
                chat.bad_answers += 1
                if chat.bad_answers > 1:
                    raise self._twice_malformed(problems)
                result, refused = "Not a valid proposal: " + "; ".join(problems) + ". Submit again.", True
            else:
                try:
                    result, refused = tools.call(str(name), arguments), False
                except ToolError as exc:
                    result, refused = f"Refused: {exc}", True
                    if exc.malformed:
                        chat.malformed_calls += 1
                        if chat.malformed_calls > 1:
                            raise ConsolidationError(
                                f"{self.choice.label} twice made a malformed tool call ({exc}); nothing was "
                                "changed. Run it again, or pick another model in Settings.",
                                reason="tool-call",
                            ) from None
            chat.entries.append(
                TranscriptEntry(kind="tool_result", tool=str(name or "?"), text=result, refused=refused)
            )
            chat.messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        chat.rounds += 1
        debug.event("tool_round", round=chat.rounds, calls=len(calls))
        if chat.rounds > self.tool_rounds:
            raise ConsolidationError(
                f"{self.choice.label} kept calling tools for more than {self.tool_rounds} rounds without "
                "submitting a proposal; nothing was changed. Run it again, or raise the tool-round limit in Settings.",
                reason="tool-rounds",
            )
        return None

    def _post(
        self,
        messages: list[dict[str, Any]],
        attempt: int,
        json_mode: bool,
        use_tools: bool,
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
        if use_tools:
            body["tools"] = TOOL_DEFINITIONS
            body["tool_choice"] = "auto"
        request_bytes = len(json.dumps(body, ensure_ascii=False).encode("utf-8"))
        debug.event("request", try_number=attempt, request_bytes=request_bytes, json_mode=json_mode, tools=use_tools)
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
    def _message(body: bytes) -> tuple[dict[str, Any] | None, list[str]]:
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None, ["the HTTP answer is not JSON"]
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            return None, ["the HTTP answer has no choices[0].message"]
        if not isinstance(message, dict):
            return None, ["the HTTP answer has no choices[0].message"]
        return message, []


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    message: str
    status_code: int | None = None
    elapsed_ms: float = 0.0
    model_listed: bool | None = None  # None: the endpoint does not list models
    reason: ConsolidationReason | None = None  # when not ok and no HTTP answer: why ("timeout", "dns", ...)
    detail: str = ""  # the API's own short error message of a failed HTTP answer, if any


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
            detail=detail,
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
