"""Per-user preferences: language and recent roots survive a restart; a broken file never stops the app."""

from pathlib import Path

import pytest

from core.user_prefs import MAX_RECENT_ROOTS, UserPrefs, load_prefs, prefs_path, save_prefs


def test_language_and_recent_roots_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "prefs.yml"
    prefs = UserPrefs(language="zh_CN").with_recent_root(tmp_path / "a").with_recent_root(tmp_path / "b")
    save_prefs(prefs, path)
    again = load_prefs(path)
    assert again.language == "zh_CN"
    assert again.recent_roots == (str(tmp_path / "b"), str(tmp_path / "a"))
    assert path.stat().st_mode & 0o077 == 0  # private: it lists the user's folders


def test_reopening_a_root_moves_it_first_without_duplicates_and_the_list_is_capped(tmp_path: Path) -> None:
    prefs = UserPrefs()
    for i in range(MAX_RECENT_ROOTS + 3):
        prefs = prefs.with_recent_root(tmp_path / str(i))
    prefs = prefs.with_recent_root(tmp_path / "5")
    assert prefs.recent_roots[0] == str(tmp_path / "5")
    assert len(prefs.recent_roots) == MAX_RECENT_ROOTS
    assert len(set(prefs.recent_roots)) == MAX_RECENT_ROOTS


def test_a_malformed_or_missing_file_gives_defaults(tmp_path: Path) -> None:
    path = tmp_path / "prefs.yml"
    assert load_prefs(path) == UserPrefs()
    path.write_text("language: klingon\n", encoding="utf-8")
    assert load_prefs(path).language == "system"
    path.write_text(": [unclosed\n", encoding="utf-8")
    assert load_prefs(path) == UserPrefs()


def test_prefs_live_in_the_user_config_dir_never_a_memory_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "/x/cfg")
    monkeypatch.setenv("HOME", "/h")
    assert prefs_path() == Path("/x/cfg/dsh-memory/prefs.yml")
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert prefs_path() == Path("/h/.config/dsh-memory/prefs.yml")


def test_the_consolidation_workspace_is_remembered_per_root_and_capped(tmp_path: Path) -> None:
    path = tmp_path / "prefs.yml"
    prefs = UserPrefs().with_consolidation_workspace(tmp_path / "a", "ws-a")
    prefs = prefs.with_consolidation_workspace(tmp_path / "b", "ws-b")
    save_prefs(prefs, path)
    again = load_prefs(path)
    assert again.consolidation_workspace(tmp_path / "a") == "ws-a"
    assert again.consolidation_workspace(tmp_path / "b") == "ws-b"
    assert again.with_consolidation_workspace(tmp_path / "a", None).consolidation_workspace(tmp_path / "a") is None
    for i in range(MAX_RECENT_ROOTS + 3):
        prefs = prefs.with_consolidation_workspace(tmp_path / f"r{i}", f"w{i}")
    assert len(prefs.consolidation_workspaces) == MAX_RECENT_ROOTS
    assert prefs.consolidation_workspace(tmp_path / f"r{MAX_RECENT_ROOTS + 2}") == f"w{MAX_RECENT_ROOTS + 2}"
