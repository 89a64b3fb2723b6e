"""What a linked CUDA program's device code defines, against what its host code registers.

The HIP runtime finds each `__device__`/`__constant__`/`__managed__` variable the host
registers by name in the device code object; a name the code object lacks fails at run
time (hipErrorInvalidSymbol, or an abort for managed ones). So a link is right when every
registered name is a global object in every target's code object: checkable without a GPU."""

from __future__ import annotations

import re

# A bash script for the image (the toolkit's LLVM tools on PATH after activation): `$1` is the
# program. Prints each target's global data symbols and the host's registered names.
LISTING_SCRIPT = r"""
program=$1
scratch=$(mktemp -d)
llvm-objcopy --dump-section=.hip_fatbin="$scratch/fatbin" "$program" /dev/null
for target in $(clang-offload-bundler --list -type=o -input="$scratch/fatbin" | grep '^hipv4-'); do
    clang-offload-bundler -type=o -targets="$target" -input="$scratch/fatbin" -output="$scratch/code" -unbundle
    echo "== target $target"
    llvm-readelf -s "$scratch/code" | awk '$4 == "OBJECT" && $5 == "GLOBAL" { print $8 }' | sort -u
done
echo "== host"
llvm-strings "$program" | sort -u
rm -rf "$scratch"
"""


def parse_listing(text: str) -> tuple[dict[str, set[str]], set[str]]:
    """(each target's global objects, every string of the host program) from the script's output."""
    targets: dict[str, set[str]] = {}
    host: set[str] = set()
    current: set[str] | None = None
    for line in text.splitlines():
        if line.startswith("== target "):
            current = targets.setdefault(line.removeprefix("== target "), set())
        elif line == "== host":
            current = host
        elif current is not None and line:
            current.add(line)
    return targets, host


def externalized_names(host_strings: set[str]) -> set[str]:
    """The names clang gives host-used internal-linkage device variables, as the host
    registers them (`_ZL7c_Table.static.<unit hash>`, and `.managed` for managed ones)."""
    pattern = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.static\.[0-9a-f]{1,16}(\.managed)?")
    return {name for name in host_strings if pattern.fullmatch(name)}
