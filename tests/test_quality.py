"""Static checks that are part of the suite: ``mypy --strict`` on core/ and gui/, and ruff on the tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_core_and_gui_are_mypy_strict_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "core", "gui"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_is_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "core", "gui", "tests", "packaging", "benchmarks"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_gui_module_is_over_600_lines() -> None:
    """A GUI module over ~600 lines is several concepts; split it (docs/architecture.md)."""
    long = {
        str(p.relative_to(REPO)): n
        for p in sorted((REPO / "gui").rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}


def _class_members(path: Path, name: str) -> tuple[set[str], int]:
    """Public names a class defines (methods, properties, annotated attributes) and its line count."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name)
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    lines = (cls.end_lineno or cls.lineno) - cls.lineno + 1
    return {n for n in names if not n.startswith("_")}, lines


def test_the_store_protocol_stays_small() -> None:
    """The MemoryStore protocol is a small core plus collaborators (files, history, recycle, inspect):
    a new kind of internal file is a FileKind, not a new store method (docs/store.md, issue 27)."""
    members, _ = _class_members(REPO / "core/store/api.py", "MemoryStore")
    assert len(members) <= 15, sorted(members)
    assert {"files", "history", "recycle", "inspect"} <= members
    _, core_lines = _class_members(REPO / "core/store/base.py", "StoreCore")
    assert core_lines <= 400, core_lines  # locks, revisions, commits; the rest is its collaborators'


def test_no_core_module_is_over_800_lines() -> None:
    """A core module over ~800 lines is several concepts; split it (docs/architecture.md). No
    allow-list: the store's core was the last module over it, split into collaborators in issue 27."""
    long = {
        str(p.relative_to(REPO)): n
        for p in sorted((REPO / "core").rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert long == {}, long


def _imports_of(path: Path) -> set[str]:
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_tab_helper_imports_the_tab_that_imports_it() -> None:
    """A helper that imports its tab (even only for a type) and is imported by it is one concept in
    two files, and it reaches into the tab; it gets the few callbacks it needs instead."""
    modules = {
        ".".join(p.relative_to(REPO).with_suffix("").parts): p
        for p in sorted((REPO / "gui" / "tabs").rglob("*.py"))
        if p.name != "__init__.py"
    }
    imports = {name: _imports_of(path) & set(modules) for name, path in modules.items()}
    circles = {frozenset({a, b}) for a, deps in imports.items() for b in deps if a in imports.get(b, set())}
    assert circles == set(), sorted(map(sorted, circles))
