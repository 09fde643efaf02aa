"""A realistic demo memory root (``dsh-memory demo PATH``, and the GUI's first-run offer).

Everything is written through :class:`core.store.fs.FileStore`, so the demo is exactly what the store
produces: workspaces with English and Chinese records of all three types linked by ``[[name]]``
(one link deliberately broken), a GLOBAL.md, history from one overwrite and one delete, an archived
workspace, and one deliberately invalid file (the only thing written directly, as an agent or an
editor might) so every flag of the UI has something to show.

Project folders are created under ``<root>/demo-projects/`` so each workspace's cwd exists, except
``ml-experiments``, whose folder is left missing on purpose (the "missing cwd" flag).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.models import EMPTY_REVISION, DeleteOp, PutOp, Record, RecordType
from core.settings import AppSettings, save_settings

DEMO_PROJECTS_DIR = "demo-projects"
MISSING_PROJECT = "ml-experiments"


@dataclass(frozen=True)
class _DemoRecord:
    name: str
    type: RecordType
    description: str
    fact: str
    why: str
    how: str

    def record(self) -> Record:
        body = f"\n{self.fact}\n\n**Why:** {self.why}\n\n**How to apply:** {self.how}\n"
        return Record(name=self.name, description=self.description, type=self.type, body=body)


GLOBAL_MD = """\
# Global memory

## User Profile

- Full-stack developer; works mostly in TypeScript (React, Node) and Go, some Python for data jobs.
- Based in Shanghai (UTC+8); writes code and commit messages in English, chats in English or 中文.
- 负责两个团队的代码评审，常在晚上集中处理合并请求。

## User Preferences

- Short answers first, details on request; no emoji in code, commits or docs.
- Prefers pnpm over npm/yarn, ruff over black+flake8, and `rg` over grep.
- 解释概念时可以用中文，但代码注释和变量名一律用英文。
- Always show the exact command before running anything destructive (migrations, `rm -rf`, force pushes).
- Dates as ISO-8601 (2026-11-30), times in UTC unless the user says otherwise.

## General Tips

- Before editing a project, read its README and the workspace memory; follow the newest decision.
- Run the project's own test command (see each workspace's `build` or `testing` records), not a guess.
- 遇到不确定的配置，先问用户，不要自己猜测端口、环境变量或账号。
- Secrets live in the OS keychain or the team vault; never paste them into memory, chat or commits.
"""

ATLAS_WEB: tuple[_DemoRecord, ...] = (
    _DemoRecord(
        "build-with-pnpm",
        "feedback",
        "Use pnpm for every install and script in atlas-web; npm and yarn break the lockfile",
        "atlas-web is a pnpm workspace (`pnpm-workspace.yaml` at the root, `pnpm-lock.yaml` committed). "
        "Install with `pnpm install --frozen-lockfile`; run scripts as `pnpm run <script>`.",
        "In March an `npm install` created a second lockfile and CI resolved different versions of "
        "React Router, which broke the production build.",
        "Never run npm or yarn in this repo. If a README snippet says `npm run x`, translate it to "
        "`pnpm run x`. See [[ci-cache-setup]] for how CI caches the store.",
    ),
    _DemoRecord(
        "ci-cache-setup",
        "reference",
        "How GitHub Actions caches the pnpm store and Vite build output for atlas-web",
        "`.github/workflows/ci.yml` caches `~/.local/share/pnpm/store` keyed on the hash of "
        "`pnpm-lock.yaml`, and `node_modules/.vite` keyed on the branch. A cold CI run takes about "
        "9 minutes, a warm one about 3.",
        "Cache misses were the main reason CI felt slow; the user asked to keep it under 5 minutes.",
        "When CI is slow, check the cache step's hit/miss line first. Related: [[build-with-pnpm]].",
    ),
    _DemoRecord(
        "component-testing",
        "feedback",
        "Component tests use Vitest and Testing Library, queried by role; no snapshot tests",
        "Tests live next to components as `*.test.tsx`, run with `pnpm run test` (Vitest, jsdom). "
        "Query elements by role or label (`getByRole('button', { name: 'Save' })`), never by CSS class.",
        "Snapshot tests kept breaking on harmless markup changes and nobody read the diffs.",
        "Write behaviour tests; if a snapshot seems useful, ask the user first.",
    ),
    _DemoRecord(
        "api-error-format",
        "reference",
        "The backend returns errors as {error: {code, message}}; the client maps codes to messages",
        "Every non-2xx response from `/api/*` has the body `{\"error\": {\"code\": \"...\", "
        "\"message\": \"...\"}}`. `src/api/errors.ts` maps codes such as `conflict` and `not_found` "
        "to translated messages; unknown codes fall back to the server message.",
        "The UI used to show raw HTTP status texts, which users reported as confusing.",
        "When adding an endpoint, add its error codes to `errors.ts` and a test in `errors.test.ts`.",
    ),
)

# First version of release-process; overwritten below so its history has an entry.
RELEASE_PROCESS_V1 = _DemoRecord(
    "release-process",
    "project",
    "How atlas-web releases are cut",
    "Releases are tagged by hand on main and deployed with `pnpm run deploy`.",
    "Keeps releases predictable.",
    "Ask the user before tagging.",
)
RELEASE_PROCESS_V2 = _DemoRecord(
    "release-process",
    "project",
    "How atlas-web releases are cut: tag on main, changelog from commits, deploy after 18:00",
    "Releases are tagged `vMAJOR.MINOR.PATCH` on main; `pnpm run release` writes CHANGELOG.md from "
    "conventional commits and pushes the tag, and CI deploys the tag to production. Since 2026-10 "
    "deploys only happen after 18:00 Shanghai time.",
    "The staging cluster is shared with the data team; a daytime deploy once interrupted their "
    "batch jobs for an hour.",
    "Before tagging, check [[build-with-pnpm]] and the deploy window in [[staging-deploy-window]].",
)

# The broken link above: ``staging-deploy-window`` does not exist, so the UI marks it.

INVALID_RECORD_NAME = "e2e-playwright-idea.md"
INVALID_RECORD = b"""\
---
name: Draft Notes
description:
metadata:
  type: idea
---

Half-written note an editor saved by hand: maybe move the e2e tests to Playwright?
"""

ORDER_SERVICE: tuple[_DemoRecord, ...] = (
    _DemoRecord(
        "db-migration-rules",
        "feedback",
        "数据库迁移必须可回滚，禁止在同一个迁移里删除列",
        "订单服务用 goose 管理 PostgreSQL 迁移，文件在 `db/migrations/`。每个迁移都要写 `-- +goose Down`，"
        "删除列要分两步：先停止读写并发布，再在下一个版本的迁移里删除。",
        "去年一次直接删列的迁移在回滚时丢了数据，恢复花了半天。",
        "写迁移前先确认有 Down 部分；涉及删列或改类型时先和用户确认发布顺序。参见 [[local-dev-setup]]。",
    ),
    _DemoRecord(
        "local-dev-setup",
        "reference",
        "本地开发环境：docker compose 启动 Postgres 16 和 Redis，端口 5433/6380",
        "`docker compose up -d db redis` 启动依赖；数据库在 localhost:5433，Redis 在 localhost:6380，"
        "避免和本机已有服务冲突。`make dev` 会自动执行迁移并启动服务（端口 8081）。",
        "默认端口和用户本机的其他项目冲突过，导致测试连到了错误的数据库。",
        "跑集成测试前先 `docker compose ps` 确认依赖在运行；连接串从 `.env.example` 复制。",
    ),
    _DemoRecord(
        "payment-callback-idempotency",
        "project",
        "支付回调必须幂等：按 out_trade_no 去重，重复回调直接返回成功",
        "支付平台会重复推送回调（最多 8 次）。`internal/payment/callback.go` 先按 `out_trade_no` 查 "
        "`payment_events` 表，已处理过的直接返回 200，不再改订单状态。",
        "上线初期重复回调导致同一订单被发货两次。",
        "修改回调逻辑时保留去重检查，并补充重复回调的测试用例。相关：[[db-migration-rules]]。",
    ),
    _DemoRecord(
        "code-review-style",
        "feedback",
        "Reviews for order-service: small PRs, Go error wrapping with %w, 中文描述也可以",
        "The user wants PRs under ~300 changed lines, errors wrapped with `fmt.Errorf(\"...: %w\", err)`, "
        "and table-driven tests. PR 描述可以用中文，但要写清楚为什么改、怎么验证。",
        "Large mixed PRs were hard to review and hid a bug in the refund flow.",
        "Split work into reviewable steps and explain the why in the description.",
    ),
)
ORDER_SERVICE_DELETED = _DemoRecord(
    "old-redis-config",
    "reference",
    "旧的 Redis 配置（已废弃）",
    "Redis 以前跑在 6379 端口，并且开启了持久化。",
    "记录旧配置，方便排查历史问题。",
    "已被 [[local-dev-setup]] 取代。",
)

DESKTOP_PACKAGER: tuple[_DemoRecord, ...] = (
    _DemoRecord(
        "packaging-electron-builder",
        "project",
        "打包用了 electron-builder；macOS 公证最慢，大约十分钟",
        "Lumen Notes 桌面版用 electron-builder 打包（配置在 `electron-builder.yml`）。"
        "`pnpm run dist:mac` 会签名并提交公证，公证步骤通常要 8–12 分钟；Windows 和 Linux 包一起大约三分钟。",
        "用户问过好几次为什么打包慢：瓶颈在 Apple 的公证服务，不在本地构建。",
        "打包慢时先看是不是卡在公证；本地调试用 "
        "`pnpm run dist:mac -- --publish never -c.mac.notarize=false`。参见 [[slow-build-cause]]。",
    ),
    _DemoRecord(
        "slow-build-cause",
        "project",
        "Why the desktop build is slow: native modules rebuilt on every run",
        "`better-sqlite3` is rebuilt for Electron on every `pnpm install` because the postinstall "
        "hook runs `electron-rebuild` unconditionally; that adds about 90 seconds per build.",
        "The user measured it on 2026-11-12 while chasing a 6-minute build.",
        "Use `pnpm run rebuild:native` only when Electron or the module version changes. "
        "Related: [[packaging-electron-builder]].",
    ),
    _DemoRecord(
        "notarization-credentials",
        "reference",
        "Where the Apple notarization credentials live (keychain profile, never in the repo)",
        "Notarization uses the keychain profile `lumen-notary`, created once with "
        "`xcrun notarytool store-credentials`. CI reads the same values from the repository secrets "
        "`APPLE_ID`, `APPLE_TEAM_ID` and `APPLE_APP_PASSWORD`.",
        "An app-specific password was once committed to `.env` and had to be revoked.",
        "Reference the keychain profile or the secret names only; never write credential values here.",
    ),
)

ML_EXPERIMENTS: tuple[_DemoRecord, ...] = (
    _DemoRecord(
        "dataset-location",
        "reference",
        "Training data lives on the NAS at /mnt/nas/datasets, versioned by date folders",
        "Datasets are under `/mnt/nas/datasets/<name>/<YYYY-MM-DD>/`; the newest folder is the one "
        "to use unless an experiment config pins a date.",
        "Copying datasets into the repo filled the laptop disk twice.",
        "Read data from the NAS path; never commit data files. See [[gpu-memory-tip]].",
    ),
    _DemoRecord(
        "gpu-memory-tip",
        "feedback",
        "显存不够时先把 batch size 减半并开启梯度累积，不要换小模型",
        "在 24 GB 显卡上训练时，`batch_size=16` 会爆显存；改成 8 并设置 `grad_accum_steps=2`，效果一致。",
        "用户希望对比实验保持同一个模型规模。",
        "遇到 CUDA out of memory 先调 batch size 和梯度累积，再考虑其他办法。",
    ),
)

LEGACY_BLOG: tuple[_DemoRecord, ...] = (
    _DemoRecord(
        "hugo-version-pin",
        "reference",
        "The old blog builds only with Hugo 0.111; newer versions break the theme",
        "The PaperMod fork in `themes/` uses deprecated `.Site.Author` fields; Hugo 0.111.3 is the "
        "last version that builds it. `netlify.toml` pins `HUGO_VERSION = \"0.111.3\"`.",
        "Upgrading Hugo broke every page's byline.",
        "Keep the pin until the theme is replaced; see [[deploy-netlify]].",
    ),
    _DemoRecord(
        "deploy-netlify",
        "project",
        "博客通过 Netlify 自动部署，main 分支推送即发布",
        "推送到 main 后 Netlify 自动构建并发布，预览环境对应每个合并请求。",
        "这个博客已经停止更新，只保留存档。",
        "除非用户要求，不要再修改这个项目；它已经归档。",
    ),
)


class _DemoClock:
    """The store's clock during the build: set to a chosen day per step, ticking a second per call,
    so creation, overwrite, delete and archive times spread over weeks as real use would."""

    def __init__(self, start: datetime) -> None:
        self._start = start
        self._now = start

    def at_day(self, day: float) -> None:
        self._now = self._start + timedelta(days=day)

    def __call__(self) -> datetime:
        self._now += timedelta(seconds=1)
        return self._now


def build_demo_root(root: Path) -> None:
    """Write the demo memory root at ``root`` (a new or empty folder) through the file store."""
    from core.store.fs import FileStore

    root = Path(root)
    projects = root / DEMO_PROJECTS_DIR
    # Anchored three weeks before now: realistic dates that stay inside the history retention window.
    clock = _DemoClock(datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=21))
    store = FileStore(root, clock=clock)

    def cwd(name: str, *, create: bool = True) -> str:
        path = projects / name
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return str(path)

    def fill(cwd_path: str, records: tuple[_DemoRecord, ...]) -> str:
        snap = store.create_workspace(cwd_path)
        ops = [PutOp(record=r.record()) for r in records]
        return store.commit(snap.key, ops, snap.revision).key

    store.replace_global(GLOBAL_MD, EMPTY_REVISION)
    clock.at_day(0.2)
    blog = fill(cwd("legacy-blog"), LEGACY_BLOG)
    clock.at_day(1.1)
    atlas = fill(cwd("atlas-web"), (*ATLAS_WEB, RELEASE_PROCESS_V1))
    clock.at_day(3.4)
    orders = fill(cwd("order-service"), (*ORDER_SERVICE, ORDER_SERVICE_DELETED))
    clock.at_day(5.3)
    fill(cwd("lumen-desktop"), DESKTOP_PACKAGER)
    clock.at_day(6.6)
    fill(cwd(MISSING_PROJECT, create=False), ML_EXPERIMENTS)

    # An overwrite and a delete, so history and the Recycle Bin have entries to show and restore.
    clock.at_day(9.5)
    store.commit(atlas, [PutOp(record=RELEASE_PROCESS_V2.record())], store.read_workspace(atlas).revision)
    clock.at_day(12.2)
    store.commit(orders, [DeleteOp(name=ORDER_SERVICE_DELETED.name)], store.read_workspace(orders).revision)
    clock.at_day(15.7)
    store.recycle.archive(blog)

    # An invalid file, written directly as a hand edit would be: listed with its reasons, never rewritten.
    (root / "workspaces" / atlas / INVALID_RECORD_NAME).write_bytes(INVALID_RECORD)

    # A few finished DSH sessions to consolidate, and settings pointing the app at them, so the
    # Session Consolidation tab has something to show on the demo root.
    sessions = root / DEMO_SESSIONS_DIR
    atlas_cwd = store.read_workspace(atlas).info.cwd
    write_demo_session(sessions, atlas_cwd, "demo-session-release", "Release branch and commit style")
    write_demo_session(sessions, atlas_cwd, "demo-session-ci", "Fix the flaky CI job")
    save_settings(store, AppSettings(sessions_root=str(sessions)), EMPTY_REVISION)


DEMO_SESSIONS_DIR = "demo-sessions"

_DEMO_PROMPTS = (
    "Please remember that releases are cut from the trunk-stable branch, never from main.",
    "Can you run the test suite?",
    "I prefer small focused commits with imperative subject lines.",
    "记住：打包用 electron-builder，因为要签名。",
    # Fake, credential-shaped: shows that consolidation refuses to store secrets.
    "Remember the staging deploy token is ghp_Zx9Qk2Lm8Np4Rt6Vw1Yb3Cd5Ef7Gh9Jk0LmNp",
)


def write_demo_session(sessions_root: Path, cwd: str, session_id: str, title: str) -> Path:
    """A small DSH session log (format v1) in DSH's folder layout, last written an hour ago (stable)."""
    t0 = int(time.time() * 1000) - 2 * 3600 * 1000
    rows: list[dict[str, Any]] = [{"type": "session", "version": 1, "id": session_id, "createdAt": t0, "cwd": cwd}]
    seq = 0
    for prompt in _DEMO_PROMPTS:
        for role, text in (("user", prompt), ("assistant", "Noted.")):
            source = {"kind": "user" if role == "user" else "model"}
            message = {"role": role, "content": [{"type": "text", "text": text}], "source": source}
            kind = "user/message" if role == "user" else "assistant/message"
            rows.append({"type": kind, "seq": seq, "time": t0 + seq * 1000, "data": {"message": message}})
            seq += 1
    rows.append({"type": "session/title", "seq": seq, "time": t0 + seq * 1000, "data": {"title": title}})
    folder = sessions_root / ("--" + cwd.strip("/").replace("/", "-") + "--") / session_id
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "session.jsonl"
    log.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(log, (an_hour_ago, an_hour_ago))
    return folder
