"""Other stores' Markdown parsed plainly (python-frontmatter's YAML handler): the header is for programs."""

from __future__ import annotations

import pytest

from core.sources.claude_code import parse_topic
from core.sources.markdown import body_of
from core.sources.project_memory import split_entries


def test_a_yaml_header_is_left_out_of_the_body_and_anything_else_is_text() -> None:
    assert body_of("---\nupdated: 2026-01-02\n---\n\nThe summary.\n") == "The summary.\n"
    assert body_of("---\r\nupdated: x\r\n---\r\nCRLF summary\r\n") == "CRLF summary\n"
    assert body_of("+++\ntitle = 'toml'\n+++\nText\n") == "+++\ntitle = 'toml'\n+++\nText\n"
    assert body_of("---\nnever closed\n") == "---\nnever closed\n"
    assert split_entries("---\nlayer: core\n---\n- first\n- second\n") == ["first", "second"]


def test_a_claude_code_topic_file_gives_its_fields_and_body_or_a_reason() -> None:
    meta, body = parse_topic("---\r\nname: tea\r\ntype: user\r\n---\r\n\r\nLikes green tea.\r\n")
    assert meta == {"name": "tea", "type": "user"} and body == "Likes green tea.\n"
    with pytest.raises(ValueError, match="no frontmatter"):
        parse_topic("Just text\n")
    with pytest.raises(ValueError, match="never closed"):
        parse_topic("---\nname: tea\n")
    with pytest.raises(ValueError, match=r"not valid YAML \(line 3\)"):
        parse_topic("---\nname: [tea\n---\nbody\n")
    with pytest.raises(ValueError, match="not a mapping"):
        parse_topic("---\n- tea\n---\nbody\n")
