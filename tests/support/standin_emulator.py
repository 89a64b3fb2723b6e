"""A STAND-IN for AMD's GPU emulator (rocjitsu), for testing how moatbridge wires one in:
no GPU is emulated. It has the real one's installed layout (bin/rocjitsu, lib/librocjitsu.so,
share/rocjitsu/configs/*.json with the real profile fields) and its command line
(`rocjitsu --config PROFILE -- APP ARGS`). Run, it checks what the real CLI relies on and
reports it on stderr, then execs APP as the real one does after setting LD_PRELOAD:

- its library is where the real CLI looks (../lib beside its own directory);
- the profile it was given is a readable GPU profile, and which gfx it describes;
- no variable that would make the runtime take the GPU for another is set;
- no real GPU device node was passed into the container.

The profiles carry only the fields moatbridge reads (rocjitsu's real ones have many more).
"""

from __future__ import annotations

import json
from pathlib import Path

STANDIN_CLI = r"""#!/bin/sh
# STAND-IN emulator for moatbridge's tests: checks its wiring, emulates nothing.
if [ "${1:-}" = --version ]; then echo "rocjitsu 0.2.0-standin"; exit 0; fi
[ "${1:-}" = --config ] || { echo "standin: usage: rocjitsu --config CFG -- APP" >&2; exit 1; }
config=$2; shift 2
[ "${1:-}" = -- ] || { echo "standin: no -- before the application" >&2; exit 1; }
shift
lib=$(cd "$(dirname "$0")/../lib" 2>/dev/null && pwd)/librocjitsu.so  # canonical, as the real one's
[ -f "$lib" ] || { echo "standin: no library at $lib" >&2; exit 1; }
[ -r "$config" ] || { echo "standin: cannot read the profile $config" >&2; exit 1; }
version=$(sed -n 's/.*"gfx_target_version": *\([0-9]*\).*/\1/p' "$config" | head -n 1)
for var in HSA_OVERRIDE_GFX_VERSION ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES; do
    eval "set_=\${$var+set}"
    if [ -n "$set_" ]; then echo "standin: $var is set" >&2; exit 1; fi
done
devices=none
if [ -e /dev/kfd ]; then devices=kfd; fi
echo "standin-emulator: config=$config target_version=$version devices=$devices" >&2
LD_PRELOAD=$lib${LD_PRELOAD:+:$LD_PRELOAD}
export LD_PRELOAD
exec "$@"
"""


def profile(gfx_target_version: int, name: str) -> str:
    return json.dumps(
        {"max_ticks": 100000, "vm": {"arch": "rdna3", "gpu": {"device": {
            "gfx_target_version": gfx_target_version, "marketing_name": name, "wave_front_size": 32}}}},
        indent=2,
    )  # fmt: skip


def standin_emulator(prefix: Path, cli: str = "rocjitsu") -> Path:
    """Lay the stand-in out under ``prefix``; returns its CLI."""
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    configs = prefix / "share" / "rocjitsu" / "configs"
    configs.mkdir(parents=True)
    # Not an ELF object: the loader reports it and goes on. The stand-in is never preloaded
    # into a GPU program, only into the test's own commands.
    (prefix / "lib" / "librocjitsu.so").write_bytes(b"")
    (configs / "gfx1100_w7900.json").write_text(profile(110000, "AMD Radeon Pro W7900"))
    (configs / "gfx1201_r9700.json").write_text(profile(120001, "AMD Radeon AI PRO R9700"))
    (configs / "gfx942_cdna3.json").write_text(profile(90402, "AMD Instinct MI300X"))
    (configs / "guest_gfx950_on_gfx942.json").write_text(
        json.dumps({"dbt_guest": {"enabled": True, "guest_isa": "gfx950", "host_isa": "gfx942"}})
    )
    (configs / "README.txt").write_text("not a profile\n")
    path = prefix / "bin" / cli
    path.write_text(STANDIN_CLI)
    path.chmod(0o755)
    return path
