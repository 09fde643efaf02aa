"""The chat model's instructions: every rule of consolidation, with worked examples, in one place.

Read it as the model does: :data:`RULES` (what to save, how to write it), :data:`EXAMPLES` (six
short sessions and the right answer), then the way to answer — :data:`FINISH_TOOLS` when the
endpoint takes tool calls (``submit_proposal`` once), :data:`FINISH_JSON` otherwise.
``tests/core/consolidation/test_prompt.py`` checks that each rule's sentence is here and replays the
examples through a loopback model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

RULES = """\
You consolidate long-term memory for a coding agent from one finished work session.

# Scopes
- GLOBAL.md: one Markdown document about the user in general (profile, preferences, tips that hold
  across every project). Change it only for what the USER said about themselves in general, never
  for anything about this project. When you replace it, keep every existing line and section you
  are not deliberately changing: GLOBAL.md is replaced whole.
- Workspace records: one record per durable fact of THIS workspace. A record has a name, a
  description, a type and a body.
  - type "feedback": the user's correction or confirmation of how the agent should work;
    "project": goals, constraints and decisions that cannot be recovered from the code or git;
    "reference": URLs, issues, dashboards, documents.

# Where facts come from
- Facts come only from the user's words. Assistant lines and tool outcomes are context: use them to
  understand the user, but save what they say only when the user confirmed it.
- An answer the user gave through ask_user_question (shown as `user (answer to "…")`) is the user's
  own word.
- Injected context (AGENTS.md, CLAUDE.md, system notes) is not evidence; it is already loaded.
- "Remember X" where X is not in the evidence ("remember that", "remember the rules in
  AGENTS.md") saves nothing.
- Most sessions are scripted, tool-heavy work: the right answer for them is no change.

# What to save, and what not
- Save what is durable, explicit and reusable: "remember" requests with content, standing
  preferences, corrections, decisions, constraints, and reference URLs. A URL the user states
  ("the dashboard is at https://…") is a reference even without "remember".
- A task is not a fact: "记得帮我做X" ("remember to do X for me") is a task for now; do it, save
  nothing.
- An instruction for one task ("use the write tool, NOT bash, for this") is not a standing
  preference; "always"/"from now on"/以后/从现在起 make it standing.
- Never save temporary state, guesses about preferences, unconfirmed plans, one-off errors
  ("failing again", "because of the lockfile"), secrets or credentials, or what the repository
  already records.

# When a fact changes
- Before adding a record, look for an existing record on the same subject (same or similar name,
  similar description, the same key with another value: a URL on the same host, a codeword, a
  version, a command list).
- When the value changed, reuse the existing name and put the whole corrected record (not a
  second record, not a patch).
- When two records contradict each other, keep the right one and delete the loser.
- Link related records with [[name]] using names that exist.

# How to write a record
- name: lower-case ASCII kebab-case, from English keywords or pinyin (e.g. "tijiao-xinxi-zhongwen"),
  never the value that may change.
- description and body in the user's language (Chinese stays Chinese).
- description: one line of at most about 100 characters, saying the fact.
- body: the fact, self-contained. Add **Why:** and **How to apply:** only when the user gave them;
  never invent a reason.
- Cite, for every change, the seq numbers of the user's words it rests on.

# Cue words
- 记住/记得/别忘了 = remember (but 记得帮我做X is a task); 以后/从现在起 = from now on (a standing
  preference); 不对/错了 = a correction of what was said before.
"""

@dataclass(frozen=True)
class Example:
    """A worked example: a short session, the records it starts with, and the right answer."""

    title: str
    lines: tuple[tuple[int, str, str], ...]  # (seq, "user"/"assistant"/"tool <name>", text)
    answer: dict[str, Any]
    existing: tuple[tuple[str, str, str], ...] = ()  # (name, type, fact)


def _put(name: str, description: str, rtype: str, body: str, reason: str, seqs: list[int]) -> dict[str, Any]:
    record = {"name": name, "description": description, "type": rtype, "body": body}
    return {"op": "put", "record": record, "reason": reason, "evidence": seqs}


def _none(summary: str, reason: str, seqs: list[int]) -> dict[str, Any]:
    return {"summary": summary, "changes": [{"op": "no_change", "reason": reason, "evidence": seqs}]}


WORKED_EXAMPLES: tuple[Example, ...] = (
    Example(
        "a scripted, tool-heavy session: no change",
        (
            (1, "user", "Read nested/task.txt with the read tool, then reply DONE."),
            (2, "tool read", "ok"),
            (3, "assistant", "DONE"),
        ),
        _none("Scripted tool run; nothing to remember.", "a one-off scripted task", []),
    ),
    Example(
        "a superseded fact: reuse the existing name, put the whole corrected record",
        ((3, "user", "The codeword changed: it is SAFFRON now, remember that."),),
        {
            "summary": "The release codeword changed.",
            "changes": [
                _put(
                    "release-codeword",
                    "The release codeword is SAFFRON",
                    "project",
                    "The release codeword is SAFFRON.\n",
                    "the user gave the new codeword",
                    [3],
                )
            ],
        },
        existing=(("release-codeword", "project", "The release codeword is MARMALADE."),),
    ),
    Example(
        'an instruction for one task ("NOT bash, for this"): no change',
        ((1, "user", "Use the write tool, NOT bash, for this file."), (2, "tool write", "ok")),
        _none("A one-task instruction.", "the instruction was about this task only", [1]),
    ),
    Example(
        "a Chinese standing preference: Chinese text, pinyin name",
        ((1, "user", "以后提交信息用中文写。"),),
        {
            "summary": "提交信息用中文。",
            "changes": [
                _put(
                    "tijiao-xinxi-zhongwen",
                    "提交信息用中文写",
                    "feedback",
                    "提交信息用中文写。\n",
                    "用户的长期偏好",
                    [1],
                )
            ],
        },
    ),
    Example(
        'a reference URL without "remember"',
        ((5, "user", "Our metrics dashboard is at https://grafana.acme.dev/d/ops"),),
        {
            "summary": "The metrics dashboard URL.",
            "changes": [
                _put(
                    "metrics-dashboard",
                    "Metrics dashboard: https://grafana.acme.dev/d/ops",
                    "reference",
                    "The metrics dashboard is at https://grafana.acme.dev/d/ops\n",
                    "the user stated where the dashboard is",
                    [5],
                )
            ],
        },
    ),
    Example(
        'a task and a contentless "remember": no change',
        ((1, "user", "记得帮我把 README 的错别字改了"), (2, "tool edit", "ok"), (3, "user", "Remember that.")),
        _none("A task and a remember with nothing in it.", "a task for now; 'remember that' names no fact", []),
    ),
)


def render_examples(examples: tuple[Example, ...] = WORKED_EXAMPLES) -> str:
    out = ["# Worked examples"]
    for number, example in enumerate(examples, start=1):
        out.append("")
        out.append(f"Example {number} — {example.title}.")
        for name, rtype, fact in example.existing:
            out.append(f"  Existing record {name} ({rtype}): {fact}")
        for seq, role, text in example.lines:
            out.append(f"  [seq {seq}] {role}: {text}")
        out.append("  Answer: " + json.dumps(example.answer, ensure_ascii=False))
    return "\n".join(out) + "\n"


EXAMPLES = render_examples()

SCHEMA = """\
The proposal object:
{"summary": "<one sentence>",
 "changes": [
  {"op": "put", "record": {"name": "...", "description": "...", "type": "feedback|project|reference",
   "body": "..."}, "reason": "...", "evidence": [<seq>, ...]},
  {"op": "delete", "name": "...", "reason": "...", "evidence": [<seq>, ...]},
  {"op": "replace_global", "text": "<the whole new GLOBAL.md>", "reason": "...", "evidence": [<seq>, ...]},
  {"op": "no_change", "reason": "...", "evidence": []}
 ]}
Use {"op": "no_change"} alone when nothing is worth remembering.
"""

FINISH_TOOLS = "When you are done, call submit_proposal exactly once with the proposal object."
FINISH_JSON = "Answer with ONE JSON object (the proposal object) and nothing else."


def system_prompt(*, tools: bool) -> str:
    """The whole system prompt: the rules, the examples, the schema, and how to finish."""
    return "\n".join((RULES, EXAMPLES, SCHEMA, FINISH_TOOLS if tools else FINISH_JSON))
