"""Secret detection: every kind is found and redacted, ordinary memory text is left alone."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.secrets import KIND_LABELS, SecretFinding, describe, find_secrets, has_secrets, redact

# Test values are assembled from pieces so this file itself doesn't look like it leaks credentials.
_HEX32 = "3f9a8b7c6d5e4f30a1b2c3d4e5f6a7b8"
_B40 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
    "-----END RSA PRIVATE KEY-----"
)

# (kind, value, sentence it appears in). ``{v}`` marks where the value goes.
CASES: list[tuple[str, str, str]] = [
    ("api-key", "sk-" + _HEX32, "DeepSeek key for the bench: {v}"),
    ("api-key", "sk-" + _HEX32, "export DEEPSEEK_API_KEY={v}"),
    ("api-key", "sk-proj-" + "Ab3dEf1234567890GhIjKlMnOpQrStUvWx_yz-0123456789abcd", "OPENAI_API_KEY={v}"),
    ("api-key", "sk-" + "Tq8v2LmN4pX7rZ1kY9wB3cD5fG6hJ0aS", "用这个密钥调用模型：{v}"),
    ("github-token", "ghp_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "git remote uses {v} for pushes"),
    ("github-token", "gho_" + "abcdefghijklmnopqrstuvwxyz0123456789", "oauth token {v}"),
    ("github-token", "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH", "PAT: {v}"),
    ("aws-access-key", "AKIA" + "IOSFODNN7EXAMPLE", "aws_access_key_id = {v}"),
    ("aws-secret-key", _B40, "aws_secret_access_key = {v}"),
    ("aws-secret-key", _B40, 'AWS_SECRET_ACCESS_KEY="{v}"'),
    ("slack-token", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "Slack bot token {v}"),
    ("slack-token", "xoxp-" + "9876543210-abcdef0123456789abcdef", "user token: {v}"),
    ("private-key", _PEM, "The deploy key:\n{v}\nRotate it yearly."),
    ("jwt", _JWT, "curl -H 'Authorization: Bearer {v}' https://api.example.com"),
    ("url-password", "s3cr3tPass", "DATABASE_URL=postgres://app:{v}@db.internal:5432/app"),
    ("url-password", "hunter22", "mirror at https://deploy:{v}@git.example.org/repo.git"),
    ("password", "hunter2024", "DB_PASSWORD={v}"),
    ("password", "hunter-2024", "DB_PASSWORD={v}"),
    ("gitlab-token", "glpat-" + "xY7kP2mQ9rT4vW1zA3bC", "GITLAB_TOKEN={v}"),
    ("api-key", "sk-ant-api03-" + "Zk2v9Qm4Tn7Xw1Lp8Rb5Hd3Jf6Gc0Ya", "ANTHROPIC_API_KEY={v}"),
    ("password", "Tr0ub4dor&3", 'password: "{v}"'),
    ("password", "Tr0ub4dor&3", "数据库密码：{v}"),
    ("stripe-key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "Stripe: {v}"),
    # Shapes that used to get through (issue 9, item 10).
    ("google-api-key", "AIza" + "SyD3fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5b", "Maps key: {v}"),
    ("huggingface-token", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "HF_TOKEN={v}"),
    ("telegram-token", "123456789:AA" + "HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", "the bot token is {v} (BotFather)"),
    ("basic-auth", "dXNlcjpodW50ZXIyMDI0", "curl -H 'Authorization: Basic {v}' https://ci.example.com"),
    ("password", "Hunter2x", "curl -u admin:{v} https://ci.example.com/api"),
    ("password", "Hunter2x", "curl --user deploy:{v} https://ci.example.com/api"),
    ("password", "S3cretPw", "mysql -u root -p{v} atlas"),
    ("password", "dbpw", "mysqldump -uroot -p{v} atlas > dump.sql"),
    # Stated in words and passed as CLI flags (issue 25, finding 5).
    ("password", "Tr0ub4dor&3xyz", "Remember: the staging DB password is {v}"),
    ("password", "Hunter2Xq!", "the pw is {v}"),
    ("password", "Xy7pq2Lm9", "the password for the staging db was {v}."),
    ("password", "correct horse battery staple", 'gpg --batch --passphrase "{v}" -c notes.txt'),
    ("password", "correct horse battery staple", 'our passphrase "{v}" unlocks the backup key'),
    ("password", "S3cretPw", "sshpass -p {v} ssh deploy@host"),
    ("password", "R3disPass9", "redis-cli -h cache.internal -a {v} ping"),
    ("password", "R3disPass9", "redis-cli --pass {v} info"),
    ("npm-token", "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "publish with {v}"),
]

# Keys split or disguised by Unicode: found after NFKC and zero-width stripping, redacted whole.
DISGUISED = [
    "sk-3f9a8b7c\u200b6d5e4f30a1b2c3d4e5f6a7b8",
    "ghp_ABCDEFGHIJ\u200dKLMNOPQRSTUVWXYZ0123456789",
    "AKIA\u2060IOSFODNN7EXAMPLE",
    "\uff53\uff4b-3f9a8b7c6d5e4f30a1b2c3d4e5f6a7b8",  # full-width "sk"
    "AIza\ufeffSyD3fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5b",
]


@pytest.mark.parametrize("value", DISGUISED)
def test_keys_split_by_zero_width_or_full_width_characters_are_found(value: str) -> None:
    text = f"# Notes\n\nkey for the bench: {value}\nnext line stays\n"
    assert find_secrets(text), value
    redacted = redact(text)
    assert "[REDACTED:" in redacted and "next line stays" in redacted
    assert value not in redacted and "bench:" in redacted


LOOK_ALIKES = [
    "git SHA 3f9a8b7c6d5e4f30a1b2c3d4e5f6a7b8c9d0e1f2 and UUID 7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "pip install sk-learn; the notes live in sk-learn-style-notes.md",
    "from huggingface_hub import hf_hub_download; hf_hub_download(repo_id='gpt2')",
    "a-very-long-kebab-case-record-name-that-goes-on-and-on-release-2024-hotfix-branch-cleanup",
    "mkdir -p build && ssh -p 2222 host && cp -pr a b",
    "curl -u $CI_USER:$CI_TOKEN https://ci.example.com",
    "curl -u user:password https://example.com is the documented form",
    "mysql -u root -p atlas   (prompts for the password)",
    "Authorization: Basic <base64 of user:pass>",
    "AIza is the prefix of Google API keys; hf_ starts Hugging Face tokens",
    "零宽\u200b空格不是密钥；全角ＡＢＣ也不是。",
    # Look-alikes of the issue-25 shapes: prose about credentials, variables, flags without values.
    "the password is stored in the vault; the token is refreshed every 24h",
    "the api key is in 1Password and the pw is on the sticky note",
    "the password for staging is the same as for production",
    "sshpass -p $SSH_PASS ssh deploy@host; redis-cli -a \"$REDIS_PASSWORD\" ping",
    "sshpass -f ~/.ssh/pass-file ssh host; redis-cli -h localhost ping",
    'type the passphrase "twice" when asked; the password "field" is required',
    "npm_config_cache and npm_package_version are environment variables, npm_lifecycle_event too",
    "the secret of fast builds is caching; the token count is 8000 per turn",
    "password: see the runbook; secret is rotated monthly",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_of_the_new_shapes_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


@pytest.mark.parametrize(("kind", "value", "sentence"), CASES)
def test_each_kind_is_found_and_redacted(kind: str, value: str, sentence: str) -> None:
    text = "# Notes\n\n" + sentence.format(v=value) + "\n"
    findings = find_secrets(text)
    line = text[: text.index(value)].count("\n") + 1
    assert SecretFinding(kind=kind, line=line) in findings, findings
    redacted = redact(text)
    assert value not in redacted
    assert f"[REDACTED:{kind}]" in redacted
    assert find_secrets(redacted) == []
    assert has_secrets(text)


def test_redaction_keeps_everything_else() -> None:
    text = "Connect to postgres://app:s3cr3tPass@db:5432/app, then `make migrate`.\n下一步：部署。"
    assert redact(text) == (
        "Connect to postgres://app:[REDACTED:url-password]@db:5432/app, then `make migrate`.\n下一步：部署。"
    )


def test_private_key_block_is_redacted_whole_and_reported_at_its_first_line() -> None:
    text = "line one\n" + _PEM + "\nline after\n"
    assert find_secrets(text) == [SecretFinding(kind="private-key", line=2)]
    assert redact(text) == "line one\n[REDACTED:private-key]\nline after\n"


def test_truncated_private_key_block_is_still_redacted() -> None:
    pem_head = "\n".join(_PEM.splitlines()[:2])
    assert find_secrets(pem_head) == [SecretFinding(kind="private-key", line=1)]
    assert "MIIEow" not in redact(pem_head)


def test_default_url_credentials_are_flagged_only_on_local_hosts() -> None:
    local = "postgres://postgres:postgres@localhost:5433/app"
    remote = "postgres://postgres:postgres@db.prod.example.com/app"
    assert find_secrets(local) == []
    assert find_secrets(remote) == [SecretFinding("url-password", 1)]
    assert redact(remote) == "postgres://postgres:[REDACTED:url-password]@db.prod.example.com/app"


def test_jwt_signature_is_redacted_too() -> None:
    assert redact(f"token {_JWT} end") == "token [REDACTED:jwt] end"


def test_overlapping_detections_are_one_finding_named_by_the_most_specific_kind() -> None:
    ghp = "ghp_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    text = f"GITHUB_TOKEN={ghp}\nclone https://bot:{ghp}@github.com/org/repo.git"
    assert find_secrets(text) == [
        SecretFinding(kind="github-token", line=1),
        SecretFinding(kind="github-token", line=2),
    ]
    assert ghp not in redact(text)


def test_several_secrets_on_several_lines_sorted_by_line() -> None:
    text = "\n".join(
        [
            "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE",
            "nothing here",
            "key: sk-" + _HEX32,
        ]
    )
    findings = find_secrets(text)
    assert findings == [SecretFinding("aws-access-key", 1), SecretFinding("api-key", 3)]
    assert describe(findings) == ("line 1: AWS access key", "line 3: API key")


def test_describe_drops_duplicates_and_never_shows_values() -> None:
    findings = [SecretFinding("password", 2), SecretFinding("password", 2), SecretFinding("jwt", 4)]
    assert describe(findings) == ("line 2: password or secret value", "line 4: JSON web token")
    assert all(kind in KIND_LABELS for kind, _, _ in CASES)


# A realistic memory corpus: English and Chinese, kebab names, SHAs, UUIDs, env var names, URLs,
# versions, ports, digests, public keys, and prose that talks *about* passwords and tokens.
CORPUS = """\
---
name: release-checklist
description: How releases of atlas-web are cut and verified
metadata:
  type: project
---

Releases are tagged v2.14.0 style; the tag commit 3f9a8b7c6d5e4f30a1b2c3d4e5f6a7b8c9d0e1f2 is what CI builds.
Fixed in 9e1c2d3 (short SHA), cherry-picked to release/2.13 as a1b2c3d4e5f60718293a4b5c6d7e8f9012345678.
Request ids look like 123e4567-e89b-12d3-a456-426614174000 and appear in every log line.
The API key comes from the DEEPSEEK_API_KEY environment variable; apiKeyEnv: DEEPSEEK_API_KEY in settings.
Never paste the token into chat. The password reset flow lives in auth/reset-password.ts.
password: ask the on-call engineer, it is in 1Password under "staging db".
token budget: 8000 tokens per turn; max_tokens: 4096 for summaries.
Secrets come from the vault agent at https://vault.internal:8200/v1/secret/data/atlas.
Redis runs at redis://localhost:6379/0 and Postgres at postgres://localhost:5433/atlas_test.
Clone with git@github.com:acme/atlas-web.git or https://github.com/acme/atlas-web.
Docker image pinned by digest sha256:9b2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809.
Deploy public key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@acme.
Use kebab names like sk-learn-style-notes, task-runner-config and electron-builder-macos-notarize.
Files begin with -----BEGIN OPENSSH PRIVATE KEY----- when they hold a key; never commit such a file.
Rotate the AWS keys in ~/.aws/credentials every 90 days (aws_secret_access_key lives there).
JWTs from the identity service expire after 15 minutes; refresh via /oauth/token.
Node 20.11.1, pnpm@9.1.0, Python 3.11.7, PySide6 6.7.2; port 8080; build 2026-11-30T09:00:00Z.
The secret_key_base is rotated by the ops team. client_secret: see the team vault.
JavaScriptObjectNotation and XMLHttpRequest are not secrets; neither is ABCDEFGHIJKLMNOP.
Hex color #1a2b3c, base64 of "hello" is aGVsbG8=, and the checksum is 0x7f3a9c21.

**Why:** 上次发布漏掉了迁移脚本，导致生产数据库回滚。

**How to apply:** 发布前先跑 `pnpm run release:check`，密码和令牌从 vault 读取，不要写进仓库。
用户的偏好：回答简短，用中文解释，代码和提交信息用英文。
打包用了 electron-builder，macOS 公证大约十分钟；构建缓存放在 ~/.cache/electron-builder。
数据库连接串在 DATABASE_URL 环境变量里，格式为 postgres://user:password@host:5432/db。
提交 3f9a8b7 修复了登录页的令牌刷新问题。会话 id：7c9e6679-7425-40de-944b-e07fc1f90ae7。
See [[deploy-window]] and [[staging-cluster-shared]] for the related rules.
"""


def test_no_false_positives_on_a_realistic_memory_corpus() -> None:
    assert find_secrets(CORPUS) == []
    assert redact(CORPUS) == CORPUS


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n\n",
        "password",
        "password:",
        "password = ",
        "api_key: ${DEEPSEEK_API_KEY}",
        'secret = os.environ["APP_SECRET"]',
        "token: <your token here>",
        "password: ********",
        "https://user:password@example.com is the documented placeholder form",
        "git SHA 0123456789abcdef0123456789abcdef01234567",
        "UUID 550e8400-e29b-41d4-a716-446655440000",
        "a-very-long-kebab-case-record-name-that-goes-on-and-on",
        "记住：用户喜欢用 pnpm，不要用 npm。",
        "secret: vault-kv/v2/atlas",
        "token: gpt-4o-mini counts differently",
        "model: deepseek-v4-flash, api_key: deepseek-v4-pro",
        "local db: postgres://postgres:postgres@localhost:5433/app_test",
        "redis://default:default@127.0.0.1:6379/0",
    ],
)
def test_no_false_positives_on_edge_cases(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


def test_text_where_lowercasing_changes_length_still_works() -> None:
    # "İ".lower() is two code points: the fast lower-cased search must not shift the offsets.
    text = "İİİ DB_PASSWORD=hunter2024 İ"
    assert redact(text) == "İİİ DB_PASSWORD=[REDACTED:password] İ"


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_never_crashes_on_any_text(text: str) -> None:
    findings = find_secrets(text)
    lines = text.count("\n") + 1
    assert all(1 <= f.line <= lines for f in findings)
    out = redact(text)
    assert (out == text) == (not findings)
    describe(findings)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(), st.sampled_from(CASES), st.text())
def test_a_known_secret_is_redacted_whatever_lines_surround_it(
    before: str, case: tuple[str, str, str], after: str
) -> None:
    _, value, sentence = case
    text = f"{before}\n{sentence.format(v=value)}\n{after}"
    assert find_secrets(text)
    assert value not in redact(text) or value in before or value in after


def test_scanning_never_consults_detect_secrets_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    # Settings are where detect-secrets keeps baselines, filters and network verification; the
    # scan uses plugin regexes directly and must not depend on (or trigger) any of that.
    import detect_secrets.settings

    def refuse() -> None:
        raise AssertionError("detect-secrets settings were consulted")

    monkeypatch.setattr(detect_secrets.settings, "get_settings", refuse)
    text = "\n".join(sentence.format(v=value) for _, value, sentence in CASES)
    assert {f.kind for f in find_secrets(text)} == {kind for kind, _, _ in CASES}


@pytest.mark.parametrize(
    "text",
    [
        "eyJ" * 40_000,  # detect-secrets' JWT regex alone is quadratic on this
        "-----BEGIN RSA PRIVATE KEY-----\n" * 5_000,  # BEGIN markers with no END
        "-----BEGIN RSA PRIVATE KEY-----" + "\n    " * 20_000 + "x",
        "://a:b@" * 10_000,
        "password=" * 20_000,
    ],
    ids=["eyJ-run", "begin-no-end", "blank-lines", "many-urls", "many-keywords"],
)
def test_adversarial_long_inputs_are_scanned_in_linear_time(text: str) -> None:
    # No timing assert: a quadratic regression turns this into a multi-minute test and a timeout.
    redact(text)
    find_secrets(text)
