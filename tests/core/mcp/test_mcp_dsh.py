"""DSH registration, for real: the README's Cordis overlay, started the way DSH's stdio bridge starts
it (the overlay's command, args, env and cwd; no ambient DSH_* variable and nothing that looks like
a credential), finds the right root and workspace; and DSH's three-step verification with two
client connections (session A writes, a new session B recalls and uses it)."""

from __future__ import annotations

import os
import re
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
import yaml
from mcp import Client, StdioServerParameters

from core.models import PutOp, Record
from core.store.fs import FileStore
from tests.core.mcp.mcp_support import REPO, cli, ok_json, put, read_handle, text_of

pytestmark = pytest.mark.slow

CREDENTIAL = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)


def readme_overlay() -> list[dict[str, Any]]:
    """The first ```yaml block of the README that inserts the dsh-mcp-client, parsed with the `!!js`
    tag kept as ("js", expression) so the test evaluates exactly what DSH's loader would."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    block = next(b for b in blocks if "@deepseek-ai/dsh-mcp-client" in b)

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("tag:yaml.org,2002:js", lambda loader, node: ("js", loader.construct_scalar(node)))
    doc = yaml.load(block, Loader=Loader)
    assert isinstance(doc, list)
    return doc


def evaluate(value: Any, host_cwd: Path, host_env: dict[str, str]) -> Any:
    """What the DSH host's loader makes of a `!!js` value (only the expressions the README uses)."""
    if not (isinstance(value, tuple) and value[0] == "js"):
        return value
    expr = value[1].strip()
    if expr == "process.cwd()":
        return str(host_cwd)
    if expr.startswith("process.env.DSH_HOME ||"):
        return host_env.get("DSH_HOME") or str(Path(host_env["HOME"]) / ".dsh")
    raise AssertionError(f"the README uses a !!js expression this test does not know: {expr}")


def bridged(host_cwd: Path, host_env: dict[str, str]) -> StdioServerParameters:
    """The server as DSH's stdio bridge starts it from the README overlay."""
    (patch,) = readme_overlay()
    (entry,) = patch["insert"]
    assert entry["name"] == "@deepseek-ai/dsh-mcp-client"
    config = entry["config"]
    assert config["transport"] == "stdio" and config["serverName"] == "dsh-memory"
    # The bridge's environment: the host's, minus DSH_* and anything credential-shaped, plus config.env.
    env = {k: v for k, v in host_env.items() if not k.startswith("DSH_") and not CREDENTIAL.search(k)}
    env.update({k: evaluate(v, host_cwd, host_env) for k, v in (config.get("env") or {}).items()})
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '/usr/bin:/bin')}"  # dsh-memory installed
    env["PYTHONPATH"] = str(REPO)
    return StdioServerParameters(
        command=config["command"],
        args=[str(a) for a in config["args"]],
        env=env,
        cwd=evaluate(config["cwd"], host_cwd, host_env),
    )


@pytest.fixture
def dsh_host(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A DSH home outside the user's home (so the default would be wrong), a repo with memory, and
    the host's environment: DSH_HOME set, plus credentials the bridge must not pass on."""
    home = tmp_path / "home"
    home.mkdir()
    dsh_home = tmp_path / "elsewhere" / "dsh-home"
    root = dsh_home / "memory"
    repo = tmp_path / "repo"
    (repo / "packages" / "web").mkdir(parents=True)
    store = FileStore(root)
    store.replace_global("# User Preferences\n\n- Prefers short answers.\n", None)
    snap = store.create_workspace(str(repo))
    record = Record(name="build-tool", description="Packaging", type="project", body="\nelectron-builder\n")
    store.commit(snap.key, [PutOp(record=record)], snap.revision)
    host_env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DSH_HOME": str(dsh_home),
        "DSH_MEMORY_ROOT": str(tmp_path / "not-this-one"),
        "DEEPSEEK_API_KEY": "sk-" + "x" * 32,
        "GITHUB_TOKEN": "ghp_" + "y" * 36,
        "QT_QPA_PLATFORM": "offscreen",
    }
    return root, repo, host_env


def test_the_readme_overlay_finds_the_right_root_and_workspace(dsh_host: tuple[Path, Path, dict[str, str]]) -> None:
    root, repo, host_env = dsh_host
    params = bridged(repo / "packages" / "web", host_env)  # the host was started in a subdirectory
    assert params.env is not None
    assert "DSH_MEMORY_ROOT" not in params.env and "GITHUB_TOKEN" not in params.env
    assert params.env["DSH_HOME"] == host_env["DSH_HOME"]  # carried by config.env, as the README says

    async def main() -> tuple[list[str], str]:
        async with Client(params, mode="legacy", read_timeout_seconds=60, cache=None) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            return tools, text_of(await client.call_tool("memory_recall", {"query": "packaging"}))

    tools, recall = anyio.run(main)
    assert "memory_recall" in tools and "memory_update" in tools
    assert f"cwd: {repo}\n" in recall and "electron-builder" in recall and "Prefers short answers" in recall
    assert not (Path(host_env["HOME"]) / ".dsh").exists()  # the default root was never touched
    assert (root / ".manager" / "mcp-handle.key").exists()  # the handle was minted in DSH_HOME's root


def test_dsh_three_step_verification_with_two_sessions(dsh_host: tuple[Path, Path, dict[str, str]]) -> None:
    root, repo, host_env = dsh_host
    params = bridged(repo, host_env)
    drink = f"lapsang-{uuid.uuid4().hex[:8]}"

    async def session(name: str, body: Any) -> Any:
        async with Client(
            params,
            mode="2026-07-28",
            client_info=types.Implementation(name=name, version="1"),
            read_timeout_seconds=60,
            cache=None,
        ) as client:
            return await body(client)

    async def session_a(client: Client) -> dict[str, Any]:
        # "Remember that my validation drink is lapsang-…": a write tool is called and succeeds.
        h = await read_handle(client, "memory_search", {"query": "validation drink"})
        change = put(
            "validation-drink",
            "The user's validation drink",
            f"The user's validation drink is {drink}.\n\n**Why:** the user said so.\n\n**How to apply:** offer it.",
            "feedback",
        )
        return ok_json(
            await client.call_tool(
                "memory_update", {"changes": [change], "reason": "The user asked me to remember it.", "observed": h}
            )
        )

    answer = anyio.run(session, "dsh-session-a", session_a)
    assert answer["status"] == "pending_review"  # the README's overlay is review mode: the user approves
    applied = cli(root, "review", answer["proposal_id"], "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr

    async def session_b(client: Client) -> tuple[str, str]:
        # "What is my validation drink? Check memory." then "Use that preference…".
        recalled = text_of(await client.call_tool("memory_recall", {"query": "What is my validation drink?"}))
        read = text_of(await client.call_tool("memory_read", {"name": "validation-drink"}))
        return recalled, read

    recalled, read = anyio.run(session, "dsh-session-b", session_b)  # a new connection, a new process
    assert drink in recalled and drink in read
    assert "agent:dsh-session-a" in (root / "reviews" / f"{answer['proposal_id']}.md").read_text()
