"""The model's instructions teach every rule of issue 26, and a model answering as the worked
examples do gets the reviews a user expects (a real loopback chat-completions server)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from consolidation_support import CWD, ChatServer, make_evidence, proposal_reply

from core.consolidation import ConsolidationService
from core.consolidation.prompt import FINISH_JSON, FINISH_TOOLS, WORKED_EXAMPLES, Example, system_prompt
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.settings import AppSettings
from core.store.memory import InMemoryStore

# One sentence per rule the issue lists; each must be in the prompt word for word.
RULE_SENTENCES = [
    "reuse the existing name and put the whole corrected record",
    "When two records contradict each other, keep the right one and delete the loser.",
    "Facts come only from the user's words.",
    "Assistant lines and tool outcomes are context",
    "save what they say only when the user confirmed it",
    'An instruction for one task ("use the write tool, NOT bash, for this") is not a standing',
    '"Remember X" where X is not in the evidence',
    "Link related records with [[name]] using names that exist.",
    "description and body in the user's language",
    "lower-case ASCII kebab-case, from English keywords or pinyin",
    "记住/记得/别忘了 = remember",
    "以后/从现在起 = from now on",
    "不对/错了 = a correction",
    '"记得帮我做X" ("remember to do X for me") is a task',
    "keep every existing line and section you",
    "Add **Why:** and **How to apply:** only when the user gave them;",
    "never invent a reason",
    "one line of at most about 100 characters",
    "A URL the user states",
    'is a reference even without "remember"',
    "one-off errors",
    "Most sessions are scripted, tool-heavy work: the right answer for them is no change.",
    'An answer the user gave through ask_user_question (shown as `user (answer to "…")`) is the user\'s',
]


@pytest.mark.parametrize("sentence", RULE_SENTENCES)
def test_each_rule_is_taught(sentence: str) -> None:
    flat = " ".join(system_prompt(tools=True).split())
    assert " ".join(sentence.split()) in flat


def test_the_way_to_finish_depends_on_tools() -> None:
    with_tools, without = system_prompt(tools=True), system_prompt(tools=False)
    assert with_tools.endswith(FINISH_TOOLS) and "call submit_proposal exactly once" in with_tools
    assert without.endswith(FINISH_JSON) and "submit_proposal exactly once" not in without
    assert "Answer with ONE JSON object" not in with_tools


def test_there_are_four_to_six_worked_examples_covering_the_issue() -> None:
    assert 4 <= len(WORKED_EXAMPLES) <= 6
    titles = " ".join(e.title for e in WORKED_EXAMPLES)
    for topic in ("tool-heavy", "superseded", "NOT bash", "Chinese", "URL"):
        assert topic in titles
    for example in WORKED_EXAMPLES:
        assert json.dumps(example.answer, ensure_ascii=False) in system_prompt(tools=False)


def _messages(example: Example) -> list[tuple[int, str, str]]:
    return [(seq, role, text) for seq, role, text in example.lines if role in ("user", "assistant")]


def _service(catalog: ModelCatalog, example: Example) -> tuple[ConsolidationService, InMemoryStore]:
    store = InMemoryStore()
    if example.existing:
        ops = [
            PutOp(record=Record(name=n, description=fact.rstrip("."), type=t, body=f"\n{fact}\n"))  # type: ignore[arg-type]
            for n, t, fact in example.existing
        ]
        snap = store.create_workspace(CWD)
        store.commit(snap.key, ops, snap.revision)
    values: dict[str, Any] = {"consolidator": "model", "request_timeout_seconds": 10}
    return ConsolidationService(store, catalog, AppSettings(**values)), store


@pytest.mark.parametrize("example", WORKED_EXAMPLES, ids=[e.title.split(":")[0] for e in WORKED_EXAMPLES])
def test_a_model_answering_as_the_examples_gets_the_expected_review(
    example: Example, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    chat_server.replies.append(proposal_reply(example.answer["changes"], example.answer["summary"]))
    service, store = _service(catalog, example)
    evidence, text = make_evidence(_messages(example))
    review = service.propose(service.prepare_evidence(evidence, text))
    system = chat_server.requests[0]["messages"][0]["content"]
    assert "Worked examples" in system and "Facts come only from the user's words." in system
    puts = [c for c in example.answer["changes"] if c["op"] == "put"]
    if not puts:
        assert review.actionable == () and review.receipt.status == "no-change"
        return
    [change] = review.actionable
    assert change.target == f"{puts[0]['record']['name']}.md" and not change.problems
    assert not change.unsupported, change.warnings  # the cited seq holds the user's words
    assert change.quotes and change.quotes[0][0] == puts[0]["evidence"][0]
    if example.existing:  # the superseded fact is an update of the same record, never a second one
        assert change.before is not None and "MARMALADE" in change.before and "SAFFRON" in (change.after or "")
        service.commit(review, [change.id])
        snap = store.find_workspace(CWD)
        assert snap is not None and [r.name for r in snap.records()] == ["release-codeword"]
    else:
        assert change.before is None and change.related_to is None


def test_a_new_name_for_a_changed_fact_is_marked_supersedes_with_replace(
    chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    example = WORKED_EXAMPLES[1]
    answer = json.loads(json.dumps(example.answer))
    answer["changes"][0]["record"]["name"] = "codeword-saffron"  # a model that did not reuse the name
    chat_server.replies.append(proposal_reply(answer["changes"]))
    service, store = _service(catalog, example)
    evidence, text = make_evidence(_messages(example))
    review = service.propose(service.prepare_evidence(evidence, text))
    [change] = review.actionable
    assert change.relation == "supersedes" and change.related_to == "release-codeword"
    assert any("supersedes [[release-codeword]] (MARMALADE → SAFFRON)" in w for w in change.warnings)
    replaced = service.resolve_change(review, change.id, "replace")
    assert replaced.target == "release-codeword.md" and "SAFFRON" in (replaced.after or "")
    service.commit(review, [change.id], edited={change.id: replaced})
    snap = store.find_workspace(CWD)
    assert snap is not None and [r.name for r in snap.records()] == ["release-codeword"]
    assert "SAFFRON" in snap.records()[0].body


def test_a_contradiction_is_marked_and_keep_both_keeps_both(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    example = Example(
        "contradiction",
        ((2, "user", "No, releases are cut from trunk-stable, never from main."),),
        {},
        existing=(("tag-releases", "project", "Tag releases on main."),),
    )
    put = {
        "op": "put",
        "record": {
            "name": "release-branch",
            "description": "Releases are cut from trunk-stable, never from main",
            "type": "project",
            "body": "Releases are cut from trunk-stable, never from main.\n",
        },
        "reason": "the user corrected the release branch",
        "evidence": [2],
    }
    chat_server.replies.append(proposal_reply([put]))
    service, _store = _service(catalog, example)
    evidence, text = make_evidence(_messages(example))
    review = service.propose(service.prepare_evidence(evidence, text))
    [change] = review.actionable
    assert change.relation == "contradicts" and change.related_to == "tag-releases"
    kept = service.resolve_change(review, change.id, "keep")
    assert kept.target == "release-branch.md"
    merged = service.resolve_change(review, change.id, "merge")
    assert merged.target == "tag-releases.md" and "trunk-stable" in (merged.after or "")


def test_a_change_citing_a_seq_without_its_words_is_flagged(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    messages = [
        (1, "user", "Please fix the flaky checkout test."),
        (2, "assistant", "Fixed."),
        (3, "user", "Our metrics dashboard is at https://grafana.acme.dev/d/ops"),
    ]
    put = {
        "op": "put",
        "record": {
            "name": "metrics-dashboard",
            "description": "Metrics dashboard: https://grafana.acme.dev/d/ops",
            "type": "reference",
            "body": "The metrics dashboard is at https://grafana.acme.dev/d/ops\n",
        },
        "reason": "the user said so",
        "evidence": [1],  # the wrong seq
    }
    chat_server.replies.append(proposal_reply([put]))
    service, _store = _service(catalog, WORKED_EXAMPLES[0])
    evidence, text = make_evidence(messages)
    review = service.propose(service.prepare_evidence(evidence, text))
    [change] = review.actionable
    assert change.unsupported
    assert any(w.startswith("unsupported by the cited evidence") for w in change.warnings)
    assert change.quotes == ((1, "Please fix the flaky checkout test."),)


def test_a_long_description_is_flagged_not_refused(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    long = "Metrics dashboard " + "with a very long explanation of every panel " * 5
    put = {
        "op": "put",
        "record": {"name": "metrics-dashboard", "description": long.strip(), "type": "reference",
                   "body": "The metrics dashboard is at https://grafana.acme.dev/d/ops\n"},
        "reason": "the user said so",
        "evidence": [5],
    }  # fmt: skip
    chat_server.replies.append(proposal_reply([put]))
    service, _store = _service(catalog, WORKED_EXAMPLES[4])
    evidence, text = make_evidence(_messages(WORKED_EXAMPLES[4]))
    review = service.propose(service.prepare_evidence(evidence, text))
    [change] = review.actionable
    assert not change.problems
    assert any("characters; a one-line hook of about 100" in w for w in change.warnings)
