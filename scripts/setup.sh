#!/usr/bin/env bash
# Set up everything the app and its tests need, from this repository's own files:
# the Debian libraries PySide6 loads (and CJK fonts), then a virtual environment in .venv
# with the project installed editable with its dev extras. Safe to run again: it skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."

SYSTEM_PACKAGES=(libgl1 libegl1 libxkbcommon0 libfontconfig1 libglib2.0-0 libdbus-1-3
                 fonts-dejavu-core fonts-wqy-microhei
                 # Qt's X11 platform plugin (a real desktop; offscreen and the tests don't need them):
                 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
                 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0)
# The search benchmark compares against ripgrep; scripts/bench.sh asks for it with SETUP_BENCH=1.
[ "${SETUP_BENCH:-0}" = "1" ] && SYSTEM_PACKAGES+=(ripgrep)

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi

# Reinstall only when the dependency list changed.
stamp=.venv/.dsh-setup-stamp
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing Python dependencies into .venv"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  # (setuptools' default editable mode: an import finder naming core/gui/resources. Its start-up cost
  # is pathlib, re and contextlib, which the CLI imports anyway, so --config-settings
  # editable_mode=compat measured no faster for a one-shot search (issue 24) and would put the
  # repository root on sys.path: tests, benchmarks, scripts, packaging and docs importable everywhere.)
  .venv/bin/python -m pip install -q -e '.[dev]'
  echo "$want" > "$stamp"
fi

# The interface's translations: compile resources/translations/zh_CN/*.ts into dsh_zh_CN.qm
# (the .qm is built here, not committed, so it never lags behind its sources; a wheel build compiles
# its own through packaging/dsh_build.py).
.venv/bin/python scripts/i18n.py compile
