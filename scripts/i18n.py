"""Translation sources for the interface: extract, list what is missing, lint, compile.

    .venv/bin/python scripts/i18n.py extract [AREA ...]   # refresh zh_CN/<area>.ts from the code
    .venv/bin/python scripts/i18n.py todo [AREA ...]      # source strings without a finished translation
    .venv/bin/python scripts/i18n.py lint                 # literal strings handed to widgets untranslated
    .venv/bin/python scripts/i18n.py compile              # build dsh_zh_CN.qm and dsh_en.qm (English plurals)

Each area of the window has its own ``.ts`` (``resources/translations/zh_CN/<area>.ts``) so work on
different tabs never edits the same file. A ``gui/`` file belongs to the first area whose pattern
matches it (``AREAS`` below); ``extract`` keeps existing translations and drops obsolete ones.
Fill a translation by editing the ``.ts`` (Qt Linguist, or any editor: replace
``<translation type="unfinished"></translation>`` with ``<translation>…</translation>``; plural
messages take one ``<numerusform>`` for Chinese).
"""

from __future__ import annotations

import ast
import fnmatch
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TS_DIR = REPO / "resources" / "translations" / "zh_CN"
QM = REPO / "resources" / "translations" / "dsh_zh_CN.qm"


def tool(name: str) -> str:
    """Qt's ``lupdate`` / ``lrelease`` as shipped inside the PySide6 package.

    Found through the package rather than beside ``sys.executable``: a wheel build runs in an
    isolated environment whose scripts are elsewhere (packaging/dsh_build.py calls ``compile_qm``).
    """
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("i18n: PySide6 is not installed; lupdate/lrelease come with it")
    exe = Path(next(iter(spec.submodule_search_locations))) / (name + (".exe" if sys.platform == "win32" else ""))
    return str(exe)

# Ordered: the first match wins.
AREAS: list[tuple[str, tuple[str, ...]]] = [
    ("workspace", ("gui/tabs/workspace/*", "gui/qtmodels/records.py", "gui/qtmodels/search_results.py",
                   "gui/qtmodels/workspaces.py")),
    ("review", ("gui/tabs/consolidation/*", "gui/tabs/recycle*", "gui/tabs/settings/*",
                "gui/qtmodels/consolidation_models.py", "gui/qtmodels/recycle_models.py",
                "gui/qtmodels/settings_models.py", "gui/qtmodels/sources_models.py", "gui/widgets/review_*")),
    ("maintenance", ("gui/tabs/maintenance/*",)),
    ("shell", ("gui/*",)),
    # Core's reasons (core/messages.py): translated in the window by gui/core_text.py.
    ("core", ("core/messages.py",)),
]


def area_of(rel: str) -> str:
    for area, patterns in AREAS:
        if any(fnmatch.fnmatch(rel, p) for p in patterns):
            return area
    raise SystemExit(f"i18n: {rel} belongs to no area")


def gui_files() -> dict[str, list[str]]:
    files: dict[str, list[str]] = {area: [] for area, _ in AREAS}
    for path in [*sorted((REPO / "gui").rglob("*.py")), REPO / "core" / "messages.py"]:
        rel = path.relative_to(REPO).as_posix()
        files[area_of(rel)].append(rel)
    return files


def extract(areas: list[str]) -> None:
    TS_DIR.mkdir(parents=True, exist_ok=True)
    for area, files in gui_files().items():
        if areas and area not in areas:
            continue
        ts = TS_DIR / f"{area}.ts"
        subprocess.run(
            [tool("lupdate"), *files, "-ts", str(ts), "-no-obsolete",
             "-target-language", "zh_CN", "-locations", "none"],
            cwd=REPO, check=True,
        )


def unfinished(ts: Path) -> list[tuple[str, str]]:
    """(context, source) of every message in ``ts`` without a finished, non-empty translation."""
    out = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            tr = message.find("translation")
            forms = [] if tr is None else [f.text or "" for f in tr.iter("numerusform")]
            text = (tr.text or "") if tr is not None else ""
            empty = not (any(f.strip() for f in forms) if forms else text.strip())
            if tr is None or tr.get("type") in ("unfinished", "vanished", "obsolete") or empty:
                out.append((name, message.findtext("source") or ""))
    return out


def todo(areas: list[str]) -> int:
    missing = 0
    for ts in sorted(TS_DIR.glob("*.ts")):
        if areas and ts.stem not in areas:
            continue
        for context, source in unfinished(ts):
            missing += 1
            print(f"{ts.stem}: [{context}] {source!r}")
    print(f"{missing} untranslated")
    return 1 if missing else 0


# Calls whose string arguments a user reads. A literal (or f-string) passed straight to one of
# these is an untranslated string; wrap it in self.tr(...) / QCoreApplication.translate(...).
VISIBLE_CALLS = {
    "setText", "setToolTip", "setWindowTitle", "setPlaceholderText", "setStatusTip", "setTitle",
    "addTab", "insertTab", "setTabText", "addAction", "addMenu", "setHorizontalHeaderLabels",
    "QLabel", "QPushButton", "QCheckBox", "QRadioButton", "QGroupBox", "QAction", "QToolButton",
    "show_info", "show_error", "show_warning", "show_success", "showMessage", "setWhatsThis",
    "setInformativeText", "setDetailedText", "addItem", "setPrefix", "setSuffix", "setSpecialValueText",
    "confirm", "inform", "warn", "critical", "information", "question", "warning",
}


def _literal_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def lint_file(path: Path) -> list[str]:
    problems = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in VISIBLE_CALLS:
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            text = _literal_text(arg)
            # Words a translator would translate: two or more letters. Symbols ("…", "⚠ ") and
            # object names pass.
            if text is not None and any(ch.isalpha() for ch in text) and len(text.strip()) > 1:
                problems.append(f"{path.relative_to(REPO)}:{node.lineno}: {name}({text!r})")
    return problems


def lint() -> int:
    problems = [p for f in sorted((REPO / "gui").rglob("*.py")) for p in lint_file(f)]
    for p in problems:
        print(p)
    print(f"{len(problems)} untranslated literal(s)")
    return 1 if problems else 0


def compile_qm(out_dir: Path = QM.parent) -> None:
    """``dsh_zh_CN.qm`` and ``dsh_en.qm`` into ``out_dir`` (the source tree, or a wheel's build folder)."""
    sources = sorted(TS_DIR.glob("*.ts"))
    if not sources:
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([tool("lrelease"), "-silent", *map(str, sources), "-qm", str(out_dir / QM.name)], check=True)
    compile_english_plurals(out_dir)


def english_forms(source: str) -> tuple[str, str]:
    """The singular and plural English of a ``%n`` message: "%n record(s)" -> "%n record", "%n records".

    Sources are written in English with "(s)" where the noun takes a plural; anything else reads
    the same for one and for many.
    """
    return source.replace("(s)", ""), source.replace("(s)", "s")


def compile_english_plurals(out_dir: Path = QM.parent) -> None:
    """``dsh_en.qm``: only the plural messages, so English says "1 record" and "6 records".

    Derived from the code at every setup (``lupdate -pluralonly``), never committed: there is
    nothing to translate by hand, only the "(s)" to resolve.
    """
    import tempfile

    files = [f for group in gui_files().values() for f in group]
    with tempfile.TemporaryDirectory(prefix="dsh-i18n-") as tmp:
        ts = Path(tmp) / "en.ts"
        subprocess.run(
            [tool("lupdate"), *files, "-ts", str(ts), "-pluralonly", "-silent",
             "-target-language", "en", "-locations", "none"],
            cwd=REPO, check=True,
        )
        tree = ET.parse(ts)
        for message in tree.getroot().iter("message"):
            tr = message.find("translation")
            if tr is None or message.get("numerus") != "yes":
                continue
            for child in list(tr):
                tr.remove(child)
            tr.attrib.pop("type", None)
            tr.text = None
            for form in english_forms(message.findtext("source") or ""):
                ET.SubElement(tr, "numerusform").text = form
        tree.write(ts, encoding="utf-8", xml_declaration=True)
        subprocess.run(
            [tool("lrelease"), "-silent", str(ts), "-qm", str(out_dir / "dsh_en.qm")], check=True
        )


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "extract":
        extract(rest)
        return 0
    if command == "todo":
        return todo(rest)
    if command == "lint":
        return lint()
    if command == "compile":
        compile_qm()
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
