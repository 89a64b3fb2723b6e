"""The stack x target table in docs/images.md is the catalog's, not a hand-kept copy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "images.md"


def test_the_docs_coverage_table_is_generated_from_the_catalog() -> None:
    text = DOCS.read_text()
    begin, end = "<!-- stacks-table:begin -->\n", "<!-- stacks-table:end -->"
    documented = text[text.index(begin) + len(begin) : text.index(end)]
    generated = subprocess.run(
        [sys.executable, "-m", "moatbridge", "image", "stacks", "--markdown"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    assert documented == generated, "regenerate: moatbridge image stacks --markdown"
    assert "| gfx1201 | RDNA4 | - |" in generated  # trixie's clang-17 cannot build RDNA4


def test_image_stacks_json_lists_every_stack_with_its_library_targets() -> None:
    import json

    out = subprocess.run(
        [sys.executable, "-m", "moatbridge", "image", "stacks", "--json"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    rows = {row["distro"]: row for row in json.loads(out)["stacks"]}
    assert list(rows) == ["trixie", "sid", "experimental"]
    assert "gfx1201" in rows["experimental"]["library_targets"]
    assert "gfx1201" not in rows["sid"]["library_targets"]
    assert rows["trixie"]["valid_until_checked"] is True and rows["sid"]["valid_until_checked"] is False
    assert "gfx12-generic" in rows["sid"]["components"]["rocsolver"]
