#!/usr/bin/env bash
# Build the one-folder desktop app dist/dsh-memory/ from a clean virtual environment (build/venv):
# install the project and PyInstaller there, then run packaging/dsh-memory.spec.
# Then run packaging/smoke_test.sh. Needs the same system libraries as scripts/setup.sh.
# REUSE_VENV=1 keeps an existing build/venv (after a spec-only change) instead of recreating it.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

rm -rf build/pyinstaller dist/dsh-memory
if [ "${REUSE_VENV:-0}" = "1" ] && [ -x build/venv/bin/python ]; then
  echo "build: reusing build/venv (REUSE_VENV=1); reinstalling the project only"
  build/venv/bin/python -m pip install -q --no-deps --force-reinstall "$REPO"
else
  echo "build: fresh virtual environment in build/venv ($PYTHON)"
  rm -rf build/venv
  "$PYTHON" -m venv build/venv
  build/venv/bin/python -m pip install -q --upgrade pip
  echo "build: installing the project and PyInstaller"
  build/venv/bin/python -m pip install -q "$REPO[packaging]"
fi

echo "build: running PyInstaller"
start=$(date +%s)
build/venv/bin/python -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/dsh-memory.spec
echo "build: done in $(( $(date +%s) - start )) s -> dist/dsh-memory/ ($(du -sh dist/dsh-memory | cut -f1))"
