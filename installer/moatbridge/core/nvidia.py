"""NVIDIA procfs formats and a name -> compute capability table (pure)."""

from __future__ import annotations

import re

from moatbridge.core.model import Gpu

_VERSION_RE = re.compile(r"\b(\d+\.\d+(?:\.\d+)?)\b", re.ASCII)


def parse_driver_version(text: str) -> tuple[str | None, bool | None]:
    """``/proc/driver/nvidia/version`` line 1 -> (version, is the open kernel module)."""
    first = text.splitlines()[0] if text.strip() else ""
    if not first.startswith("NVRM version:"):
        return None, None
    match = _VERSION_RE.search(first.split(":", 1)[1])
    return (match.group(1) if match else None), ("Open Kernel Module" in first)


def parse_gpu_information(text: str) -> dict[str, str]:
    """``/proc/driver/nvidia/gpus/<slot>/information``: ``Label: <tabs/spaces> value``."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        label, sep, value = line.partition(":")
        if sep:
            out[label.strip()] = value.strip()
    return out


# Ordered: the first pattern that matches the model name wins. From NVIDIA's
# "CUDA GPUs" table; a file-only stand-in for NVML's compute-capability query.
_CC_BY_MODEL: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), cc)
    for pattern, cc in (
        (r"\bRTX (PRO )?50\d0|RTX PRO \d000 Blackwell", "12.0"),
        (r"\bB200\b|\bGB200\b|\bB100\b", "10.0"),
        (r"\bH100\b|\bH200\b|\bH800\b|\bGH200\b", "9.0"),
        (r"\bRTX 40\d0|\bL4\b|\bL40S?\b|RTX \d000 Ada|\bAD10\d", "8.9"),
        (r"\bRTX 30\d0|\bA10G?\b|\bA40\b|\bA16\b|\bA2\b|RTX A\d000|\bGA10[2-7]", "8.6"),
        (r"\bA100\b|\bA30\b|\bA800\b|\bGA100\b", "8.0"),
        (r"\bRTX 20\d0|\bGTX 16\d0|\bT4\b|Quadro RTX|\bTU10\d|\bTU11\d", "7.5"),
        (r"\bV100\b|TITAN V\b|\bGV100\b", "7.0"),
        (r"\bGTX 10\d0|TITAN Xp|\bP40\b|\bP4\b|\bGP10[2-8]", "6.1"),
        (r"\bP100\b|\bGP100\b", "6.0"),
    )
)


def compute_capability_from_name(name: str | None) -> str | None:
    if not name:
        return None
    for pattern, cc in _CC_BY_MODEL:
        if pattern.search(name):
            return cc
    return None


def sm_target(compute_capability: str | None) -> str | None:
    """CUDA's target name for a compute capability ("8.9" -> "sm_89"); None for None."""
    return f"sm_{compute_capability.replace('.', '')}" if compute_capability else None


def gpu_target(gpu: Gpu) -> str | None:
    """The target a GPU's code is built for: its gfxNNNN (AMD) or sm_NN (NVIDIA); None: unknown."""
    return gpu.gfx_target or sm_target(gpu.compute_capability)
