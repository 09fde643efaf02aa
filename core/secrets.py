"""Credential-shaped values in memory text: find them (by kind and line, never the value) and redact them.

Detection = detect-secrets' known-format plugins (AWS, GitHub, GitLab, Slack, Stripe, JWT, URL
credentials, ...) and its keyword plugin, run in-process on the text, plus patterns it misses:
modern ``sk-`` API keys (OpenAI/DeepSeek), ``github_pat_``, unquoted AWS secret keys and
``password=...`` assignments, Chinese ``密码：...``, and whole private-key blocks.

Left out on purpose:
- detect-secrets' high-entropy plugins (Base64/Hex): they flag git SHAs, content hashes and base64
  ids that memory legitimately mentions (a 40-hex commit id in a note is not a credential), and
  the formats that matter are covered by exact patterns.
- its public-IP plugin: an IP address is not a credential.
- its private-key plugin: it reports the ``BEGIN ... PRIVATE KEY`` marker, also in prose that only
  names the format; :func:`_private_key_hits` matches the key material itself.
Nothing here reads detect-secrets settings, baselines or anything under ``$HOME``, and nothing
calls its network verifiers: plugins' regexes and ``analyze_string`` are used directly.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["KIND_LABELS", "SecretFinding", "describe", "find_secrets", "has_secrets", "redact", "without_secrets"]

KIND_LABELS: dict[str, str] = {
    "api-key": "API key",
    "github-token": "GitHub token",
    "gitlab-token": "GitLab token",
    "aws-access-key": "AWS access key",
    "aws-secret-key": "AWS secret key",
    "slack-token": "Slack token",
    "slack-webhook": "Slack webhook URL",
    "private-key": "private key",
    "jwt": "JSON web token",
    "url-password": "password in URL",
    "password": "password or secret value",
    "stripe-key": "Stripe key",
    "azure-storage-key": "Azure storage key",
    "cloudant-credentials": "Cloudant credentials",
    "discord-token": "Discord bot token",
    "ibm-cloud-key": "IBM Cloud key",
    "ibm-cos-hmac": "IBM COS HMAC secret",
    "mailchimp-key": "Mailchimp key",
    "npm-token": "npm token",
    "pypi-token": "PyPI token",
    "sendgrid-key": "SendGrid key",
    "softlayer-key": "SoftLayer key",
    "square-secret": "Square OAuth secret",
    "telegram-token": "Telegram bot token",
    "google-api-key": "Google API key",
    "huggingface-token": "Hugging Face token",
    "basic-auth": "HTTP Basic credentials",
    "twilio-key": "Twilio key",
    "artifactory-credentials": "Artifactory credentials",
}


@dataclass(frozen=True)
class SecretFinding:
    """A credential-shaped value of ``kind`` at ``line`` (1-based). The value itself is never kept."""

    kind: str
    line: int

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    def __str__(self) -> str:
        return f"line {self.line}: {self.label}"


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    kind: str
    priority: int  # on overlap the most specific kind names the merged span


# --- value filters -------------------------------------------------------------------------

_PLACEHOLDERS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "api-key",
        "key",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "redacted",
        "example",
        "changeme",
        "placeholder",
        "your-password",
        "your_password",
        "yourpassword",
        "mypassword",
        "my-password",
        "xxx",
        "todo",
        "user",
        "username",
        "hidden",
        "empty",
        "required",
        "optional",
        "string",
        "str",
    }
)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_TEMPLATE_START = ("$", "{", "<", "%", "[", "(", "os.", "env.", "process.env", "settings.", "config.")


def _is_placeholder(value: str) -> bool:
    """Values that stand for a secret without being one: env var names, templates, masks."""
    v = value.strip().strip("\"'`")
    if not v or v.lower() in _PLACEHOLDERS or "REDACTED" in v.upper():
        return True
    if v.startswith(_TEMPLATE_START) or _ENV_NAME.fullmatch(v):
        return True
    return set(v) <= set("*xX.-_•")  # masks like ****, xxxx, ...


# Lower-case words joined by - _ . /, each later part holding a letter ("hunter-2024" is not one).
_IDENTIFIER = re.compile(r"[a-z]+(?:[-_./][a-z0-9]*[a-z][a-z0-9]*)*")


def _looks_like_credential(value: str) -> bool:
    """For keyword-style matches (``password: X``): X must look like a secret, not a word or path.

    Ordinary words (``see vault``), kebab/snake identifiers and paths are rejected; a value needs
    a digit next to letters, or a symbol, or mixed case at some length. Dictionary-word passwords
    are missed on purpose: prose like "password: ask Alice" is far more common in memory notes.
    """
    v = value.strip().strip("\"'`").rstrip(".,;:)")
    if len(v) < 6 or any(c.isspace() for c in v) or _is_placeholder(v):
        return False
    if v.startswith(("/", "~", "./", "../", "http://", "https://")) or v.endswith((".md", ".txt", ".json")):
        return False
    if _IDENTIFIER.fullmatch(v):  # kebab/snake/dotted names, model ids, kv paths: gpt-4o-mini, kv/v2
        return False
    has_digit = any(c.isdigit() for c in v)
    has_alpha = any(c.isalpha() for c in v)
    has_symbol = any(c in "!@#$%^&*+=?~|" for c in v)
    mixed_case = any(c.isupper() for c in v) and any(c.islower() for c in v)
    return (has_digit and has_alpha) or (has_symbol and has_alpha) or (mixed_case and len(v) >= 12)


def _looks_random(value: str) -> bool:
    """Token bodies: long runs of letters and digits, not kebab words like ``sk-learn-notes-2024``."""
    longest_run = max((len(run) for run in re.findall(r"[A-Za-z0-9]+", value)), default=0)
    return longest_run >= 16 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# --- our own patterns (what detect-secrets misses or reports too narrowly) -----------------

_PEM_BEGIN = re.compile(r"-{4,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-{4,5}")
_PEM_END = re.compile(r"-{4,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-{4,5}")
# A truncated block: after the BEGIN line, up to 8 header or blank lines (``Proc-Type: ...``), then
# at least one line of key material. The line kinds are disjoint, so matching stays linear.
_PEM_TRUNCATED = re.compile(
    r"[ \t]*(?:\r?\n(?:[A-Za-z-]+: [^\r\n]*|[ \t]*)){0,8}?(?:\r?\n[ \t]*[A-Za-z0-9+/=]{16,}[ \t]*(?=\r?\n|\Z))+"
)


def _private_key_hits(text: str) -> list[_Hit]:
    """Whole key blocks: BEGIN marker to the next END marker, or to the end of its key material.

    A BEGIN marker alone (prose that names the format) is not a finding. END markers are found once
    and looked up by position, so many BEGIN lines without an END cost linear time, not quadratic.
    """
    ends = [m.end() for m in _PEM_END.finditer(text)]
    hits: list[_Hit] = []
    for begin in _PEM_BEGIN.finditer(text):
        i = bisect.bisect_left(ends, begin.end())
        if i < len(ends):
            hits.append(_Hit(begin.start(), ends[i], "private-key", 4))
            continue
        body = _PEM_TRUNCATED.match(text, begin.end())
        if body is not None:
            hits.append(_Hit(begin.start(), body.end(), "private-key", 4))
    return hits


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None
    priority: int = 3
    # Cheap gate: the regex runs only if one needle occurs in the text (lower-case needles are
    # looked up in the lower-cased text, others as written). Empty = always run.
    needles: tuple[str, ...] = ()
    # Most formats need a run of 12+ letters/digits that is not a plain word (see _has_token_run);
    # prose without one skips those regexes entirely.
    needs_token: bool = True
    # Matched against the lower-cased text, ~3x faster than (?i) in CPython's re; must be written
    # in lower case and be equivalent to ``regex``.
    lower_regex: re.Pattern[str] | None = None


def _password(source: str, check: Callable[[str], bool], needles: tuple[str, ...], *, lower: bool = False) -> _Pattern:
    """A password found by its context (a key, a sentence, a tool's flag): the value is group 1,
    it outranks the generic formats, and no token run is needed (``hunter2`` has none).
    ``lower``: ``source`` is written in lower case and also runs, faster, on the lower-cased text."""
    regex = re.compile("(?i)" + source if lower else source)
    return _Pattern(
        "password", regex, group=1, check=check, priority=1, needles=needles, needs_token=False,
        lower_regex=re.compile(source) if lower else None,
    )  # fmt: skip


def _sk_key_ok(value: str) -> bool:
    return _looks_random(value[3:])


_KEY_WORDS = (
    r"password|passwd|pwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|auth[_-]?key|client[_-]?secret|secret[_-]?key"
)
# ``DB_PASSWORD=hunter2024`` / ``password: "s3cr3t!"`` / ``api_key = abc123...`` (unquoted too).
# Anchored on the keyword itself: any prefix such as ``DB_`` is allowed by not matching it.
_KEY_ASSIGNMENT = rf"(?:{_KEY_WORDS})(?![a-z])[\"'\]]{{0,2}}[ \t]*(?::=|=>|[:=])[ \t]*[\"'`]?([^\s\"'`,;]+)"
_GITHUB_NEEDLES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")


def _hf_ok(value: str) -> bool:
    return _looks_random(value[3:])


def _shell_password_ok(value: str) -> bool:
    v = value.strip("\"'`")
    return len(v) >= 4 and not _is_placeholder(v) and not v.startswith("-")


# Credentials stated in words (issue 25): "the staging DB password is Tr0ub4dor&3xyz", "the pw is
# X", "the token for CI was X". A keyword, an optional short "for/of/on ..." phrase, a verb (or : =),
# then the value, which must still look like a credential (prose "the password is in the vault" is
# not one). Bounded repeats only: linear on hostile input.
_NL_KEY = r"(?:password|passwd|passcode|passphrase|pwd|pw|secret|token|api[ _-]?key|access[ _-]?key)"
_NL_STATEMENT = (
    rf"(?<![\w-]){_NL_KEY}s?(?![\w-])(?:[ \t]+(?:for|of|on|to|in)[ \t]+[^\n.;:=]{{1,40}}?)?"
    r"(?:[ \t]+(?:is|was|are|were|equals|is[ \t]+set[ \t]+to|set[ \t]+to|reads|becomes)[ \t]+|[ \t]*[:=][ \t]*)"
    r"[\"'`“‘]?([^\s\"'`”’]+)"
)
# ``passphrase "correct horse battery staple"`` / ``password 'Tr0ub4dor&3'``: a quoted value right
# after the keyword (spaces allowed inside: passphrases are phrases).
_QUOTED_AFTER_KEY = r"(?<!\w)(?:password|passwd|passphrase|pw|secret)s?[ \t]+[\"“'‘`]([^\"”'’`\n]{6,200})[\"”'’`]"


def _quoted_secret_ok(value: str) -> bool:
    v = value.strip()
    if _is_placeholder(v):
        return False
    return _looks_like_credential(v) or (len(v) >= 12 and len(v.split()) >= 3)


def _npm_ok(value: str) -> bool:
    return _looks_random(value[4:])


_OWN_PATTERNS: tuple[_Pattern, ...] = (
    _password(_NL_STATEMENT, _looks_like_credential, ("pass", "pw", "secret", "token", "key"), lower=True),
    _password(_QUOTED_AFTER_KEY, _quoted_secret_ok, ("pass", "pw", "secret"), lower=True),
    # ``sshpass -p X`` / ``redis-cli -a X`` / ``redis-cli --pass X``: the tools' password flags.
    _password(
        r"(?i)\b(?:sshpass\b[^\n]*?(?<![\w-])-p|redis-cli\b[^\n]*?(?<![\w-])(?:-a|--pass))"
        r"(?:[ \t]+|=)?[\"']?([^\s\"']+)",
        _shell_password_ok,
        ("sshpass", "redis-cli"),
    ),
    # npm access tokens on their own (detect-secrets only finds them in .npmrc ``_authToken=``).
    _Pattern("npm-token", re.compile(r"(?<![\w-])npm_[A-Za-z0-9]{36}(?![\w-])"), check=_npm_ok, needles=("npm_",)),
    _Pattern("google-api-key", re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])"), needles=("AIza",)),
    # Hugging Face user/org tokens: hf_ + 34 letters/digits (``hf_hub_download`` has no such run).
    _Pattern(
        "huggingface-token", re.compile(r"(?<![\w-])hf_[A-Za-z0-9]{30,}(?![\w-])"), check=_hf_ok, needles=("hf_",)
    ),
    # detect-secrets' Telegram pattern only matches a token alone on its line.
    _Pattern(
        "telegram-token",
        re.compile(r"(?<![\w:])\d{8,10}:AA[0-9A-Za-z_-]{33}(?![\w-])"),
        needles=(":AA",),
    ),
    _Pattern(
        "basic-auth",
        re.compile(r"(?i)authorization[\"']?[ \t]*[:=][ \t]*[\"']?basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})"),
        group=1,
        check=lambda v: not _is_placeholder(v),
        needles=("basic",),
        needs_token=False,
    ),
    # ``curl -u user:pass`` / ``--user user:pass``: the part after the colon.
    _password(
        r"(?<![\w-])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"'$]{1,64}:([^\s\"']+)",
        _shell_password_ok,
        ("-u", "--user"),
    ),
    # ``mysql -pPASS`` / ``mysqldump -u root -p'secret'`` (``-p`` glued to the value, as MySQL wants).
    _password(
        r"(?i)\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?(?<![\w-])-p([^\s-][^\s]*)",
        _shell_password_ok,
        ("mysql", "mariadb"),
    ),
    # OpenAI (sk-, sk-proj-, sk-svcacct-), DeepSeek (sk- + 32 hex), Anthropic (sk-ant-...).
    _Pattern("api-key", re.compile(r"(?<![\w-])sk-[A-Za-z0-9_-]{20,}"), check=_sk_key_ok, needles=("sk-",)),
    _Pattern(
        "github-token",
        re.compile(r"(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
        needles=_GITHUB_NEEDLES,
    ),
    _Pattern(
        "aws-access-key",
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])"),
        needles=("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    ),
    _Pattern(
        "aws-secret-key",
        re.compile(
            r"(?i)aws[\w.-]{0,30}?(?:secret|private)[\w.-]{0,20}[\"']?\s*[:=]+\s*[\"']?"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        group=1,
        needles=("aws",),
    ),
    _Pattern(
        "slack-token",
        re.compile(r"(?<![\w-])xox[baprs]-[A-Za-z0-9-]{10,}"),
        check=lambda v: any(c.isdigit() for c in v),
        needles=("xox",),
    ),
    _Pattern(
        "jwt",
        re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        needles=("eyJ",),
    ),
    _password(_KEY_ASSIGNMENT, _looks_like_credential, ("pass", "pwd", "secret", "token", "key"), lower=True),
    _password(
        r"(?:密码|口令|密钥|令牌|私钥)(?:是|为)?[ \t]*[:：=]?[ \t]*[\"'`“]?([^\s\"'`”，。；,;]+)",
        _looks_like_credential,
        ("密码", "口令", "密钥", "令牌", "私钥"),
    ),
)

# --- detect-secrets plugins ------------------------------------------------------------------


@dataclass(frozen=True)
class _PluginSpec:
    """One detect-secrets plugin: its module and class, our kind names, and its needles."""

    module: str
    cls: str
    kinds: tuple[str, ...]  # one kind per denylist regex (the last one repeats)
    needles: tuple[tuple[str, ...], ...] = ()  # per denylist regex; see _Pattern.needles
    # "keyword: value" shaped patterns: the value must also look random (see _looks_random).
    weak: bool = False
    # Start matches only at a token boundary. For patterns that begin with a literal followed by an
    # unbounded run (JWT, OpenAI), a long run repeating the literal ("eyJeyJeyJ...") otherwise costs
    # quadratic time; a real token never starts in the middle of another one anyway.
    anchored: bool = False


_ASSIGNMENT_NEEDLES = ("key", "pw", "pass", "token")
# ``(cloudant|cl|clou)(_|-|)(api|)(key|pwd|pw|password|pass|token)``: every spelling contains one.
_CLOUDANT_NEEDLES = (
    "cloudant",
    *(f"{pre}{rest}" for pre in ("cl", "clou") for rest in ("_", "-", "api", "key", "pw", "pass", "token")),
)
# ``secret[-_]?(?:access)?[-_]?key``
_SECRET_KEY_NEEDLES = tuple(f"secret{sep}{rest}" for sep in ("", "_", "-") for rest in ("key", "access"))
# Needles come from each regex's fixed parts; a plugin regex without needles simply always runs.
_PLUGINS: tuple[_PluginSpec, ...] = (
    _PluginSpec(
        "aws",
        "AWSKeyDetector",
        ("aws-access-key", "aws-secret-key"),
        (("AKIA", "ASIA", "ABIA", "ACCA", "A3T"), ("aws",)),
    ),
    _PluginSpec(
        "artifactory",
        "ArtifactoryDetector",
        ("artifactory-credentials",),
        (("AKC",), tuple(f"AP{c}" for c in "0123456789ABCDEF")),
        weak=True,
    ),
    _PluginSpec("azure_storage_key", "AzureStorageKeyDetector", ("azure-storage-key",), (("accountkey=",),)),
    _PluginSpec("basic_auth", "BasicAuthDetector", ("url-password",), (("://",),)),
    _PluginSpec(
        "cloudant",
        "CloudantDetector",
        ("cloudant-credentials",),
        (_CLOUDANT_NEEDLES, _CLOUDANT_NEEDLES, ("cloudant.com",), ("cloudant.com",)),
        weak=True,
    ),
    _PluginSpec("discord", "DiscordBotTokenDetector", ("discord-token",)),
    _PluginSpec("github_token", "GitHubTokenDetector", ("github-token",), (_GITHUB_NEEDLES,)),
    _PluginSpec(
        "gitlab_token",
        "GitLabTokenDetector",
        ("gitlab-token",),
        (("gl",), ("GR1348941",), ("glcbt-",), ("glimt-",), ("glptt-",), ("glagent-",), ("gloas-",)),
    ),
    _PluginSpec("ibm_cloud_iam", "IbmCloudIamDetector", ("ibm-cloud-key",), (_ASSIGNMENT_NEEDLES,), weak=True),
    _PluginSpec("ibm_cos_hmac", "IbmCosHmacDetector", ("ibm-cos-hmac",), (_SECRET_KEY_NEEDLES,)),
    _PluginSpec("jwt", "JwtTokenDetector", ("jwt",), (("eyJ",),), anchored=True),
    _PluginSpec("mailchimp", "MailchimpDetector", ("mailchimp-key",), (("-us",),)),
    _PluginSpec("npm", "NpmDetector", ("npm-token",), (("_authtoken",),)),
    _PluginSpec("openai", "OpenAIDetector", ("api-key",), (("T3BlbkFJ",),), anchored=True),
    _PluginSpec("pypi_token", "PypiTokenDetector", ("pypi-token",), (("pypi-",), ("pypi-",))),
    _PluginSpec("sendgrid", "SendGridDetector", ("sendgrid-key",), (("SG.",),)),
    _PluginSpec("slack", "SlackDetector", ("slack-token", "slack-webhook"), (("xox",), ("hooks.slack.com",))),
    _PluginSpec("softlayer", "SoftlayerDetector", ("softlayer-key",), (("sl",), ("api.softlayer.com",))),
    _PluginSpec("square_oauth", "SquareOAuthDetector", ("square-secret",), (("sq0csp-",),)),
    _PluginSpec("stripe", "StripeDetector", ("stripe-key",), (("k_live_",),)),
    _PluginSpec("telegram_token", "TelegramBotTokenDetector", ("telegram-token",)),
    _PluginSpec("twilio", "TwilioKeyDetector", ("twilio-key",), (("AC",), ("SK",))),
)


def _not_placeholder(value: str) -> bool:
    return not _is_placeholder(value)


def _plugin_patterns() -> list[_Pattern]:
    """The plugins' own regexes, recompiled with MULTILINE so one pass covers every line.

    Each plugin scans one line at a time; ``^``/``$`` in its patterns mean line boundaries, which is
    exactly what MULTILINE gives on the whole text (none of these patterns span lines otherwise).
    """
    out: list[_Pattern] = []
    for spec in _PLUGINS:
        cls = getattr(importlib.import_module(f"detect_secrets.plugins.{spec.module}"), spec.cls)
        for i, regex in enumerate(cls.denylist):
            check: Callable[[str], bool] | None = None
            if spec.kinds[0] == "jwt":
                check = cls.is_formally_valid
            elif spec.kinds[0] == "url-password":
                check = _not_placeholder  # ``user:password@host`` in docs is a placeholder
            elif spec.weak:
                check = _looks_random
            out.append(
                _Pattern(
                    kind=spec.kinds[min(i, len(spec.kinds) - 1)],
                    regex=re.compile(
                        (r"(?<![A-Za-z0-9_=-])" if spec.anchored else "") + regex.pattern,
                        regex.flags | re.MULTILINE,
                    ),
                    group=-1 if regex.groups else 0,  # -1: every non-empty group, as findall() yields
                    check=check,
                    priority=2 if spec.kinds[0] == "url-password" else 3,
                    needles=spec.needles[i] if i < len(spec.needles) else (),
                    # URL credentials can be short (``user:pw@``); every other format is a long token.
                    needs_token=spec.kinds[0] != "url-password",
                )
            )
    return out


_Gate = tuple[tuple[str, ...], tuple[str, ...]]  # needles looked up in the lower-cased text, as written


def _gate(pattern: _Pattern) -> _Gate:
    lower = tuple(n for n in pattern.needles if n.islower() or not n.isascii())
    exact = tuple(n for n in pattern.needles if n not in lower)
    return lower, exact


@functools.cache
def _detectors() -> tuple[tuple[tuple[_Pattern, _Gate], ...], Any]:
    """All patterns with their gates, and detect-secrets' keyword plugin, built on first use.

    Lazy because importing detect-secrets pulls in ``requests`` (~0.1-0.2 s): commands and windows
    that never scan text should not pay for it.
    """
    from detect_secrets.plugins.keyword import KeywordDetector

    patterns = (*_plugin_patterns(), *_OWN_PATTERNS)
    return tuple((p, _gate(p)) for p in patterns), KeywordDetector()


# Lines worth handing to the keyword plugin (its regexes are costly; most lines have no keyword).
# Its quotes-required regexes (the ones it uses for unknown file types) need a quote on the line.
_KEYWORD_HINT = re.compile(r"(?i)pass|pwd|secret|key|contrase")
_QUOTES = ("'", '"', "`")
_JWT_SUFFIX = re.compile(r"[A-Za-z0-9_\-.+/=]*")


def _spans(pattern: _Pattern, text: str, lower: str) -> Iterator[tuple[int, int]]:
    regex = pattern.regex
    haystack = text
    # str.lower() can change the length (e.g. "İ"); offsets then no longer line up, so fall back.
    if pattern.lower_regex is not None and len(lower) == len(text):
        regex, haystack = pattern.lower_regex, lower
    for m in regex.finditer(haystack):
        if pattern.group == -1:
            groups = [i for i in range(1, (regex.groups or 0) + 1) if m.group(i)]
            spans = [m.span(i) for i in groups] or [m.span(0)]
        else:
            spans = [m.span(pattern.group)]
        for start, end in spans:
            if start < 0 or start == end:
                continue
            if pattern.check is None or pattern.check(text[start:end]):
                yield start, end


def _keyword_hits(text: str, keyword_plugin: Any) -> Iterator[_Hit]:
    """detect-secrets' keyword plugin (quoted ``secret = "..."`` forms), line by line."""
    offset = 0
    for line in text.splitlines(keepends=True):
        if any(q in line for q in _QUOTES) and _KEYWORD_HINT.search(line):
            for value in keyword_plugin.analyze_string(line):
                if not value or not _looks_like_credential(value):
                    continue
                start = line.find(value)
                if start >= 0:
                    yield _Hit(offset + start, offset + start + len(value), "password", 1)
        offset += len(line)


_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "[::1]", "host.docker.internal"})
_URL_USER = re.compile(r"://([^:/\s@]+):\Z")
_URL_HOST = re.compile(r"@([^/:\s?#]+)")


def _is_local_default(text: str, start: int, end: int) -> bool:
    """``postgres://postgres:postgres@localhost/db``: a dev default (password = user) on a local host.

    Memory about local setups is full of these; they open nothing, so they are not flagged.
    """
    user = _URL_USER.search(text, max(0, start - 256), start)
    host = _URL_HOST.match(text, end)
    if user is None or host is None or user.group(1) != text[start:end]:
        return False
    name = host.group(1).lower()
    return name in _LOCAL_HOSTS or name.endswith(".local")


def _gate_open(gate: _Gate, text: str, lower: str) -> bool:
    in_lower, as_written = gate
    if not in_lower and not as_written:
        return True
    return any(n in lower for n in in_lower) or any(n in text for n in as_written)


_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{12,}")


def _has_token_run(text: str) -> bool:
    """A 12+ run of ASCII letters/digits that is not one plain word: digits in it, or mixed case.

    Every token format we look for has one (random bodies of 16-88 chars); ordinary prose,
    Chinese text and kebab names do not, so most memory skips the token regexes altogether.
    """
    for run in _ALNUM_RUN.findall(text):
        if not (run.isalpha() and (run.islower() or run.isupper() or run.istitle())):
            return True
    return False


def _raw_hits(text: str) -> list[_Hit]:
    lower = text.lower()
    hits: list[_Hit] = []
    if "private key" in lower:
        hits += _private_key_hits(text)
    token_run = _has_token_run(text)
    patterns, keyword_plugin = _detectors()
    for pattern, gate in patterns:
        if (pattern.needs_token and not token_run) or not _gate_open(gate, text, lower):
            continue
        for start, end in _spans(pattern, text, lower):
            if pattern.kind == "url-password" and _is_local_default(text, start, end):
                continue
            if pattern.kind == "jwt":  # detect-secrets' JWT regex stops before the signature
                end = _JWT_SUFFIX.match(text, end).end()  # type: ignore[union-attr]  # `*` always matches
            hits.append(_Hit(start, end, pattern.kind, pattern.priority))
    hits.extend(_keyword_hits(text, keyword_plugin))
    return hits


def _merge(hits: Iterable[_Hit]) -> list[_Hit]:
    """Overlapping hits become one span named by the most specific kind (then the earliest)."""
    merged: list[_Hit] = []
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            winner = last if last.priority >= hit.priority else hit
            merged[-1] = _Hit(last.start, max(last.end, hit.end), winner.kind, winner.priority)
        else:
            merged.append(hit)
    return merged


_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u2061\u2062\u2063\u2064")


def _normalized(text: str) -> tuple[str, list[int] | None]:
    """``text`` as NFKC with zero-width characters removed, and where each character came from.

    A key split by a zero-width space, or written in full-width letters, is still the key. ASCII text
    (nearly all memory) is already normal: no copy, no map.
    """
    if text.isascii():
        return text, None
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch in _ZERO_WIDTH:
            continue
        norm = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        out.append(norm)
        origin.extend([i] * len(norm))
    origin.append(len(text))
    return "".join(out), origin


def _scan(text: str) -> list[_Hit]:
    """Hits as spans of ``text`` itself (found in its normalized form, mapped back)."""
    if not text:
        return []
    norm, origin = _normalized(text)
    hits = _merge(_raw_hits(norm))
    if origin is None:
        return hits
    return [_Hit(origin[h.start], origin[h.end - 1] + 1, h.kind, h.priority) for h in hits]


def find_secrets(text: str) -> list[SecretFinding]:
    """Every credential-shaped value in ``text`` as (line, kind), sorted, one per kind and line."""
    findings: set[SecretFinding] = set()
    line, pos = 1, 0
    for hit in _scan(text):  # sorted by start: count newlines incrementally, not from 0 each time
        line += text.count("\n", pos, hit.start)
        pos = hit.start
        findings.add(SecretFinding(kind=hit.kind, line=line))
    return sorted(findings, key=lambda f: (f.line, f.kind))


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of every credential-shaped value in ``text``, sorted: what a view masks."""
    return [(h.start, h.end, h.kind) for h in _scan(text)]


def has_secrets(text: str) -> bool:
    return bool(_scan(text))


def redact(text: str) -> str:
    """``text`` with each credential-shaped value replaced by ``[REDACTED:<kind>]``; the rest is kept."""
    hits = _scan(text)
    if not hits:
        return text
    parts: list[str] = []
    pos = 0
    for hit in hits:
        parts.append(text[pos : hit.start])
        parts.append(f"[REDACTED:{hit.kind}]")
        pos = hit.end
    parts.append(text[pos:])
    return "".join(parts)


def without_secrets(text: str) -> str:
    """``text`` with each credential-shaped value replaced by a space: for names derived from text
    (record names, file names), which must carry neither the value nor a redaction label."""
    hits = _scan(text)
    if not hits:
        return text
    parts: list[str] = []
    pos = 0
    for hit in hits:
        parts.append(text[pos : hit.start])
        parts.append(" ")
        pos = hit.end
    parts.append(text[pos:])
    return "".join(parts)


def describe(findings: Iterable[SecretFinding]) -> tuple[str, ...]:
    """Human lines for errors and warnings: ``("line 3: AWS access key", ...)``, duplicates dropped."""
    return tuple(dict.fromkeys(str(f) for f in findings))
