#!/usr/bin/env bash
# Run the MCP conformance suite (@modelcontextprotocol/conformance) against `dsh-memory mcp --http`.
#
#   bash scripts/mcp_conformance.sh [SCRATCH_DIR]
#
# Installs the suite (and Node 22 from npm when the system's node is older than 22) into a scratch
# folder (default: a temp dir; nothing global), starts the Streamable HTTP server on a demo root in a
# temp dir, runs every server scenario, and prints which pass and which fail and why. The suite's
# "everything server" scenarios call fixture tools, resources and prompts (test_simple_text,
# test://static-resource, test_prompt_with_arguments...) that only its reference server has: they are
# listed apart and do not count. Not part of .ci/run (it needs the network for npm).
#
# The suite cannot send a bearer token, so the server here is the same SDK app built by
# core.mcp.http.build_app minus the bearer gate, bound to 127.0.0.1 on a throwaway root.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
PY="${PYTHON:-$REPO/.venv/bin/python}"
SCRATCH="${1:-$(mktemp -d -t dsh-mcp-conformance-XXXXXX)}"
mkdir -p "$SCRATCH"

NODE=node
if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  echo "system node is $(node --version 2>/dev/null || echo missing); installing node@22 from npm into $SCRATCH"
  NEED_NODE=node@22
else
  NEED_NODE=
fi
if [ ! -d "$SCRATCH/node_modules/@modelcontextprotocol/conformance" ] || { [ -n "$NEED_NODE" ] && [ ! -x "$SCRATCH/node_modules/.bin/node" ]; }; then
  (cd "$SCRATCH" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund @modelcontextprotocol/conformance $NEED_NODE >"$SCRATCH/npm-install.log" 2>&1)
fi
[ -n "$NEED_NODE" ] && NODE="$SCRATCH/node_modules/.bin/node"
SUITE="$SCRATCH/node_modules/@modelcontextprotocol/conformance/dist/index.js"
echo "node $("$NODE" --version), conformance $("$NODE" -p "require('$SCRATCH/node_modules/@modelcontextprotocol/conformance/package.json').version")"

DEMO="$(mktemp -d -t dsh-mcp-demo-XXXXXX)"
PORT="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
mkdir -p "$DEMO/project"
"$PY" - "$DEMO" "$PORT" >"$SCRATCH/server.log" 2>&1 <<'PYEOF' &
import sys
from pathlib import Path

import uvicorn

from core.mcp.agent import AgentSession
from core.mcp.http import build_app
from core.models import PutOp, Record
from core.store.fs import FileStore

demo, port = Path(sys.argv[1]), int(sys.argv[2])
store = FileStore(demo / "memory")
store.replace_global("# User Preferences\n\n- Prefers short answers.\n", None)
snap = store.create_workspace(str(demo / "project"))
store.commit(snap.key, [PutOp(record=Record(name="build-tool", description="Packaging", type="project",
                                             body="\nWe package with electron-builder.\n"))], snap.revision)
session = AgentSession(store, str(demo / "project"), writes="review", connection="conformance")
gated = build_app(session, "127.0.0.1", port, "x" * 43)
uvicorn.run(gated.app, host="127.0.0.1", port=port, log_level="warning")  # .app: the SDK app behind the gate
PYEOF
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$DEMO"' EXIT
for _ in $(seq 1 150); do
  "$PY" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$PORT)))" && break
  sleep 0.2
done

OUT="$SCRATCH/results"
rm -rf "$OUT"; mkdir -p "$OUT"
set +e
"$NODE" "$SUITE" server --url "http://127.0.0.1:$PORT/mcp" --suite all -o "$OUT" >"$SCRATCH/suite.log" 2>&1
SUITE_RC=$?
set -e
echo "suite exit code $SUITE_RC (full log: $SCRATCH/suite.log, results: $OUT)"

"$PY" - "$OUT" "$SCRATCH/suite.log" <<'PYEOF'
import json
import re
import sys
from pathlib import Path

FIXTURES = re.compile(
    r"^(tools-call-(?!with-logging)|resources-read-|resources-templates-read|prompts-get-|elicitation-|json-schema-2020-12)"
)
NOT_OFFERED = {  # protocol features this server deliberately leaves out, and why
    "logging-set-level": "no logging capability (deprecated in 2026-07-28; logs go to stderr)",
    "tools-call-with-logging": "no logging capability",
    "completion-complete": "no completions (no argument worth completing)",
    "resources-subscribe": "no resource subscriptions (memory is read per call)",
    "resources-unsubscribe": "no resource subscriptions",
    "server-sse-polling": "no SSE resumability (no event store: answers are small and immediate)",
}
out, log = Path(sys.argv[1]), Path(sys.argv[2])
rows = []
for checks in sorted(out.rglob("checks.json")):
    m = re.match(r"^(?:server-)?(.*?)-\d{4}-\d{2}-\d{2}T", checks.parent.name)
    scenario = m.group(1) if m else checks.parent.name
    try:
        items = json.loads(checks.read_text())
    except ValueError:
        continue
    failed = [c for c in items if c.get("status") not in ("SUCCESS", "INFO", "SKIPPED")]
    why = "; ".join(f"{c.get('name')}: {c.get('errorMessage') or c.get('description') or c.get('status')}" for c in failed)
    rows.append((scenario, not failed, why))
if not rows:
    print(log.read_text()[-4000:])
    sys.exit(0)
ours = [r for r in rows if not FIXTURES.match(r[0]) and r[0] not in NOT_OFFERED]
absent = [r for r in rows if r[0] in NOT_OFFERED]
fixtures = [r for r in rows if FIXTURES.match(r[0])]
print(f"\nScenarios that apply to this server: {sum(ok for _, ok, _ in ours)}/{len(ours)} pass")
for name, ok, why in ours:
    print(f"  {'PASS' if ok else 'FAIL'}  {name}" + ("" if ok else f"  -- {why[:400]}"))
print(f"\nFeatures this server does not offer: {sum(ok for _, ok, _ in absent)}/{len(absent)} pass")
for name, ok, why in absent:
    print(f"  {'PASS' if ok else 'FAIL'}  {name}  ({NOT_OFFERED[name]})" + ("" if ok else f"  -- {why[:200]}"))
print(f"\n'Everything server' fixture scenarios (call its test_* tools, test:// resources and test prompts; "
      f"do not apply): {len(fixtures)}")
for name, ok, why in fixtures:
    print(f"  {'pass' if ok else 'n/a '}  {name}" + ("" if ok else f"  -- {why[:160]}"))
PYEOF
