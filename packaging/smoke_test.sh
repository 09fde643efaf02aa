#!/usr/bin/env bash
# Smoke-test the frozen app: `--version`, then `--self-test --demo` offscreen in a throwaway DSH_HOME.
# Prints the folder size and start-up times; exits non-zero when either check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
APP=${1:-dist/dsh-memory/dsh-memory}
[ -x "$APP" ] || { echo "smoke: $APP not found; run packaging/build.sh first" >&2; exit 1; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home" DSH_HOME="$scratch/home/.dsh" QT_QPA_PLATFORM=offscreen
unset DSH_MEMORY_ROOT
mkdir -p "$HOME"

now_ms() { date +%s%3N; }

t0=$(now_ms)
version=$("$APP" --version)
t1=$(now_ms)
echo "smoke: --version -> '$version' in $(( t1 - t0 )) ms"
expected=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' core/version.py)
case "$version" in
  *"$expected"*) ;;
  *) echo "smoke: FAIL: expected version $expected" >&2; exit 1 ;;
esac

t0=$(now_ms)
status=0
"$APP" --self-test --demo || status=$?
t1=$(now_ms)
echo "smoke: --self-test --demo exited $status in $(( t1 - t0 )) ms (start, every tab loaded, exit)"
echo "smoke: frozen folder size $(du -sh "$(dirname "$APP")" | cut -f1) ($(du -sb "$(dirname "$APP")" | cut -f1) bytes)"
[ "$status" -eq 0 ] || { echo "smoke: FAIL: self-test failed" >&2; exit 1; }
echo "smoke: PASS"
