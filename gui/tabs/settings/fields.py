"""The Settings tab's fields: consolidation model and endpoint, debugging, folders; their layout, and
the form they make (:class:`core.settings_form.SettingsForm`)."""

from __future__ import annotations

import textwrap

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
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

from core.model_catalog import ModelCatalog
from core.settings import AppSettings
from core.settings_form import SettingsForm
from core.user_prefs import Language
from gui.qtmodels.settings_models import DEFAULT_KEY, ModelChoicesModel, ModelRow

LANGUAGES: tuple[tuple[Language, str], ...] = (("system", ""), ("en", "English"), ("zh_CN", "简体中文"))
OFFLINE, MODEL = "offline", "model"
EXAMPLE_URL = "https://api.example.com/v1"
ERROR_STYLE = "color:#a12a1c;"
HINT_STYLE = "color:#555;"


def wrap(text: str, width: int = 110) -> str:
    """Break a long message into lines for a label that does not word-wrap."""
    return "\n".join(textwrap.wrap(text, width)) or text


def _hint(text: str) -> QLabel:
    # No word wrap: wrapped labels get the wrong height inside form layouts and scroll areas (large
    # gaps, clipped descenders). Long texts carry explicit line breaks instead.
    label = QLabel(text)
    label.setStyleSheet(HINT_STYLE)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _spin(low: int, high: int, suffix: str, tip: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setSuffix(suffix)
    spin.setToolTip(tip)
    spin.setMinimumWidth(110)
    return spin


def _row(spin: QSpinBox, text: str) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(spin)
    row.addWidget(_hint(text))
    row.addStretch(1)
    return row


class SettingsFields(QScrollArea):
    """Every input of the Settings tab in one scrolling page."""

    def __init__(self, memory_root: str, default_sessions_root: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # --- consolidation -------------------------------------------------------------------
        # --- interface (per user, not per root: core.user_prefs) ---------------------------------
        self.language_combo = QComboBox()
        self.language_combo.setObjectName("languagePicker")
        for key, name in LANGUAGES:
            # Each language is named in itself, so anyone can find theirs; "System" in the current one.
            self.language_combo.addItem(name or self.tr("System (follow the computer's language)"), key)
        self.language_note = _hint("")
        self.consolidator_combo = QComboBox()
        self.consolidator_combo.addItem(self.tr("Offline extractor (built in, no network)"), OFFLINE)
        self.consolidator_combo.addItem(self.tr("Language model (OpenAI-compatible chat API)"), MODEL)
        self.models = ModelChoicesModel(self)
        self.model_combo = QComboBox()
        self.model_combo.setModel(self.models)
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setMinimumContentsLength(30)
        self.model_details = _hint("")
        self.catalog_note = _hint("")

        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText(EXAMPLE_URL)
        self.custom_model_edit = QLineEdit()
        self.custom_model_edit.setPlaceholderText(self.tr("model name, e.g. qwen3-coder"))
        self.key_env_edit = QLineEdit()
        self.key_env_edit.setPlaceholderText(self.tr("variable NAME, e.g. MY_LLM_API_KEY (leave empty for no key)"))
        self.custom_error = QLabel()
        self.custom_error.setStyleSheet(ERROR_STYLE)
        self.custom_error.hide()

        self.test_button = QPushButton(self.tr("Test connection"))
        self.cancel_test_button = QPushButton(self.tr("Cancel"))
        self.cancel_test_button.setEnabled(False)
        self.test_result = QLabel("")
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.test_result.hide()

        # --- debug ------------------------------------------------------------------------------
        self.debug_box = QCheckBox(self.tr("Write debug logs of consolidation attempts"))
        self.timeout_spin = QSpinBox()
        self.timeout_spin.setRange(1, 3600)
        self.timeout_spin.setSuffix(self.tr(" s"))
        self.timeout_spin.setToolTip(self.tr("How long one model request may take before it is abandoned"))
        self.quiet_spin = QSpinBox()
        self.quiet_spin.setRange(0, 7 * 24 * 3600)
        self.quiet_spin.setSuffix(self.tr(" s"))
        self.quiet_spin.setToolTip(
            self.tr("A session counts as finished (and can be consolidated) once its log has not changed this long")
        )

        # --- limits (issues 10 and 16) -------------------------------------------------------------
        self.review_age_spin = _spin(
            1, 3650, self.tr(" days"), self.tr("Pending consolidation reviews older than this are discarded")
        )
        self.review_count_spin = _spin(
            1, 10_000, "", self.tr("Beyond this many pending reviews, the oldest ones are discarded")
        )
        self.input_budget_spin = _spin(
            8,
            100_000,
            self.tr(" KB"),
            self.tr("The most the model's first request may hold (instructions, evidence, Global, records)"),
        )
        self.tool_rounds_spin = _spin(
            0,
            20,
            "",
            self.tr("How many rounds of read-only tool calls the model may make (0: a single request, no tools)"),
        )
        self.load_warning_spin = _spin(
            100,
            1_000_000,
            self.tr(" tokens"),
            self.tr("The load meter warns when GLOBAL.md + a workspace's MEMORY.md are estimated above this"),
        )
        self.load_warning_spin.setSingleStep(500)
        self.load_warning_spin.setObjectName("loadWarningTokens")

        # --- folders ----------------------------------------------------------------------------
        self.memory_root_edit = QLineEdit(memory_root)
        self.memory_root_edit.setReadOnly(True)
        self.sessions_root_edit = QLineEdit()
        self.sessions_root_edit.setPlaceholderText(default_sessions_root)
        self.browse_button = QPushButton(self.tr("Browse…"))
        self.default_sessions_button = QPushButton(self.tr("Use default"))
        self.sessions_note = _hint("")
        self._build_layout()

    def _build_layout(self) -> None:
        interface_box = QGroupBox(self.tr("Interface"))
        i_form = QFormLayout(interface_box)
        language_row = QHBoxLayout()
        language_row.addWidget(self.language_combo)
        language_row.addWidget(self.language_note)
        language_row.addStretch(1)
        i_form.addRow(self.tr("Language:"), language_row)

        model_box = QGroupBox(self.tr("Consolidation model"))
        form = QFormLayout(model_box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.tr("Consolidator:"), self.consolidator_combo)
        form.addRow(self.tr("Model:"), self.model_combo)
        form.addRow("", self.model_details)
        form.addRow("", self.catalog_note)
        limits = QHBoxLayout()
        limits.addWidget(QLabel(self.tr("Request timeout:")))
        limits.addWidget(self.timeout_spin)
        limits.addSpacing(24)
        limits.addWidget(QLabel(self.tr("A session counts as finished after")))
        limits.addWidget(self.quiet_spin)
        limits.addWidget(QLabel(self.tr("without changes")))
        limits.addStretch(1)
        form.addRow("", limits)

        self.custom_box = QGroupBox(self.tr("Custom OpenAI-compatible endpoint"))
        custom_form = QFormLayout(self.custom_box)
        custom_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        custom_form.addRow(self.tr("Base URL:"), self.base_url_edit)
        custom_form.addRow(self.tr("Model:"), self.custom_model_edit)
        custom_form.addRow(self.tr("API key variable:"), self.key_env_edit)
        custom_form.addRow(
            "",
            _hint(
                self.tr(
                    "The NAME of the environment variable that holds the key, never the key itself.\n"
                    "The key is read from the environment for each request and is never saved."
                )
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

        debug_box = QGroupBox(self.tr("Debugging"))
        d_layout = QVBoxLayout(debug_box)
        d_layout.addWidget(self.debug_box)
        d_layout.addWidget(
            _hint(
                self.tr(
                    "Each model attempt's sizes, timings and status codes go to debug/<review-id>/ in the "
                    "memory root.\nConversation text, memory bodies and keys are never logged."
                )
            )
        )

        limits_box = QGroupBox(self.tr("Limits"))
        l_form = QFormLayout(limits_box)
        l_form.addRow(
            self.tr("Keep pending reviews for:"), _row(self.review_age_spin, self.tr("then they are discarded"))
        )
        l_form.addRow(self.tr("Keep at most:"), _row(self.review_count_spin, self.tr("pending reviews (the newest)")))
        l_form.addRow(
            self.tr("Model input budget:"), _row(self.input_budget_spin, self.tr("per first request (at least 8 KB)"))
        )
        l_form.addRow(
            self.tr("Tool rounds:"), _row(self.tool_rounds_spin, self.tr("read-only tool rounds per consolidation"))
        )
        l_form.addRow(
            self.tr("Load warning above:"),
            _row(self.load_warning_spin, self.tr("estimated tokens an agent loads at start (GLOBAL.md + MEMORY.md)")),
        )

        folders = QGroupBox(self.tr("Folders"))
        f_form = QFormLayout(folders)
        f_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        f_form.addRow(self.tr("Memory root:"), self.memory_root_edit)
        f_form.addRow(
            "",
            _hint(
                self.tr(
                    "Chosen when the app starts. To use another root, start the app with "
                    "“dsh-memory --root PATH”,\nor set DSH_MEMORY_ROOT (or DSH_HOME: its memory folder "
                    "is the default)."
                )
            ),
        )
        sessions_row = QHBoxLayout()
        sessions_row.addWidget(self.sessions_root_edit, 1)
        sessions_row.addWidget(self.browse_button)
        sessions_row.addWidget(self.default_sessions_button)
        f_form.addRow(self.tr("Sessions root:"), sessions_row)
        f_form.addRow("", self.sessions_note)

        content = QWidget()
        c_layout = QVBoxLayout(content)
        c_layout.addWidget(interface_box)
        c_layout.addWidget(model_box)
        c_layout.addWidget(limits_box)
        c_layout.addWidget(debug_box)
        c_layout.addWidget(folders)
        c_layout.addStretch(1)
        self._content_layout = c_layout
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setWidget(content)

    def add_section(self, widget: QWidget) -> None:
        """A further group below the fields (Settings' "Other memory stores")."""
        self._content_layout.insertWidget(self._content_layout.count() - 1, widget)

    # --- the form ---------------------------------------------------------------------------------------
    def selected_row(self) -> ModelRow | None:
        index = self.model_combo.currentIndex()
        return self.models.row(index) if 0 <= index < self.models.rowCount() else None

    def form(self) -> SettingsForm:
        row = self.selected_row()
        return SettingsForm(
            consolidator=str(self.consolidator_combo.currentData()),
            selected_model=(row.key or None) if row is not None else None,
            base_url=self.base_url_edit.text().strip(),
            custom_model=self.custom_model_edit.text().strip(),
            api_key_env=self.key_env_edit.text().strip(),
            debug_logging=self.debug_box.isChecked(),
            sessions_root=self.sessions_root_edit.text().strip() or None,
            request_timeout_seconds=float(self.timeout_spin.value()),
            quiet_period_seconds=float(self.quiet_spin.value()),
            pending_review_max_age_days=float(self.review_age_spin.value()),
            pending_review_max_count=self.review_count_spin.value(),
            model_input_budget_bytes=self.input_budget_spin.value() * 1000,
            tool_rounds=self.tool_rounds_spin.value(),
            load_warning_tokens=self.load_warning_spin.value(),
        )

    def language(self) -> Language:
        data = self.language_combo.currentData()
        return next((key for key, _ in LANGUAGES if key == data), "system")

    def set_language(self, language: Language) -> None:
        self.language_combo.setCurrentIndex(max(0, self.language_combo.findData(language)))

    def populate(self, settings: AppSettings, catalog: ModelCatalog, catalog_found: bool = True) -> bool:
        """Show ``settings``; False when its saved model is not in ``catalog`` (the default is shown)."""
        self.models.set_catalog(catalog)
        self.consolidator_combo.setCurrentIndex(max(0, self.consolidator_combo.findData(settings.consolidator)))
        key = settings.selected_model or DEFAULT_KEY
        row = self.models.row_of(key)
        self.model_combo.setCurrentIndex(row if row >= 0 else max(0, self.models.row_of(DEFAULT_KEY)))
        ep = settings.custom_endpoint
        self.base_url_edit.setText(ep.base_url)
        self.custom_model_edit.setText(ep.model)
        self.key_env_edit.setText(ep.api_key_env)
        self.debug_box.setChecked(settings.debug_logging)
        self.timeout_spin.setValue(max(1, round(settings.request_timeout_seconds)))
        self.quiet_spin.setValue(max(0, round(settings.quiet_period_seconds)))
        self.review_age_spin.setValue(max(1, round(settings.pending_review_max_age_days)))
        self.review_count_spin.setValue(settings.pending_review_max_count)
        self.input_budget_spin.setValue(max(8, round(settings.model_input_budget_bytes / 1000)))
        self.tool_rounds_spin.setValue(settings.tool_rounds)
        self.load_warning_spin.setValue(settings.load_warning_tokens)
        self.sessions_root_edit.setText(settings.sessions_root or "")
        missing = settings.selected_model if row < 0 else None
        self.catalog_note.setText(self._catalog_text(catalog, missing, catalog_found))
        return row >= 0

    @staticmethod
    def _catalog_text(catalog: ModelCatalog, missing: str | None, found: bool = True) -> str:
        translate = QCoreApplication.translate
        where = str(catalog.source) if catalog.source else "settings.yaml"
        if found:
            lines = [
                translate(
                    "SettingsFields",
                    "Models come from {where} (DSH's own configuration; only key variable names are shown).",
                ).format(where=where)
            ]
        else:  # no DSH configuration: the list is the built-in DeepSeek defaults
            lines = [
                translate(
                    "SettingsFields",
                    "DSH's model list {where} does not exist, so the built-in defaults are in use.",
                ).format(where=where)
            ]
        if missing:
            lines.append(
                translate(
                    "SettingsFields", "The saved model {name} is not in that list any more; pick another one."
                ).format(name=repr(missing))
            )
        lines += [wrap(p) for p in catalog.problems]
        return "\n".join(lines)

    @property
    def limit_spins(self) -> tuple[QSpinBox, ...]:
        return (
            self.review_age_spin,
            self.review_count_spin,
            self.input_budget_spin,
            self.tool_rounds_spin,
            self.load_warning_spin,
        )

    def set_enabled(self, enabled: bool) -> None:
        for w in (
            self.consolidator_combo,
            self.model_combo,
            self.debug_box,
            self.timeout_spin,
            self.quiet_spin,
            *self.limit_spins,
            self.sessions_root_edit,
            self.browse_button,
            self.default_sessions_button,
        ):
            w.setEnabled(enabled)
