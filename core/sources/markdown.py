"""Other programs' Markdown with a YAML header, parsed plainly with python-frontmatter.

Only YAML headers (``---``): python-frontmatter would also take a first line ``+++`` (TOML) or ``{``
(JSON) as a header, which in these stores is just text. Nothing here is written back, so none of
the record parser's round-trip care (core/records.py) applies.
"""

from __future__ import annotations

import contextlib

from frontmatter.default_handlers import YAMLHandler

YAML_HEADER = YAMLHandler()


def body_of(text: str) -> str:
    """``text`` without its YAML header (when it has a closed one); the header is for programs."""
    text = text.replace("\r\n", "\n")
    if YAML_HEADER.detect(text):
        with contextlib.suppress(ValueError):  # never closed: the whole text is the body
            return YAML_HEADER.split(text)[1].lstrip("\n")
    return text
