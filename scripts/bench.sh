#!/usr/bin/env bash
# Set up, then run every benchmark and print its figures (nothing here asserts; see README "Benchmarks").
# Usage: bash scripts/bench.sh [store|search|sessions|gui|secrets|offline|prompt|mcp|sources|soak|scale ...]
#        (default: all but soak and scale, which take minutes)
# scale: search at 1k/10k/100k records, then the window at 100k (issue 24's table; workloads generated
#        once under $DSH_BENCH_DIR, default /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_BENCH=1 bash scripts/setup.sh  # also installs ripgrep, which the search benchmark compares against
export QT_QPA_PLATFORM=offscreen
# Byte-compile once, as an installed app is (this environment may set PYTHONDONTWRITEBYTECODE, and
# start-up figures would otherwise include compiling every module on every run).
.venv/bin/python -m compileall -q core gui benchmarks >/dev/null
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(store search sessions gui secrets offline prompt mcp sources)
for name in "${which[@]}"; do
  case "$name" in
    secrets) script=benchmarks/bench_secrets.py ;;
    offline) script=benchmarks/offline_quality.py ;;
    prompt) script=benchmarks/consolidation_prompt_bench.py ;;
    soak) script=benchmarks/soak.py ;;
    *) script="benchmarks/${name}_bench.py" ;;
  esac
  echo "=== $name ($script) ==="
  .venv/bin/python "$script"
  if [ "$name" = scale ]; then  # the window's keystrokes and RSS at 100k (its rows of the table)
    echo "=== scale: the window at 100k (benchmarks/gui_bench.py --size 100k) ==="
    .venv/bin/python benchmarks/gui_bench.py --size 100k --runs "${DSH_GUI_RUNS:-2}" --dir "${DSH_BENCH_DIR:-/tmp}"
  fi
done
