"""The open flavour's stacks the image tests cover, each by a devel image fixture (conftest):
trixie (HIP 5.7, clang 17) for an RX 6800 and sid (HIP 6.4, clang 21) for an RX 9070.

* MIMICKED: the checks against NVIDIA's headers of each mimicked release (signatures, status
  codes, enums, NVML, NVTX, relocatable device code) run on both stacks, 12.4 and 13.0, on
  every run;
* OPEN_STACKS: the other checks that can differ between stacks (one stack's HIP lacks
  names, defaults and headers another has) run on trixie on every run, and on sid too with
  MOATBRIDGE_TEST_STACKS=all, which bench/stacks.py sets: CI keeps one stack's slice of the
  measurements, as it keeps a slice of the corpora.

Entries: (the target activation selects, the fixture's name)."""

import os

TRIXIE = ("gfx1030", "open_devel_gfx1030")
SID = ("gfx1201", "open_devel_sid_gfx1201")

OPEN_STACKS = (TRIXIE, SID) if os.environ.get("MOATBRIDGE_TEST_STACKS") == "all" else (TRIXIE,)

# Each stack mimicking each CUDA release with headers of its own (12.4, and 13.0 built with
# `--cuda-version 13.0`): (target, fixture, release).
MIMICKED = (
    (*TRIXIE, "12.4"),
    (*SID, "12.4"),
    ("gfx1030", "open_devel_gfx1030_cuda13", "13.0"),
    ("gfx1201", "open_devel_sid_gfx1201_cuda13", "13.0"),
)
