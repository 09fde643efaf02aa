"""The Settings tab: consolidation model and endpoint, test connection, debug logging, folders.

Settings live in ``<root>/settings.yml`` (core.settings) and are saved with compare-and-swap. No
credential is ever written: the API key stays in an environment variable whose NAME is stored.
What the form means (its problems, the endpoint to test, the settings to save) is
:mod:`core.settings_form`; this module shows it and runs the store and network calls on the runner.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from core.consolidation.chat import ConnectionReport, check_connection
from core.errors import CancelledError, ConfirmationRequiredError, ConflictError
from core.model_catalog import ModelCatalog, ModelChoice, load_model_catalog
from core.settings import AppSettings, LoadedSettings, load_settings, save_settings
from core.settings_form import ConnectionOutcome, readable_problem, summarize_connection
from core.store.api import MemoryStore
from core.user_prefs import Language, UserPrefs, load_prefs, save_prefs
from gui.context import AppContext
from gui.core_text import core_texts
from gui.launcher import relaunch
from gui.qtmodels.settings_models import ModelRow
from gui.tabs.base import Tab
from gui.tabs.settings.connection_text import outcome_text
from gui.tabs.settings.fields import ERROR_STYLE, HINT_STYLE, SettingsFields, _hint, wrap
from gui.tabs.settings.sources_panel import SourcesPanel
from gui.tabs.settings.sync_page import SyncPanel
from gui.tasks import JobControl
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error
from gui.widgets.read_only import mark_writes

DirectoryChooser = Callable[[QWidget, str, str], str | None]
"""``(parent, title, start_dir) -> chosen directory or None``; tests replace it."""


Loaded = tuple[LoadedSettings, ModelCatalog, bool, UserPrefs]


def _load(store: MemoryStore, home: Path, prefs_file: Path | None) -> Loaded:
    """settings.yml, DSH's model list (and whether its file exists), the per-user preferences."""
    catalog = load_model_catalog(home)
    found = catalog.source is not None and catalog.source.is_file()
    return load_settings(store), catalog, found, load_prefs(prefs_file)


def _save_language(language: Language, prefs_file: Path | None) -> Language:
    prefs = load_prefs(prefs_file)
    save_prefs(prefs.model_copy(update={"language": language}), prefs_file)
    return language


def _test(choice: ModelChoice, timeout: float, env: dict[str, str] | None, *, control: JobControl) -> ConnectionReport:
    return check_connection(choice, timeout_seconds=timeout, cancelled=lambda: control.token.cancelled, env=env)


class SettingsTab(Tab):
    """Edits ``settings.yml``; Save is compare-and-swap against the revision the form was loaded from."""

    settings_saved = Signal(object)  # AppSettings, after a successful save

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.choose_directory: DirectoryChooser = ctx.dialogs.choose_directory
        self.test_timeout_seconds = 10.0
        self.env: dict[str, str] | None = None  # None: the process environment
        self._loaded: LoadedSettings | None = None
        self._loaded_form: dict[str, Any] | None = None
        self._saving = False
        self._populating = False
        self.last_connection: ConnectionOutcome | None = None
        self._tested: ModelChoice | None = None
        self.prefs_file: Path | None = None  # None: the user's own prefs.yml (core.user_prefs)
        self._language_at_start: Language | None = None  # what this run shows (applied at start)
        self._language_saved: Language | None = None  # what prefs.yml holds
        self.relaunch: Callable[[], object] = relaunch  # tests replace it

        self.banner = Banner()
        self.fields = SettingsFields(str(ctx.root), str(self._default_sessions_root()))
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setDefault(True)
        self.revert_button = QPushButton(self.tr("Revert"))
        mark_writes(self.save_button)  # settings.yml lives in the memory root
        self.state_label = _hint("")
        buttons = QHBoxLayout()
        buttons.addWidget(self.state_label, 1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.fields, 1)
        layout.addLayout(buttons)

        # The widgets tests and the screenshot script drive, by their old names.
        f = self.fields
        self.consolidator_combo, self.models, self.model_combo = f.consolidator_combo, f.models, f.model_combo
        self.model_details, self.catalog_note = f.model_details, f.catalog_note
        self.base_url_edit, self.custom_model_edit = f.base_url_edit, f.custom_model_edit
        self.key_env_edit = f.key_env_edit
        self.custom_error, self.custom_box = f.custom_error, f.custom_box
        self.test_button, self.cancel_test_button, self.test_result = f.test_button, f.cancel_test_button, f.test_result
        self.debug_box, self.timeout_spin, self.quiet_spin = f.debug_box, f.timeout_spin, f.quiet_spin
        self.memory_root_edit, self.sessions_root_edit = f.memory_root_edit, f.sessions_root_edit
        self.browse_button, self.default_sessions_button = f.browse_button, f.default_sessions_button
        self.sessions_note = f.sessions_note

        self.language_combo, self.language_note = f.language_combo, f.language_note
        self.load_warning_spin = f.load_warning_spin
        # Saved with the rest of the form (Save / Revert), like every other setting.
        self.language_combo.currentIndexChanged.connect(self._on_form_changed)
        self.consolidator_combo.currentIndexChanged.connect(self._on_form_changed)
        self.model_combo.currentIndexChanged.connect(self._on_form_changed)
        for edit in (self.base_url_edit, self.custom_model_edit, self.key_env_edit, self.sessions_root_edit):
            edit.textChanged.connect(self._on_form_changed)
        self.debug_box.toggled.connect(self._on_form_changed)
        self.timeout_spin.valueChanged.connect(self._on_form_changed)
        for signal in (
            self.model_combo.currentIndexChanged,
            self.base_url_edit.textChanged,
            self.custom_model_edit.textChanged,
            self.key_env_edit.textChanged,
        ):
            signal.connect(self._forget_test_result)
        self.quiet_spin.valueChanged.connect(self._on_form_changed)
        for spin in f.limit_spins:
            spin.valueChanged.connect(self._on_form_changed)
        self.sources = SourcesPanel(ctx)
        f.add_section(self.sources)
        self.sync = SyncPanel(ctx)  # Settings ▸ Sync (issue 28)
        f.add_section(self.sync)
        self.sync.synced.connect(lambda _result: self.memory_changed.emit())
        self.test_button.clicked.connect(self.test_connection)
        self.cancel_test_button.clicked.connect(self.cancel_test)
        self.browse_button.clicked.connect(self.browse_sessions_root)
        self.default_sessions_button.clicked.connect(lambda: self.sessions_root_edit.setText(""))
        self.save_button.clicked.connect(lambda: self.save())
        self.revert_button.clicked.connect(self.revert)
        self.fields.set_enabled(False)
        self._update_state()

    # --- tab protocol -------------------------------------------------------------------------
    def tab_title(self) -> str:
        return self.tr("Settings")

    def has_unsaved_changes(self) -> bool:
        return self._form_dirty() or self._language_dirty()

    def _form_dirty(self) -> bool:
        return self._loaded_form is not None and self.fields.form().values() != self._loaded_form

    def _language_dirty(self) -> bool:
        return self._language_saved is not None and self.fields.language() != self._language_saved

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def refresh(self) -> None:
        """Re-read settings.yml and DSH's model list off the GUI thread; unsaved edits are kept."""
        self._reload_settings()
        self.sources.refresh()
        self.sync.refresh()

    def _reload_settings(self) -> None:
        self.jobs.start(
            "load",
            _load,
            self.ctx.store,
            self.ctx.dsh_home,
            self.prefs_file,
            done=self._apply_loaded,
            failed=self._on_load_error,
        )

    def showEvent(self, event: QShowEvent) -> None:
        """Back from another tab: the consolidator may have been chosen there (it is one setting)."""
        super().showEvent(event)
        if self._loaded is not None and not self.has_unsaved_changes():
            self._reload_settings()  # settings.yml only; the other stores are looked for on Refresh

    # --- language (per user; applies at the next start) ----------------------------------------
    def save_language(self, language: Language) -> None:
        def done(saved: Language) -> None:
            self._language_saved = saved
            self._show_language_note(saved)
            self._update_state()
            if not self._form_dirty():
                self.banner.show_message("ok", self.tr("Settings saved."))
            self._offer_restart(saved)

        def failed(exc: BaseException) -> None:
            self.language_note.setStyleSheet(ERROR_STYLE)
            self.language_note.setText(self.tr("Not saved: {why}").format(why=describe_error(exc)))

        self.jobs.start("prefs", _save_language, language, self.prefs_file, done=done, failed=failed)

    def _show_language_note(self, chosen: Language) -> None:
        changed = self._language_at_start is not None and chosen != self._language_at_start
        self.language_note.setStyleSheet(HINT_STYLE)
        self.language_note.setText(
            self.tr("Saved. The new language is used the next time the app starts.") if changed else ""
        )

    def _offer_restart(self, chosen: Language) -> None:
        if self._language_at_start is not None and chosen != self._language_at_start:
            self.banner.show_message(
                "info",
                self.tr("The new language shows after a restart."),
                [(self.tr("Restart now"), self.restart)],
                topic="language",
            )

    def restart(self) -> None:
        """Close the window (asking about unsaved edits, as quitting does), then start the app again."""
        if self.window().close():
            self.relaunch()

    def shutdown(self) -> None:
        super().shutdown()
        self.sources.jobs.cancel_all()
        self.sync.jobs.cancel_all()

    def revert(self) -> None:
        """Throw away edits and show what is on disk."""
        self._loaded_form = None
        if self._language_saved is not None:
            self.fields.set_language(self._language_saved)
        self.banner.clear()
        self.refresh()

    # --- loading ------------------------------------------------------------------------------
    def _on_load_error(self, exc: BaseException) -> None:
        self.banner.show_message(
            "error", self.tr("Could not read settings.yml: {why}").format(why=describe_error(exc)), topic="load"
        )

    def _apply_loaded(self, result: Loaded) -> None:
        loaded, catalog, catalog_found, prefs = result
        if self._language_at_start is None:
            self._language_at_start = prefs.language
        if not self.jobs.running("prefs") and not self._language_dirty():
            self._language_saved = prefs.language
            self.fields.set_language(prefs.language)
            self._show_language_note(prefs.language)
        previous = self._loaded
        if self.has_unsaved_changes():
            # Never overwrite edits. The old revision stays the CAS base, so Save reports the conflict.
            if previous is None or previous.revision != loaded.revision:
                self.banner.show_message(
                    "warning",
                    self.tr(
                        "settings.yml changed on disk while you were editing. Your edits are kept; "
                        "Reload shows the file's settings instead."
                    ),
                    [(self.tr("Reload"), self.revert)],
                )
            return
        self._loaded = loaded
        self._populate(loaded.settings, catalog, catalog_found)
        if loaded.problem:
            self.banner.show_message(
                "warning",
                readable_problem(loaded.problem) + " " + self.tr("Saving will ask before replacing the file."),
            )
        else:
            self.banner.clear(topic="load")

    def _populate(self, settings: AppSettings, catalog: ModelCatalog, catalog_found: bool = True) -> None:
        self._populating = True
        try:
            known = self.fields.populate(settings, catalog, catalog_found)
        finally:
            self._populating = False
        self.fields.set_enabled(True)
        self._loaded_form = self.fields.form().values()
        if not known:
            # Saved choice no longer exists: the form shows the default, so it counts as an edit.
            self._loaded_form = {**self._loaded_form, "selected_model": settings.selected_model}
        self._on_form_changed()

    # --- the form -------------------------------------------------------------------------------
    def selected_row(self) -> ModelRow | None:
        return self.fields.selected_row()

    def select_model(self, key: str) -> None:
        """Pick a model by its settings key ('' = DSH default, 'custom', or a catalog id)."""
        row = self.models.row_of(key)
        if row < 0:
            raise KeyError(key)
        self.model_combo.setCurrentIndex(row)

    def _on_form_changed(self, *_args: Any) -> None:
        if self._populating:
            return
        if self.banner.level == "ok":
            self.banner.clear()  # "Saved" is no longer true once the form changes
        row = self.selected_row()
        self.custom_box.setEnabled(row is not None and row.kind == "custom")
        self.model_details.setText(self._details_text(row))
        problems = core_texts(self.fields.form().custom_problems())
        self.custom_error.setText("\n".join(p if "\n" in p else wrap(p) for p in problems))
        self.custom_error.setVisible(bool(problems))
        self.sessions_note.setText(self._sessions_text())
        self._update_state()

    def _details_text(self, row: ModelRow | None) -> str:
        if row is None:
            return ""
        if row.kind == "custom":
            return self.tr("Calls the endpoint below.")
        assert row.choice is not None
        c = row.choice
        env_name = c.api_key_env
        env = os.environ if self.env is None else self.env
        if env_name:
            key = (
                self.tr("API key from ${name} (is set)")
                if env.get(env_name, "").strip()
                else self.tr("API key from ${name} (is NOT set in this environment)")
            ).format(name=env_name)
        else:
            key = self.tr("no API key")
        return self.tr("{model} at {url} · {key}").format(model=c.model, url=c.base_url, key=key)

    def _sessions_text(self) -> str:
        text = self.sessions_root_edit.text().strip()
        path = os.path.abspath(os.path.expanduser(text)) if text else str(self._default_sessions_root())
        note = self.tr("Where DSH keeps its session logs; this app only reads them.")
        if not text:
            note = self.tr("Default: {path}.").format(path=path) + " " + note
        if not os.path.isdir(path):
            note += "\n" + self.tr("This folder does not exist (yet): no sessions will be listed.")
        return note

    def _update_state(self) -> None:
        loaded = self._loaded_form is not None
        dirty = self.has_unsaved_changes()
        blocked = bool(self.fields.form().save_problems())
        self.save_button.setEnabled(loaded and dirty and not blocked and not self._saving)
        self.revert_button.setEnabled(loaded and dirty and not self._saving)
        testing = self.is_testing
        self.test_button.setEnabled(loaded and not testing)
        self.cancel_test_button.setEnabled(testing)
        if not loaded:
            self.state_label.setText(self.tr("Loading settings…"))
        elif dirty:
            self.state_label.setText(self.tr("Unsaved changes."))
        elif self._loaded is not None and not self._loaded.exists:
            self.state_label.setText(
                self.tr("Defaults in use: {path} does not exist yet.").format(path=self._settings_path())
            )
        else:
            self.state_label.setText(self.tr("Saved in {path}.").format(path=self._settings_path()))

    def _default_sessions_root(self) -> Path:
        """``$DSH_HOME/sessions``: where DSH writes sessions when settings name no other folder."""
        return Path(self.ctx.dsh_home) / "sessions"

    def _settings_path(self) -> str:
        return os.path.join(str(self.ctx.root), "settings.yml")

    def browse_sessions_root(self) -> None:
        start = self.sessions_root_edit.text().strip() or str(self._default_sessions_root())
        chosen = self.choose_directory(self, self.tr("Choose the DSH sessions folder"), os.path.expanduser(start))
        if chosen:
            self.sessions_root_edit.setText(chosen)

    # --- save -----------------------------------------------------------------------------------
    def settings_from_form(self) -> AppSettings:
        """The settings the form shows, validated; raises ValueError with a readable message."""
        return self.fields.form().to_settings(self._loaded.settings if self._loaded is not None else AppSettings())

    def save(self, *, replace_malformed: bool = False, expect: str | None = None) -> None:
        if self._loaded is None or self._saving:
            return
        if self._language_dirty():
            self.save_language(self.fields.language())  # prefs.yml, per user
            if not self._form_dirty():
                return  # settings.yml is left as it is
        problems = core_texts(self.fields.form().save_problems())
        if problems:
            self.banner.show_message("error", self.tr("Not saved.") + " " + " ".join(problems))
            return
        try:
            settings = self.settings_from_form()
        except ValueError as exc:
            self.banner.show_message("error", self.tr("Not saved: {why}").format(why=exc))
            return
        base_revision = expect if expect is not None else self._loaded.revision
        self._saving = True
        self._update_state()

        def done(saved: LoadedSettings) -> None:
            self._saving = False
            self._loaded = saved
            self._loaded_form = self.fields.form().values()
            chosen = saved.settings.sessions_root
            self.ctx.sessions_root = (
                Path(os.path.abspath(os.path.expanduser(chosen.strip())))
                if chosen and chosen.strip()
                else self._default_sessions_root()
            )
            self.banner.show_message("ok", self.tr("Settings saved to {path}.").format(path=self._settings_path()))
            if self._language_saved is not None:
                self._offer_restart(self._language_saved)
            self._update_state()
            self.settings_saved.emit(saved.settings)
            self.sources.refresh()  # another sessions root may know other workspaces

        def failed(exc: BaseException) -> None:
            self._saving = False
            self._update_state()
            if isinstance(exc, ConflictError):
                self._on_conflict(exc)
            elif isinstance(exc, ConfirmationRequiredError):
                if self.ctx.dialogs.confirm(
                    self,
                    self.tr("Replace settings.yml"),
                    exc.message + "\n\n" + self.tr("Replace the file with the settings shown here?"),
                    self.tr("Replace"),
                ):
                    self.save(replace_malformed=True, expect=base_revision)
                else:
                    self.banner.show_message("warning", self.tr("Not saved: settings.yml was left as it is."))
            else:
                self.banner.show_message("error", self.tr("Not saved: {why}").format(why=describe_error(exc)))

        self.jobs.start(
            "save",
            partial(save_settings, replace_malformed=replace_malformed),
            self.ctx.store,
            settings,
            base_revision,
            done=done,
            failed=failed,
        )

    def _on_conflict(self, exc: ConflictError) -> None:
        current = exc.current_revision

        def keep_mine() -> None:
            if self.ctx.dialogs.confirm(
                self,
                self.tr("Overwrite settings"),
                self.tr("Replace the settings on disk (changed by someone else) with the ones shown here?"),
                self.tr("Overwrite"),
            ):
                self.save(expect=current, replace_malformed=True)

        self.banner.show_message(
            "warning",
            self.tr(
                "settings.yml was changed by someone else since you opened it. Nothing was saved. "
                "Reload to see the file's settings (your edits here are discarded), or keep yours."
            ),
            [(self.tr("Reload"), self.revert), (self.tr("Keep mine…"), keep_mine)],
        )

    # --- test connection --------------------------------------------------------------------------
    def choice_for_test(self) -> ModelChoice:
        """The endpoint the form currently points at; ValueError when the custom fields are unusable."""
        row = self.selected_row()
        if row is None:
            raise ValueError(self.tr("Pick a model first."))
        if row.kind != "custom":
            assert row.choice is not None
            return row.choice
        return self.fields.form().custom_choice()

    def test_connection(self) -> None:
        if self.is_testing:
            return
        self._tested = None
        try:
            choice = self.choice_for_test()
        except ValueError as exc:
            self._show_test_result(ConnectionOutcome(False, self.tr("Cannot test"), str(exc), "invalid"))
            return
        self._tested = choice
        env = None if self.env is None else dict(self.env)
        self.test_result.setStyleSheet(HINT_STYLE)
        self.test_result.setText(self.tr("Connecting to {url}…").format(url=choice.base_url))
        self.test_result.show()

        def done(report: ConnectionReport) -> None:
            self._show_test_result(summarize_connection(report))

        def failed(exc: BaseException) -> None:
            if isinstance(exc, CancelledError):
                self._show_test_result(
                    ConnectionOutcome(
                        False, self.tr("Cancelled"), self.tr("The connection test was cancelled."), "cancelled"
                    )
                )
            else:
                self._show_test_result(ConnectionOutcome(False, self.tr("Could not connect"), describe_error(exc)))

        self.jobs.start(
            "test", _test, choice, self.test_timeout_seconds, env, done=done, failed=failed, cancellable=True
        )
        self._update_state()

    def _forget_test_result(self, *_args: Any) -> None:
        """A result about another endpoint would mislead: hide it when the endpoint changes."""
        if not self.is_testing and not self._populating:
            self.test_result.hide()
            self.last_connection = None

    def cancel_test(self) -> None:
        """Cancel a running test; its outcome ("Cancelled") still arrives and is shown."""
        job = self.jobs.current("test")
        if job is None:
            return
        job.cancel()
        self.test_result.setText(self.tr("Cancelling…"))

    @property
    def is_testing(self) -> bool:
        return self.jobs.running("test")

    def _show_test_result(self, outcome: ConnectionOutcome) -> None:
        self.last_connection = outcome
        mark = "✔" if outcome.ok else "✘"
        self.test_result.setStyleSheet("color:#1d6b25;" if outcome.ok else ERROR_STYLE)
        headline, detail = outcome_text(outcome, self._tested, self.test_timeout_seconds)
        self.test_result.setText(f"{mark} {headline}.\n{wrap(detail)}")
        self.test_result.show()
        self._update_state()
