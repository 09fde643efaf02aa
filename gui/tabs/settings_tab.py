"""The Settings tab: consolidation model and endpoint, test connection, debug logging, folders.

Settings live in ``<root>/settings.yml`` (core.settings) and are saved with compare-and-swap. No
credential is ever written: the API key stays in an environment variable whose NAME is stored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.consolidation.chat import ConnectionReport, check_connection
from core.errors import CancelledError, ConfirmationRequiredError, ConflictError
from core.model_catalog import CUSTOM_ID, ModelCatalog, ModelChoice, load_model_catalog
from core.settings import (
    AppSettings,
    LoadedSettings,
    check_api_key_env,
    check_base_url,
    load_settings,
    save_settings,
)
from core.store.api import MemoryStore
from gui.context import AppContext
from gui.qtmodels.settings_models import DEFAULT_KEY, ModelChoicesModel, ModelRow
from gui.tabs.base import Tab
from gui.tasks import JobControl
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error

DirectoryChooser = Callable[[QWidget, str, str], str | None]
"""``(parent, title, start_dir) -> chosen directory or None``; tests replace it."""

_ERROR_STYLE = "color:#a12a1c;"
_HINT_STYLE = "color:#555;"


def _qt_directory_chooser(parent: QWidget, title: str, start: str) -> str | None:
    chosen = QFileDialog.getExistingDirectory(parent, title, start)
    return chosen or None


@dataclass(frozen=True)
class ConnectionOutcome:
    """What the Test connection line shows: a short headline and the full explanation."""

    ok: bool
    headline: str
    detail: str


def summarize_connection(report: ConnectionReport) -> ConnectionOutcome:
    """Sort a connection report into the cases a user tells apart."""
    msg = report.message
    if report.ok:
        return ConnectionOutcome(True, "Connection OK", msg)  # the detail already gives the time
    if report.status_code is not None:
        return ConnectionOutcome(False, f"HTTP {report.status_code}", msg)
    lowered = msg.lower()
    if "environment variable" in lowered and "not set" in lowered:
        return ConnectionOutcome(False, "API key variable not set", msg)
    if "did not answer within" in lowered or "timeout" in lowered:
        return ConnectionOutcome(False, "Timed out", msg)
    if "connecterror" in lowered or "refused" in lowered:
        return ConnectionOutcome(
            False,
            "Connection refused",
            msg + " Nothing is listening there: check the base URL and that the server is running.",
        )
    return ConnectionOutcome(False, "Could not connect", msg)


def readable_problem(text: str) -> str:
    """One readable line from a problem that embeds a YAML parser report (code echo, carets)."""
    if "\n" not in text:
        return text
    tail_mark = ". Defaults are in effect"
    head, sep, tail = text.partition(tail_mark)
    first, _, rest = head.partition("\n")
    # The parser's own sentences start at column 0; its context lines and code echo are indented.
    messages = [first.strip()] + [line.strip() for line in rest.splitlines() if line and not line[0].isspace()]
    where = re.findall(r"line (\d+), column (\d+)", head)
    loc = f" (line {where[-1][0]}, column {where[-1][1]})" if where else ""
    out = "; ".join(m.rstrip(":") for m in messages if m) + loc
    return out + (sep + tail if sep else ".")


def _wrap(text: str, width: int = 110) -> str:
    """Break a long message into lines for a label that does not word-wrap."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text


def _hint(text: str) -> QLabel:
    # No word wrap: wrapped labels get the wrong height inside form layouts and scroll areas (large
    # gaps, clipped descenders). Long texts carry explicit line breaks instead.
    label = QLabel(text)
    label.setStyleSheet(_HINT_STYLE)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _load(store: MemoryStore, home: Path) -> tuple[LoadedSettings, ModelCatalog]:
    return load_settings(store), load_model_catalog(home)


def _test(
    choice: ModelChoice, timeout: float, env: dict[str, str] | None, *, control: JobControl
) -> ConnectionReport:
    return check_connection(choice, timeout_seconds=timeout, cancelled=lambda: control.token.cancelled, env=env)


class SettingsTab(Tab):
    """Edits ``settings.yml``; Save is compare-and-swap against the revision the form was loaded from."""

    settings_saved = Signal(object)  # AppSettings, after a successful save

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.choose_directory: DirectoryChooser = getattr(ctx.dialogs, "choose_directory", None) or (
            _qt_directory_chooser
        )
        self.test_timeout_seconds = 10.0
        self.env: dict[str, str] | None = None  # None: the process environment
        self._loaded: LoadedSettings | None = None
        self._catalog: ModelCatalog | None = None
        self._loaded_form: dict[str, Any] | None = None
        self._saving = False
        self._populating = False
        self.last_connection: ConnectionOutcome | None = None

        self.banner = Banner()

        # --- consolidation -------------------------------------------------------------------
        self.consolidator_combo = QComboBox()
        self.consolidator_combo.addItem("Offline extractor (built in, no network)", "offline")
        self.consolidator_combo.addItem("Language model (OpenAI-compatible chat API)", "model")
        self.models = ModelChoicesModel(self)
        self.model_combo = QComboBox()
        self.model_combo.setModel(self.models)
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setMinimumContentsLength(30)
        self.model_details = _hint("")
        self.catalog_note = _hint("")

        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText("https://api.example.com/v1")
        self.custom_model_edit = QLineEdit()
        self.custom_model_edit.setPlaceholderText("model name, e.g. qwen3-coder")
        self.key_env_edit = QLineEdit()
        self.key_env_edit.setPlaceholderText("variable NAME, e.g. MY_LLM_API_KEY (leave empty for no key)")
        self.custom_error = QLabel()
        self.custom_error.setStyleSheet(_ERROR_STYLE)
        self.custom_error.hide()

        self.test_button = QPushButton("Test connection")
        self.cancel_test_button = QPushButton("Cancel")
        self.cancel_test_button.setEnabled(False)
        self.test_result = QLabel("")
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.test_result.hide()

        # --- debug ------------------------------------------------------------------------------
        self.debug_box = QCheckBox("Write debug logs of consolidation attempts")
        self.timeout_spin = QSpinBox()
        self.timeout_spin.setRange(1, 3600)
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setToolTip("How long one model request may take before it is abandoned")
        self.quiet_spin = QSpinBox()
        self.quiet_spin.setRange(0, 7 * 24 * 3600)
        self.quiet_spin.setSuffix(" s")
        self.quiet_spin.setToolTip(
            "A session counts as finished (and can be consolidated) once its log has not changed this long"
        )

        # --- folders ----------------------------------------------------------------------------
        self.memory_root_edit = QLineEdit(str(ctx.root))
        self.memory_root_edit.setReadOnly(True)
        self.sessions_root_edit = QLineEdit()
        self.sessions_root_edit.setPlaceholderText(str(self._default_sessions_root()))
        self.browse_button = QPushButton("Browse…")
        self.default_sessions_button = QPushButton("Use default")
        self.sessions_note = _hint("")

        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.revert_button = QPushButton("Revert")
        self.state_label = _hint("")

        self._build_layout()

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
        self.test_button.clicked.connect(self.test_connection)
        self.cancel_test_button.clicked.connect(self.cancel_test)
        self.browse_button.clicked.connect(self.browse_sessions_root)
        self.default_sessions_button.clicked.connect(lambda: self.sessions_root_edit.setText(""))
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        self._set_form_enabled(False)
        self._update_state()

    # --- layout ------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        model_box = QGroupBox("Consolidation model")
        form = QFormLayout(model_box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Consolidator:", self.consolidator_combo)
        form.addRow("Model:", self.model_combo)
        form.addRow("", self.model_details)
        form.addRow("", self.catalog_note)
        limits = QHBoxLayout()
        limits.addWidget(QLabel("Request timeout:"))
        limits.addWidget(self.timeout_spin)
        limits.addSpacing(24)
        limits.addWidget(QLabel("A session counts as finished after"))
        limits.addWidget(self.quiet_spin)
        limits.addWidget(QLabel("without changes"))
        limits.addStretch(1)
        form.addRow("", limits)

        self.custom_box = QGroupBox("Custom OpenAI-compatible endpoint")
        custom_form = QFormLayout(self.custom_box)
        custom_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        custom_form.addRow("Base URL:", self.base_url_edit)
        custom_form.addRow("Model:", self.custom_model_edit)
        custom_form.addRow("API key variable:", self.key_env_edit)
        custom_form.addRow(
            "",
            _hint(
                "The NAME of the environment variable that holds the key, never the key itself.\n"
                "The key is read from the environment for each request and is never saved."
            ),
        )
        custom_form.addRow("", self.custom_error)
        form.addRow(self.custom_box)

        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.cancel_test_button)
        test_row.addStretch(1)
        form.addRow("", test_row)
        form.addRow("", self.test_result)

        debug_box = QGroupBox("Debugging")
        d_layout = QVBoxLayout(debug_box)
        d_layout.addWidget(self.debug_box)
        d_layout.addWidget(
            _hint(
                "Each model attempt's sizes, timings and status codes go to debug/<review-id>/ in the "
                "memory root.\nConversation text, memory bodies and keys are never logged."
            )
        )

        folders = QGroupBox("Folders")
        f_form = QFormLayout(folders)
        f_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        f_form.addRow("Memory root:", self.memory_root_edit)
        f_form.addRow(
            "",
            _hint(
                "Chosen when the app starts. To use another root, start the app with "
                "“dsh-memory --root PATH”,\nor set DSH_MEMORY_ROOT (or DSH_HOME: its memory folder "
                "is the default)."
            ),
        )
        sessions_row = QHBoxLayout()
        sessions_row.addWidget(self.sessions_root_edit, 1)
        sessions_row.addWidget(self.browse_button)
        sessions_row.addWidget(self.default_sessions_button)
        f_form.addRow("Sessions root:", sessions_row)
        f_form.addRow("", self.sessions_note)

        buttons = QHBoxLayout()
        buttons.addWidget(self.state_label, 1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)

        content = QWidget()
        c_layout = QVBoxLayout(content)
        c_layout.addWidget(model_box)
        c_layout.addWidget(debug_box)
        c_layout.addWidget(folders)
        c_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(content)

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)

    # --- tab protocol -------------------------------------------------------------------------
    def has_unsaved_changes(self) -> bool:
        return self._loaded_form is not None and self._form_values() != self._loaded_form

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def refresh(self) -> None:
        """Re-read settings.yml and DSH's model list off the GUI thread; unsaved edits are kept."""
        self.jobs.start(
            "load", _load, self.ctx.store, self.ctx.dsh_home, done=self._apply_loaded, failed=self._on_load_error
        )

    def revert(self) -> None:
        """Throw away edits and show what is on disk."""
        self._loaded_form = None
        self.banner.clear()
        self.refresh()

    # --- loading ------------------------------------------------------------------------------
    def _on_load_error(self, exc: BaseException) -> None:
        self.banner.show_message("error", "Could not read settings.yml: " + describe_error(exc), topic="load")

    def _apply_loaded(self, result: tuple[LoadedSettings, ModelCatalog]) -> None:
        loaded, catalog = result
        previous = self._loaded
        self._catalog = catalog
        if self.has_unsaved_changes():
            # Never overwrite edits. The old revision stays the CAS base, so Save reports the conflict.
            if previous is None or previous.revision != loaded.revision:
                self.banner.show_message(
                    "warning",
                    "settings.yml changed on disk while you were editing. Your edits are kept; "
                    "Reload shows the file's settings instead.",
                    [("Reload", self.revert)],
                )
            return
        self._loaded = loaded
        self._populate(loaded.settings, catalog)
        if loaded.problem:
            self.banner.show_message(
                "warning", readable_problem(loaded.problem) + " Saving will ask before replacing the file."
            )
        else:
            self.banner.clear(topic="load")

    def _populate(self, settings: AppSettings, catalog: ModelCatalog) -> None:
        self._populating = True
        try:
            self.models.set_catalog(catalog)
            self.consolidator_combo.setCurrentIndex(max(0, self.consolidator_combo.findData(settings.consolidator)))
            key = settings.selected_model or DEFAULT_KEY
            row = self.models.row_of(key)
            unknown_selected = row < 0
            self.model_combo.setCurrentIndex(row if row >= 0 else max(0, self.models.row_of(DEFAULT_KEY)))
            ep = settings.custom_endpoint
            self.base_url_edit.setText(ep.base_url)
            self.custom_model_edit.setText(ep.model)
            self.key_env_edit.setText(ep.api_key_env)
            self.debug_box.setChecked(settings.debug_logging)
            self.timeout_spin.setValue(max(1, round(settings.request_timeout_seconds)))
            self.quiet_spin.setValue(max(0, round(settings.quiet_period_seconds)))
            self.sessions_root_edit.setText(settings.sessions_root or "")
            self.catalog_note.setText(
                self._catalog_text(catalog, settings.selected_model if unknown_selected else None)
            )
        finally:
            self._populating = False
        self._set_form_enabled(True)
        self._loaded_form = self._form_values()
        if unknown_selected:
            # Saved choice no longer exists: the form shows the default, so it counts as an edit.
            self._loaded_form = {**self._loaded_form, "selected_model": settings.selected_model}
        self._on_form_changed()

    @staticmethod
    def _catalog_text(catalog: ModelCatalog, missing: str | None) -> str:
        where = str(catalog.source) if catalog.source else "DSH's settings.yaml"
        lines = [f"Models come from {where} (DSH's own configuration; only key variable names are shown)."]
        if missing:
            lines.append(f"The saved model {missing!r} is not in that list any more; pick another one.")
        lines += [_wrap(p) for p in catalog.problems]
        return "\n".join(lines)

    def _set_form_enabled(self, enabled: bool) -> None:
        for w in (
            self.consolidator_combo,
            self.model_combo,
            self.debug_box,
            self.timeout_spin,
            self.quiet_spin,
            self.sessions_root_edit,
            self.browse_button,
            self.default_sessions_button,
        ):
            w.setEnabled(enabled)

    # --- the form -------------------------------------------------------------------------------
    def selected_row(self) -> ModelRow | None:
        index = self.model_combo.currentIndex()
        return self.models.row(index) if 0 <= index < self.models.rowCount() else None

    def select_model(self, key: str) -> None:
        """Pick a model by its settings key ('' = DSH default, 'custom', or a catalog id)."""
        row = self.models.row_of(key)
        if row < 0:
            raise KeyError(key)
        self.model_combo.setCurrentIndex(row)

    def _form_values(self) -> dict[str, Any]:
        row = self.selected_row()
        return {
            "consolidator": self.consolidator_combo.currentData(),
            "selected_model": (row.key or None) if row is not None else None,
            "custom_endpoint": {
                "base_url": self.base_url_edit.text().strip(),
                "model": self.custom_model_edit.text().strip(),
                "api_key_env": self.key_env_edit.text().strip(),
            },
            "debug_logging": self.debug_box.isChecked(),
            "sessions_root": self.sessions_root_edit.text().strip() or None,
            "request_timeout_seconds": float(self.timeout_spin.value()),
            "quiet_period_seconds": float(self.quiet_spin.value()),
        }

    def _custom_problems(self) -> list[str]:
        """Live validation of the custom endpoint fields, in words a user understands."""
        problems: list[str] = []
        row = self.selected_row()
        custom = row is not None and row.kind == "custom"
        url = self.base_url_edit.text().strip()
        try:
            check_base_url(url)
        except ValueError as exc:
            problems.append(f"Base URL: {exc}.")
        env_name = self.key_env_edit.text().strip()
        try:
            check_api_key_env(env_name)
        except ValueError:
            problems.append(
                "API key variable: this looks like a key, not a variable name. Keys are never saved:\n"
                "put the key in an environment variable and type that variable's NAME here "
                "(like MY_LLM_API_KEY)."
            )
        if custom and not (url and self.custom_model_edit.text().strip()):
            problems.append("A custom endpoint needs a base URL and a model name.")
        return problems

    def _on_form_changed(self, *_args: Any) -> None:
        if self._populating:
            return
        if self.banner.level == "ok":
            self.banner.clear()  # "Saved" is no longer true once the form changes
        row = self.selected_row()
        custom = row is not None and row.kind == "custom"
        self.custom_box.setEnabled(custom)
        self.model_details.setText(self._details_text(row))
        problems = self._custom_problems()
        self.custom_error.setText("\n".join(p if "\n" in p else _wrap(p) for p in problems))
        self.custom_error.setVisible(bool(problems))
        self.sessions_note.setText(self._sessions_text())
        self._update_state()

    def _details_text(self, row: ModelRow | None) -> str:
        if row is None:
            return ""
        if row.kind == "custom":
            return "Calls the endpoint below."
        assert row.choice is not None
        c = row.choice
        env_name = c.api_key_env
        env = os.environ if self.env is None else self.env
        if env_name:
            state = "is set" if env.get(env_name, "").strip() else "is NOT set in this environment"
            key = f"API key from ${env_name} ({state})"
        else:
            key = "no API key"
        return f"{c.model} at {c.base_url} · {key}"

    def _sessions_text(self) -> str:
        text = self.sessions_root_edit.text().strip()
        path = os.path.abspath(os.path.expanduser(text)) if text else str(self._default_sessions_root())
        note = "Where DSH keeps its session logs; this app only reads them."
        if not text:
            note = f"Default: {path}. " + note
        if not os.path.isdir(path):
            note += "\nThis folder does not exist (yet): no sessions will be listed."
        return note

    def _update_state(self) -> None:
        loaded = self._loaded_form is not None
        dirty = self.has_unsaved_changes()
        blocked = bool(self._custom_problems()) and self._custom_fields_matter()
        self.save_button.setEnabled(loaded and dirty and not blocked and not self._saving)
        self.revert_button.setEnabled(loaded and dirty and not self._saving)
        testing = self.is_testing
        self.test_button.setEnabled(loaded and not testing)
        self.cancel_test_button.setEnabled(testing)
        if not loaded:
            self.state_label.setText("Loading settings…")
        elif dirty:
            self.state_label.setText("Unsaved changes.")
        elif self._loaded is not None and not self._loaded.exists:
            self.state_label.setText(f"Defaults in use: {self._settings_path()} does not exist yet.")
        else:
            self.state_label.setText(f"Saved in {self._settings_path()}.")

    def _custom_fields_matter(self) -> bool:
        """Bad custom fields block Save when custom is chosen, and always when they hold a key."""
        row = self.selected_row()
        if row is not None and row.kind == "custom":
            return True
        try:
            check_api_key_env(self.key_env_edit.text())
            check_base_url(self.base_url_edit.text())
        except ValueError:
            return True
        return False

    def _default_sessions_root(self) -> Path:
        """``$DSH_HOME/sessions``: where DSH writes sessions when settings name no other folder."""
        return Path(self.ctx.dsh_home) / "sessions"

    def _settings_path(self) -> str:
        return os.path.join(str(self.ctx.root), "settings.yml")

    def browse_sessions_root(self) -> None:
        start = self.sessions_root_edit.text().strip() or str(self._default_sessions_root())
        chosen = self.choose_directory(self, "Choose the DSH sessions folder", os.path.expanduser(start))
        if chosen:
            self.sessions_root_edit.setText(chosen)

    # --- save -----------------------------------------------------------------------------------
    def settings_from_form(self) -> AppSettings:
        """The settings the form shows, validated; raises ValueError with a readable message."""
        base = self._loaded.settings if self._loaded is not None else AppSettings()
        values = self._form_values()
        endpoint = {**base.custom_endpoint.model_dump(mode="python"), **values.pop("custom_endpoint")}
        try:
            return base.with_changes(custom_endpoint=endpoint, **values)
        except ValidationError as exc:
            reasons = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
            raise ValueError(reasons) from None

    def save(self, *, replace_malformed: bool = False, expect: str | None = None) -> None:
        if self._loaded is None or self._saving:
            return
        problems = self._custom_problems() if self._custom_fields_matter() else []
        if problems:
            self.banner.show_message("error", "Not saved. " + " ".join(problems))
            return
        try:
            settings = self.settings_from_form()
        except ValueError as exc:
            self.banner.show_message("error", f"Not saved: {exc}")
            return
        store = self.ctx.store
        base_revision = expect if expect is not None else self._loaded.revision
        self._saving = True
        self._update_state()

        def done(saved: LoadedSettings) -> None:
            self._saving = False
            self._loaded = saved
            self._loaded_form = self._form_values()
            chosen = saved.settings.sessions_root
            self.ctx.sessions_root = (
                Path(os.path.abspath(os.path.expanduser(chosen.strip())))
                if chosen and chosen.strip()
                else self._default_sessions_root()
            )
            self.banner.show_message("ok", f"Settings saved to {self._settings_path()}.")
            self._update_state()
            self.settings_saved.emit(saved.settings)

        def failed(exc: BaseException) -> None:
            self._saving = False
            self._update_state()
            if isinstance(exc, ConflictError):
                self._on_conflict(exc)
            elif isinstance(exc, ConfirmationRequiredError):
                if self.ctx.dialogs.confirm(
                    self,
                    "Replace settings.yml",
                    f"{exc.message}\n\nReplace the file with the settings shown here?",
                    "Replace",
                ):
                    self.save(replace_malformed=True, expect=base_revision)
                else:
                    self.banner.show_message("warning", "Not saved: settings.yml was left as it is.")
            else:
                self.banner.show_message("error", "Not saved: " + describe_error(exc))

        self.jobs.start(
            "save",
            partial(save_settings, replace_malformed=replace_malformed),
            store,
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
                "Overwrite settings",
                "Replace the settings on disk (changed by someone else) with the ones shown here?",
                "Overwrite",
            ):
                self.save(expect=current, replace_malformed=True)

        self.banner.show_message(
            "warning",
            "settings.yml was changed by someone else since you opened it. Nothing was saved. "
            "Reload to see the file's settings (your edits here are discarded), or keep yours.",
            [("Reload", self.revert), ("Keep mine…", keep_mine)],
        )

    # --- test connection --------------------------------------------------------------------------
    def choice_for_test(self) -> ModelChoice:
        """The endpoint the form currently points at; ValueError when the custom fields are unusable."""
        row = self.selected_row()
        if row is None:
            raise ValueError("Pick a model first.")
        if row.kind != "custom":
            assert row.choice is not None
            return row.choice
        url = self.base_url_edit.text().strip()
        model = self.custom_model_edit.text().strip()
        try:
            base_url = check_base_url(url)
            key_env = check_api_key_env(self.key_env_edit.text())
        except ValueError as exc:
            raise ValueError(" ".join(self._custom_problems()) or str(exc)) from None
        if not base_url or not model:
            raise ValueError("A custom endpoint needs a base URL and a model name.")
        return ModelChoice(
            id=CUSTOM_ID,
            label=f"{model} at {base_url}",
            provider=CUSTOM_ID,
            base_url=base_url,
            model=model,
            api_key_env=key_env,
        )

    def test_connection(self) -> None:
        if self.is_testing:
            return
        try:
            choice = self.choice_for_test()
        except ValueError as exc:
            self._show_test_result(ConnectionOutcome(False, "Cannot test", str(exc)))
            return
        timeout = self.test_timeout_seconds
        env = None if self.env is None else dict(self.env)
        self.test_result.setStyleSheet(_HINT_STYLE)
        self.test_result.setText(f"Connecting to {choice.base_url}…")
        self.test_result.show()

        def done(report: ConnectionReport) -> None:
            self._show_test_result(summarize_connection(report))

        def failed(exc: BaseException) -> None:
            if isinstance(exc, CancelledError):
                self._show_test_result(ConnectionOutcome(False, "Cancelled", "The connection test was cancelled."))
            else:
                self._show_test_result(ConnectionOutcome(False, "Could not connect", describe_error(exc)))

        self.jobs.start("test", _test, choice, timeout, env, done=done, failed=failed, cancellable=True)
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
        self.test_result.setText("Cancelling…")

    @property
    def is_testing(self) -> bool:
        return self.jobs.running("test")

    def _show_test_result(self, outcome: ConnectionOutcome) -> None:
        self.last_connection = outcome
        mark = "✔" if outcome.ok else "✘"
        self.test_result.setStyleSheet("color:#1d6b25;" if outcome.ok else _ERROR_STYLE)
        self.test_result.setText(f"{mark} {outcome.headline}.\n{_wrap(outcome.detail)}")
        self.test_result.show()
        self._update_state()
