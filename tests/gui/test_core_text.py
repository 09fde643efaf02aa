"""Core's reasons shown in Chinese: matched back to their template, translated, filled with the same values."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QApplication

from core import messages
from core.models import Record
from core.records import validate_record
from gui.core_text import core_note, core_text
from gui.i18n import TRANSLATIONS_DIR


def test_every_template_reads_back_to_itself_with_its_values() -> None:
    """parse() must be the exact inverse of format(), or the window would fill a translation wrongly."""
    for template in messages.ALL:
        names = re.findall(r"\{([a-z_]+)\}", template.text)
        values = {n: f"'v-{n} (x)'" for n in names}
        found = messages.parse(template.format(**values))
        assert found is not None and found[0] is template and found[1] == values, template.text


@pytest.fixture
def chinese() -> Iterator[None]:
    app = QApplication.instance()
    assert app is not None
    translator = QTranslator()
    assert translator.load(str(TRANSLATIONS_DIR / "dsh_zh_CN.qm")), "setup compiles the translations"
    app.installTranslator(translator)
    yield
    app.removeTranslator(translator)


def test_a_record_rule_reads_in_chinese_with_its_values(chinese: None, qapp: object) -> None:
    record = Record(name="Build Tips", description="", type="project", body="\nx\n")
    reasons = [core_text(r) for r in validate_record(record, "Build Tips.md")]
    assert any("名称 'Build Tips' 不是小写连字符格式" in r for r in reasons), reasons
    assert any("描述为空" in r for r in reasons), reasons


def test_a_refusal_with_a_nested_reason_is_translated_whole(chinese: None, qapp: object) -> None:
    text = messages.SECRET_REFUSED.format(what=messages.RECORD_NAMED.format(name="'deploy'"), kinds="AWS key")
    shown = core_note("✖ " + text)
    assert shown.startswith("✖ 记忆 'deploy' 含有疑似凭据的内容（AWS key）")


def test_text_that_no_template_made_is_shown_as_it_is(chinese: None, qapp: object) -> None:
    assert core_text("the model said something odd") == "the model said something odd"


def test_an_invalid_files_reason_reads_in_chinese_in_the_records_table(
    chinese: None, ctx: object, sample: dict[str, object], qtbot: object
) -> None:
    from PySide6.QtCore import Qt

    from gui.tabs.workspace import WorkspaceTab

    tab = WorkspaceTab(ctx)  # type: ignore[arg-type]
    qtbot.addWidget(tab)  # type: ignore[attr-defined]
    tab.refresh()
    assert tab.select_workspace(sample["alpha"].key)  # type: ignore[attr-defined]
    row = [tab.rec_proxy.index(r, 0).data() for r in range(tab.rec_proxy.rowCount())].index("broken")
    assert "与文件名 'broken.md' 不一致" in tab.rec_proxy.index(row, 2).data()
    assert "不一致" in tab.rec_proxy.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)


def test_an_agent_proposals_title_reads_in_chinese(chinese: None, qapp: object, tmp_path: object) -> None:
    """The review header of an MCP agent's proposal was English in the Chinese window."""
    title = messages.AGENT_PROPOSAL_TITLE.format(client="claude-code", when="2026-12-04 07:02")
    assert core_text(title) == "claude-code（MCP 智能体）于 2026-12-04 07:02 UTC 提议"


def test_the_settings_forms_endpoint_problems_read_in_chinese(chinese: None, qapp: object) -> None:
    """Settings ▸ custom endpoint: a key typed where its variable's name belongs, and a bad base URL,
    were English in the Chinese window (screenshot settings-key-refused, 2026-12-04)."""
    from dataclasses import fields

    from core.settings_form import SettingsForm

    values: dict[str, object] = {f.name: f.default for f in fields(SettingsForm)}
    values.update(consolidator="model", selected_model=None, custom_model="", debug_logging=False, sessions_root=None)
    values.update(request_timeout_seconds=60.0, quiet_period_seconds=120.0)
    values.update(base_url="ftp://x", api_key_env="sk-0123456789abcdef0123456789abcdef")
    form = SettingsForm(**values)  # type: ignore[arg-type]
    shown = [core_text(p) for p in form.custom_problems()]
    assert any("这看起来是密钥本身" in s for s in shown), shown
    assert any(s.startswith("基础 URL：base_url 必须是 http(s) 网址") and "'ftp://x'" in s for s in shown), shown
