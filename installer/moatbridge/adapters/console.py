"""Terminal output: JSON for machines, rich tables for people."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def stdout_console() -> Console:
    from rich.console import Console  # heavy: only for human output

    return Console(highlight=False, soft_wrap=False)
