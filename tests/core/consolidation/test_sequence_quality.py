"""Consolidating each workspace's sessions in order leaves the record set a careful person would keep.

The corpus (tests/data/consolidation_sequences.yml) is written as real DSH logs and consolidated
through the service the window uses, accepting every proposal as a user would. Facts that change
between sessions (a codeword, a command list, a moved URL, a version) must end as one record with
the new value; tasks, plans, one-off errors, injected AGENTS.md/CLAUDE.md text, secrets and
contentless "remember" leave nothing. The bar is the issue's, on the dev split the rules were
tuned on; the held-out split is reported by benchmarks/offline_quality.py.
"""

from __future__ import annotations

import pytest
from sequence_corpus import Outcome, Score, consolidate, load

from core.store.fs import FileStore

CORPUS = load()


def test_corpus_has_what_the_issue_asks_for() -> None:
    assert len(CORPUS) >= 20
    assert all(2 <= len(w.sessions) <= 4 for w in CORPUS)
    assert {w.split for w in CORPUS} == {"dev", "held", "held2"}
    steps = [step for w in CORPUS for s in w.sessions for step in s]
    texts = " ".join(step[1] for step in steps if step[0] in ("user", "context"))
    wanted = ("MARMALADE", "SAFFRON", "e2e and lint", "failing again")
    wanted += ("记得帮我把 README 的错别字改了", "以后提交信息用中文写")
    for phrase in wanted:
        assert phrase in texts, phrase
    assert any(step[0] == "context" for step in steps) and any(step[0] == "ask" for step in steps)
    assert sum(1 for w in CORPUS if w.stale) >= 6  # facts that change between sessions


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    root = tmp_path_factory.mktemp("sequences")
    return {ws.id: consolidate(FileStore(root / ws.id / "memory"), root / ws.id, ws) for ws in CORPUS}


def test_dev_split_meets_the_bar(outcomes: dict[str, Outcome]) -> None:
    score = Score()
    for ws in CORPUS:
        if ws.split == "dev":
            score.add(outcomes[ws.id])
    assert score.precision >= 0.95, score.notes
    assert score.recall >= 0.85, score.notes
    assert score.duplicates == 0 and score.contradictions == 0, score.notes


def _texts(outcome: Outcome) -> list[str]:
    return [text for _scope, text in outcome.records]


def test_a_changed_codeword_leaves_one_record_with_the_new_value(outcomes: dict[str, Outcome]) -> None:
    [text] = _texts(outcomes["codeword"])
    assert "SAFFRON" in text and "MARMALADE" not in text


def test_a_moved_dashboard_is_updated_not_added(outcomes: dict[str, Outcome]) -> None:
    [text] = _texts(outcomes["dashboard-moved"])
    assert "d/ops-v2" in text and "d/ops-main" not in text


def test_a_changed_command_list_updates_the_record_under_its_name(outcomes: dict[str, Outcome]) -> None:
    out = outcomes["deploy-checks"]
    [text] = _texts(out)
    assert "e2e and lint" in text
    assert any("put run-e2e-before-deploy.md" in p for p in out.proposals if p.startswith("deploy-checks-s3"))


def test_a_contradicting_rule_replaces_the_old_one(outcomes: dict[str, Outcome]) -> None:
    [text] = _texts(outcomes["release-branch"])
    assert "trunk-stable" in text and "Tag releases on main" not in text


def test_tasks_one_offs_injected_context_and_contentless_remember_save_nothing(
    outcomes: dict[str, Outcome],
) -> None:
    assert _texts(outcomes["contentless-remember"]) == []
    assert _texts(outcomes["zh-commit-language"]) == ["提交信息用中文写\n\n提交信息用中文写。\n"]
    assert all("lockfile" not in t and "failing" not in t for t in _texts(outcomes["constraint-no-trigger"]))
    assert not any("README" in t for t in _texts(outcomes["zh-commit-language"]))


def test_statements_without_a_trigger_word_are_kept(outcomes: dict[str, Outcome]) -> None:
    assert any("https://docs.example.cn/api" in t for t in _texts(outcomes["zh-tasks-and-plans"]))
    assert any("backwards compatible" in t for t in _texts(outcomes["constraint-no-trigger"]))


def test_an_answer_to_ask_user_question_is_the_users_word(outcomes: dict[str, Outcome]) -> None:
    [text] = _texts(outcomes["ask-user-answer"])
    assert "ruff format" in text  # said only in the ask_user_question answer
    assert "write tool" not in text  # "NOT bash, for this one file" is about one task


def test_no_invented_why(outcomes: dict[str, Outcome]) -> None:
    for ws in CORPUS:
        for text in _texts(outcomes[ws.id]):
            if "**Why:**" in text:
                assert "because" not in text.split("**Why:**")[0].lower()
                assert ws.id in ("h-mixed-python",), (ws.id, text)


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("记得帮我把 README 的错别字改了", None),  # a task
        ("Remember to update the changelog when you're done.", None),  # a task
        ("Remember to always run the linter before pushing.", "remember"),  # standing
        ("Remember that.", None),  # contentless
        ("记住这个。", None),
        ("Remember the rules in AGENTS.md.", None),
        ("The build is failing again.", None),  # one-off
        ("No, it's because of the lockfile.", None),
        ("以后提交信息用中文写。", "preference"),
        ("以后再说吧。", None),  # "later", not a rule
        ("Our metrics dashboard is at https://grafana.acme.dev/d/ops", "reference"),
        ("Could you check https://status.example.io for incidents?", None),
        ("The public API must stay backwards compatible with v1 clients.", "constraint"),
        ("The depth-two child must attempt one more subagent call.", None),  # the task at hand
        ("所有对外接口必须保持向后兼容。", "constraint"),
        ("暗号改成 KESTREL 了，记住。", "remember"),
        ("We decided to use Postgres because of the transactions.", "decision"),
    ],
)
def test_offline_rules(sentence: str, kind: str | None) -> None:
    from core.consolidation.offline import classify_all

    hits = classify_all(sentence)
    assert [h.kind for h in hits] == ([kind] if kind else []), [(h.kind, h.fact) for h in hits]
