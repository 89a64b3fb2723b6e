"""The open flavour's stacks the image tests cover, each by a devel image fixture (conftest):
trixie (HIP 5.7, clang 17) for an RX 6800 and sid (HIP 6.4, clang 21) for an RX 9070. One
stack's HIP lacks names, defaults and headers another has, so checks that can differ run on
both: (the target activation selects, the fixture's name)."""

OPEN_STACKS = (("gfx1030", "open_devel_gfx1030"), ("gfx1201", "open_devel_sid_gfx1201"))

# Each of them mimicking each CUDA release with headers of its own (12.4, and 13.0 built with
# `--cuda-version 13.0`): (target, fixture, release).
MIMICKED = (
    *((gfx, fixture, "12.4") for gfx, fixture in OPEN_STACKS),
    ("gfx1030", "open_devel_gfx1030_cuda13", "13.0"),
    ("gfx1201", "open_devel_sid_gfx1201_cuda13", "13.0"),
)
