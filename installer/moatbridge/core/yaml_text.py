"""YAML from outside (answers files, the image catalog, licence records), loaded as plain values."""

from __future__ import annotations

from typing import Any


def safe_load(text: str) -> Any:
    """``yaml.safe_load``, but every way the text can be wrong is a ``yaml.YAMLError``.

    PyYAML makes a tagged or timestamp-looking scalar with int(), float() or datetime(), and
    text those refuse raises their own errors, not YAMLError: ``2024-99-99`` (ValueError),
    ``!!int x``, an integer of more than 4300 digits, ``!!timestamp x`` (AttributeError).
    RecursionError (nesting) is left to the caller, which says so in its own words."""
    import yaml

    try:
        return yaml.safe_load(text)
    except (ValueError, TypeError, AttributeError, OverflowError) as exc:
        raise yaml.YAMLError(f"a value YAML cannot make ({exc})") from None
