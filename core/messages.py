"""The texts core writes for people (validation reasons, refusals, warnings), each made from one
template here, so the window can show them in the user's language.

Core stays English and Qt-free: a reason is a plain string, because reasons are persisted as text
(pending reviews, receipts, the CLI's JSON) and compared nowhere. The GUI translates a reason by
finding the template it was made from — :func:`parse` is the exact inverse of
:meth:`Template.format` — and formatting the Chinese template with the same values
(``gui/core_text.py``). Nothing decides anything from these texts; an unknown text (older
receipts, a template added without a translation) is shown as it is.

``QT_TRANSLATE_NOOP`` marks each template for ``pyside6-lupdate`` (it parses the call by name; this
is a plain function, not Qt's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CONTEXT = "core"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # the name lupdate looks for
    return text


@dataclass(frozen=True)
class Template:
    text: str
    _pattern: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def format(self, **values: object) -> str:
        return self.text.format(**values)

    def match(self, text: str) -> dict[str, str] | None:
        if self._pattern is None:  # compiled on first use: a CLI run that never parses pays nothing
            parts = re.split(r"\{([a-z_]+)\}", self.text)
            regex = "".join(
                re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
            )
            object.__setattr__(self, "_pattern", re.compile(regex, re.DOTALL))
        assert self._pattern is not None
        found = self._pattern.fullmatch(text)
        return found.groupdict() if found else None


def _t(text: str) -> Template:
    template = Template(text)
    ALL.append(template)
    return template


ALL: list[Template] = []

# --- record rules (core.records) ------------------------------------------------------------
NAME_NOT_KEBAB = _t(QT_TRANSLATE_NOOP(
    "core", "name {name} is not lower-case kebab-case (letters a-z, digits, single dashes, e.g. 'build-tips')"))
NAME_RESERVED = _t(QT_TRANSLATE_NOOP(
    "core", "name {name} is reserved (it would clash with {index}); pick another name"))
NAME_NOT_FILE = _t(QT_TRANSLATE_NOOP(
    "core", "name {name} does not match the file name {file} (expected {expected})"))
NAME_NOT_FILE_SHORT = _t(QT_TRANSLATE_NOOP("core", "name {name} does not match the file name {file}"))
DESCRIPTION_EMPTY = _t(QT_TRANSLATE_NOOP(
    "core", "description is empty; write a one-line hook saying when this record matters"))
DESCRIPTION_MULTILINE = _t(QT_TRANSLATE_NOOP("core", "description spans several lines; it must be a single line"))
DESCRIPTION_CONTROL = _t(QT_TRANSLATE_NOOP("core", "description contains control characters"))
TYPE_UNKNOWN = _t(QT_TRANSLATE_NOOP("core", "type {type} is not one of feedback, project, reference"))
TYPE_USER = _t(QT_TRANSLATE_NOOP(
    "core", "type {type} is not one of feedback, project, reference "
    "(facts about the user in general belong to GLOBAL.md)"))
BODY_NUL = _t(QT_TRANSLATE_NOOP("core", "body contains NUL bytes"))
BODY_CR = _t(QT_TRANSLATE_NOOP("core", "body contains carriage returns (CR); use LF line endings"))
RECORD_TOO_BIG = _t(QT_TRANSLATE_NOOP("core", "is {size} bytes; a record may be at most {limit} KiB"))
NO_NAME = _t(QT_TRANSLATE_NOOP("core", "has no 'name' in its frontmatter"))
NO_DESCRIPTION = _t(QT_TRANSLATE_NOOP("core", "has no 'description' in its frontmatter"))
NO_TYPE = _t(QT_TRANSLATE_NOOP("core", "has no 'metadata.type' (feedback, project or reference)"))
TYPE_AT_TOP = _t(QT_TRANSLATE_NOOP(
    "core", "has 'type' at the top level; it belongs under 'metadata:' (metadata.type)"))
METADATA_NOT_MAPPING = _t(QT_TRANSLATE_NOOP(
    "core", "its 'metadata' is not a mapping; it needs 'type: feedback|project|reference'"))
FILE_TYPE_UNKNOWN = _t(QT_TRANSLATE_NOOP("core", "its type {type} is not one of feedback, project, reference"))
NAME_NOT_TEXT = _t(QT_TRANSLATE_NOOP("core", "its name {name} is not text (YAML read it as {kind}); quote it"))
DESCRIPTION_NOT_TEXT = _t(QT_TRANSLATE_NOOP(
    "core", "its description is not text (YAML read it as {kind}); quote it"))
YAML_INVALID = _t(QT_TRANSLATE_NOOP("core", "its frontmatter is not valid YAML: {problem}"))

# --- consolidation review (core.consolidation.validation) -------------------------------------
SECRET_REFUSED = _t(QT_TRANSLATE_NOOP(
    "core", "{what} contains what looks like a credential ({kinds}); refused: "
    "remove it by editing, or reject the change"))
OTHER_WORKSPACE = _t(QT_TRANSLATE_NOOP(
    "core", "targets workspace {claimed}, but a consolidation may only change the source session's "
    "workspace ({cwd}); refused"))
UNKNOWN_SEQS = _t(QT_TRANSLATE_NOOP("core", "cites evidence seqs that are not in this session: {seqs}"))
NAME_IS_PATH = _t(QT_TRANSLATE_NOOP(
    "core", "record name {name} is a path; records live only in this workspace; refused"))
REPLACES_RECORD = _t(QT_TRANSLATE_NOOP("core", "replaces the existing record {name}"))
ALREADY_IN_MEMORY = _t(QT_TRANSLATE_NOOP("core", "already in memory as [[{name}]]"))
SIMILAR_TO = _t(QT_TRANSLATE_NOOP(
    "core", "similar to [[{name}]], {score} %: merge it into that record instead of adding a near-copy"))
DESCRIPTION_LONG = _t(QT_TRANSLATE_NOOP(
    "core", "the description is {n} characters; a one-line hook of about 100 reads best in MEMORY.md"))
SUPERSEDES = _t(QT_TRANSLATE_NOOP(
    "core", "supersedes [[{name}]] ({detail}): Replace it, Keep both or Merge"))
CONTRADICTS = _t(QT_TRANSLATE_NOOP(
    "core", "contradicts [[{name}]] (which says {word}): Replace it, Keep both or Merge"))
UPDATES_VALUE = _t(QT_TRANSLATE_NOOP("core", "{old} → {new}"))
CHANGED_WORDING = _t(QT_TRANSLATE_NOOP("core", "the same fact, changed"))
UNSUPPORTED = _t(QT_TRANSLATE_NOOP(
    "core", "unsupported by the cited evidence: the user's words at seq {seqs} don't mention {words}"))
NO_RECORD_TO_DELETE = _t(QT_TRANSLATE_NOOP("core", "there is no record {name} in this workspace to delete"))
DELETES_RECORD = _t(QT_TRANSLATE_NOOP("core", "deletes the record {name} (it stays recoverable from history)"))
GLOBAL_NO_EVIDENCE = _t(QT_TRANSLATE_NOOP("core", "changes GLOBAL.md without citing evidence; refused"))
GLOBAL_NOT_USER = _t(QT_TRANSLATE_NOOP(
    "core", "changes GLOBAL.md from evidence that is not the user's own words (seqs {seqs}); "
    "a workspace observation never becomes Global"))
GLOBAL_REMOVES = _t(QT_TRANSLATE_NOOP("core", "removes {removed} of {total} existing lines of GLOBAL.md"))
GLOBAL_WARNING = _t(QT_TRANSLATE_NOOP(
    "core", "changes GLOBAL.md, which every workspace sees: accept only if this is about you in general, "
    "not about this project"))
GLOBAL_MENTIONS_WORKSPACE = _t(QT_TRANSLATE_NOOP(
    "core", "the new GLOBAL.md mentions this workspace ({mention}); project facts belong to the workspace"))
TARGET_TWICE = _t(QT_TRANSLATE_NOOP("core", "{target} is already changed by {first}; refused"))
# --- the offline extractor's reasons (core.consolidation.offline) -----------------------------------
OFFLINE_STATED = {
    "remember": _t(QT_TRANSLATE_NOOP("core", "remember stated by the user (seq {seqs})")),
    "decision": _t(QT_TRANSLATE_NOOP("core", "decision stated by the user (seq {seqs})")),
    "correction": _t(QT_TRANSLATE_NOOP("core", "correction stated by the user (seq {seqs})")),
    "preference": _t(QT_TRANSLATE_NOOP("core", "preference stated by the user (seq {seqs})")),
    "reference": _t(QT_TRANSLATE_NOOP("core", "reference given by the user (seq {seqs})")),
    "constraint": _t(QT_TRANSLATE_NOOP("core", "constraint stated by the user (seq {seqs})")),
}
OFFLINE_SUPERSEDED = _t(QT_TRANSLATE_NOOP(
    "core", "superseded by [[{new}]]: the user gave a new value for what [[{old}]] said"))
OFFLINE_GLOBAL = _t(QT_TRANSLATE_NOOP(
    "core", "the user said this about themselves in every project (seq {seqs}); confirm it belongs to GLOBAL.md"))
OFFLINE_ALL_KNOWN = _t(QT_TRANSLATE_NOOP("core", "Everything found is already in memory."))
OFFLINE_NOTHING = _t(QT_TRANSLATE_NOOP(
    "core", "No explicit remember requests, preferences, corrections or decisions were found."))

# --- sessions (core.sessions): why a session is not stable yet ------------------------------------
LOCK_UNCHECKED = _t(QT_TRANSLATE_NOOP("core", "session.lock could not be checked ({why})"))
LOCK_HELD_ELSEWHERE = _t(QT_TRANSLATE_NOOP("core", "session.lock is held by pid {pid} on {host}"))
LOCK_HELD_PID = _t(QT_TRANSLATE_NOOP("core", "DSH (pid {pid}) holds session.lock (the session is open)"))
LOCK_HELD = _t(QT_TRANSLATE_NOOP("core", "DSH holds session.lock (the session is open)"))
SESSION_GONE = _t(QT_TRANSLATE_NOOP("core", "the session log is gone"))
SESSION_QUIET = _t(QT_TRANSLATE_NOOP("core", "modified {age} ago; waiting for {quiet} without changes"))
SESSION_CHANGED = _t(QT_TRANSLATE_NOOP("core", "the session changed since it was listed; refresh the list"))
# An agent proposal's title in the review (core.consolidation.agent_proposals).
AGENT_PROPOSAL_TITLE = _t(QT_TRANSLATE_NOOP("core", "Proposed by {client} (MCP agent) on {when} UTC"))
# --- sync and move (core.sync): results, refusals, failures --------------------------------------
SYNC_CANCELLED = _t(QT_TRANSLATE_NOOP(
    "core", "Sync cancelled. Memory is whole (each workspace old or new); the next sync goes on from here."))
SYNC_REMOTE_CREDENTIAL = _t(QT_TRANSLATE_NOOP(
    "core", "The remote URL holds a credential (a password or token). Use an SSH URL or a git credential "
    "helper instead; settings never keep credentials."))
SYNC_BUSY = _t(QT_TRANSLATE_NOOP("core", "Another sync of this memory is running; try again when it ends."))
SYNC_NO_ROOT = _t(QT_TRANSLATE_NOOP("core", "Sync needs a memory root on disk."))
SYNC_READ_ONLY = _t(QT_TRANSLATE_NOOP("core", "This memory root is read-only; sync needs to write to it."))
SYNC_NO_REMOTE = _t(QT_TRANSLATE_NOOP(
    "core", "No sync remote yet: run `dsh-memory sync --remote URL` once (a bare repository on a server, "
    "a private hosted repository or a path on a USB disk)."))
SYNC_FILE_CHANGED = _t(QT_TRANSLATE_NOOP("core", "{path} changed while syncing; sync again"))
SYNC_REVIEW_WAITING = _t(QT_TRANSLATE_NOOP("core", "{n} record(s) changed on both machines wait for your choice."))
SYNC_SECRETS = _t(QT_TRANSLATE_NOOP(
    "core", "Not synced: these records hold credential-shaped values and are never pushed. Remove the "
    "values (or the records) and sync again: {paths}"))
SYNC_REWRITTEN = _t(QT_TRANSLATE_NOOP(
    "core", "Synced. The synced history no longer holds the workspace(s) deleted forever here (the remote's "
    "branch was replaced); other machines rewrite their copy at their next sync."))
SYNC_RECEIVED = _t(QT_TRANSLATE_NOOP("core", "Received {n} change(s)."))
SYNC_SENT = _t(QT_TRANSLATE_NOOP("core", "Sent {n} change(s)."))
SYNC_UP_TO_DATE = _t(QT_TRANSLATE_NOOP("core", "Up to date."))
SYNC_SYNCED = _t(QT_TRANSLATE_NOOP("core", "Synced."))
SYNC_CHANGED_HERE = _t(QT_TRANSLATE_NOOP(
    "core", "Memory changed here while syncing; nothing was sent. Sync again to merge it: {paths}"))
SYNC_BOTH_CHANGED = _t(QT_TRANSLATE_NOOP(
    "core", "{n} record(s) changed on both machines: choose a version for each, then sync again. "
    "Nothing was pushed."))
SYNC_NO_ITEM = _t(QT_TRANSLATE_NOOP(
    "core", "No sync review item {item}. Run `dsh-memory sync review` to list them."))
SYNC_ITEM_CHANGED = _t(QT_TRANSLATE_NOOP(
    "core", "{name} changed here since the review was made; sync again to review it afresh."))
SYNC_GLOBAL_NO_DELETE = _t(QT_TRANSLATE_NOOP(
    "core", "GLOBAL.md can't be deleted by a sync review; choose or edit a text."))
SYNC_EDIT_NEEDS_TEXT = _t(QT_TRANSLATE_NOOP("core", "An edited version of {name} needs its text."))
SYNC_SYMLINK = _t(QT_TRANSLATE_NOOP(
    "core", "{path} is a symbolic link; sync never writes through one. Remove it and retry."))
GIT_MISSING = _t(QT_TRANSLATE_NOOP(
    "core", "Sync needs git, and it is not installed (or not on PATH). Install git "
    "(Debian/Ubuntu: `sudo apt install git`, macOS: `xcode-select --install`, Windows: git-scm.com), "
    "then sync again. Your memory is unchanged."))
GIT_FAILED = _t(QT_TRANSLATE_NOOP("core", "git {command} failed: {detail}"))
GIT_OBJECT_MISSING = _t(QT_TRANSLATE_NOOP("core", "git object {sha} is missing from the sync repository"))
GIT_NO_COMMIT = _t(QT_TRANSLATE_NOOP("core", "git fast-import did not create the commit"))
REMOTE_UNREACHABLE = _t(QT_TRANSLATE_NOOP("core", "Could not reach the sync remote {url}: {detail}"))
REMOTE_FETCH_FAILED = _t(QT_TRANSLATE_NOOP("core", "Could not fetch from {url}: {detail}"))
REMOTE_PUSH_FAILED = _t(QT_TRANSLATE_NOOP("core", "Could not push to {url}: {detail}"))
PUSH_REJECTED = _t(QT_TRANSLATE_NOOP(
    "core", "The remote has changes this machine has not merged yet (the push was rejected). "
    "Sync again to merge them first."))
HELD_GLOBAL_DELETED = _t(QT_TRANSLATE_NOOP("core", "GLOBAL.md was deleted on the other machine; it is kept here"))
HELD_ARCHIVED = _t(QT_TRANSLATE_NOOP(
    "core", "changes inside archived workspaces are not synced record by record"))
HELD_NO_SCOPE = _t(QT_TRANSLATE_NOOP(
    "core", "the synced workspace has no usable scope.json; map it to a folder first"))
HELD_SECRET = _t(QT_TRANSLATE_NOOP("core", "holds a credential-shaped value; never written into memory here"))
HELD_INVALID_HERE = _t(QT_TRANSLATE_NOOP("core", "invalid here; a merge never rewrites an invalid file"))
FROZEN_NOT_REGULAR = _t(QT_TRANSLATE_NOOP("core", "not a regular file (a symbolic link or a folder)"))
FROZEN_UNREADABLE = _t(QT_TRANSLATE_NOOP("core", "not readable, or over the size limit"))
FROZEN_TOO_BIG = _t(QT_TRANSLATE_NOOP("core", "over the size limit"))
FROZEN_NOT_UTF8 = _t(QT_TRANSLATE_NOOP("core", "not valid UTF-8"))
FROZEN_NUL = _t(QT_TRANSLATE_NOOP("core", "contains NUL bytes"))
FROZEN_INVALID = _t(QT_TRANSLATE_NOOP("core", "not a valid record"))
MOVE_SAME_FOLDER = _t(QT_TRANSLATE_NOOP("core", "Workspace {key} already belongs to {cwd}; nothing to move."))
MOVE_ARCHIVED_EXISTS = _t(QT_TRANSLATE_NOOP(
    "core", "The Recycle Bin already holds an archived workspace {key}; restore or purge it before moving "
    "this one (the move archives the old copy). Nothing was changed."))
MOVE_CHOOSE_FIRST = _t(QT_TRANSLATE_NOOP(
    "core", "Choose a version for each record in both workspaces before moving: {names}"))
MOVE_SOURCE_CHANGED = _t(QT_TRANSLATE_NOOP(
    "core", "Workspace {name} changed since the move was planned; review it again. Nothing was moved."))

# --- the settings form (core.settings_form, core.settings) -----------------------------------
SETTINGS_BASE_URL = _t(QT_TRANSLATE_NOOP("core", "Base URL: {why}."))
SETTINGS_KEY_NOT_NAME = _t(QT_TRANSLATE_NOOP(
    "core", "API key variable: this looks like a key, not a variable name. Keys are never saved:\nput the key in "
    "an environment variable and type that variable's NAME here (like MY_LLM_API_KEY)."))
SETTINGS_CUSTOM_INCOMPLETE = _t(QT_TRANSLATE_NOOP("core", "A custom endpoint needs a base URL and a model name."))
BASE_URL_NOT_HTTP = _t(QT_TRANSLATE_NOOP(
    "core", "base_url must be an http(s) URL like https://api.deepseek.com, got {value}"))
BASE_URL_CREDENTIALS = _t(QT_TRANSLATE_NOOP(
    "core", "base_url must not contain a user name or password; use api_key_env"))
BASE_URL_QUERY = _t(QT_TRANSLATE_NOOP(
    "core", "base_url must not contain a query string or fragment (keys belong in api_key_env)"))

# Last: it matches any text that starts with "record ", so every longer template is tried first.
RECORD_NAMED = _t(QT_TRANSLATE_NOOP("core", "record {name}"))


def parse(text: str) -> tuple[Template, dict[str, str]] | None:
    """The template ``text`` was made from and the values that filled it, or None."""
    for template in ALL:
        values = template.match(text)
        if values is not None:
            return template, values
    return None
