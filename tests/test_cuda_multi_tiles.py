"""Cooperative-groups tiles larger than a warp (moatbridge/cg_multi_tile.h) through the open
toolkit's nvcc, per stack: trixie (HIP 5.7, clang 17) for gfx1030 and sid (HIP 6.4, clang 21)
for gfx1201, both wave32, where even a 64-thread tile spans two wavefronts.

NVIDIA's real header is the oracle for the API: every public member of its multi-warp tile
classes is called on ours, so a member CUDA adds and we lack fails the compile. Compile and
code-generation checks only: the machine has no GPU (the corpus program multi_warp_tiles.cu
verifies results when one is there).
"""

from __future__ import annotations

import re

import pytest

from conftest import docker_run
from support import nvidia_toolkit
from support.open_stacks import OPEN_STACKS

# How to call each member of a multi-warp tile `tile` (value `v`, an int).
_CALLS = {
    "thread_rank": "tile.thread_rank()",
    "num_threads": "tile.num_threads()",
    "size": "tile.size()",
    "meta_group_rank": "tile.meta_group_rank()",
    "meta_group_size": "tile.meta_group_size()",
    "sync": "(tile.sync(), 0u)",
    "shfl": "tile.shfl(v, 1u)",
    "any": "tile.any(v > 0)",
    "all": "tile.all(v > 0)",
}
# the classes of NVIDIA's cooperative_groups.h that make up thread_block_tile<N> for N > 32
_NVIDIA_CLASSES = (
    "__static_size_tile_base",
    "__static_size_multi_warp_tile_base",
    "__static_parent_thread_block_tile_base",
)


def nvidia_multi_warp_members(text: str) -> set[str]:
    """The public member functions of the classes a multi-warp thread_block_tile derives from."""
    members: set[str] = set()
    for name in _NVIDIA_CLASSES:
        start = re.search(rf"\nclass {name}\b[^;{{]*\{{", text)
        assert start is not None, name
        body = text[start.end() : text.index("\n};", start.end())]
        for section in re.split(r"\n\s*public:", body)[1:]:
            public = re.split(r"\n\s*(?:private|protected):", section)[0]
            members |= set(re.findall(r"_CG_\w*QUALIFIER\s+(?:[\w:<>]+\s+)+?(\w+)\s*\(", public))
    return members


def test_reading_nvidias_members() -> None:
    text = (
        "\nclass __static_size_tile_base\n{\nprotected:\n    _CG_QUALIFIER int hidden() {}\npublic:\n"
        "    _CG_STATIC_CONSTEXPR_QUALIFIER unsigned int num_threads() {\n    }\n};\n"
        "\nclass __static_size_multi_warp_tile_base : public __static_size_tile_base<Size>\n{\n"
        "public:\n    template <typename TyVal>\n    _CG_QUALIFIER TyVal shfl(TyVal val) const {}\n"
        "private:\n    _CG_QUALIFIER void secret() const {}\n};\n"
        "\nclass __static_parent_thread_block_tile_base\n{\npublic:\n"
        "    _CG_STATIC_QUALIFIER unsigned int meta_group_rank() {}\n};\n"
    )
    assert nvidia_multi_warp_members(text) == {"num_threads", "shfl", "meta_group_rank"}


@pytest.fixture(scope="module")
def member_calls() -> str:
    include = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    members = nvidia_multi_warp_members((include / "cooperative_groups.h").read_text(encoding="utf-8"))
    assert {"shfl", "sync", "meta_group_rank", "num_threads"} <= members
    missing = members - set(_CALLS)
    assert not missing, f"NVIDIA's multi-warp tiles have members this test does not call: {missing}"
    return " + ".join(_CALLS[name] for name in sorted(members))


# Every multi-wavefront size, with and without its parent type, tiles of tiles, and the
# one-wavefront tiles (32, 16) through the same reduce/scan entry points.
_API = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
static_assert(sizeof(cg::block_tile_memory<256>) <= 8, "the scratch holds nothing, as on sm_80+");

template <unsigned int N, class Tile> __device__ unsigned int members(const Tile& tile, int v) {
    return MEMBER_CALLS;
}

template <unsigned int N> __device__ void use(cg::thread_block block, float* f, double* d, int* out) {
    auto tile = cg::tiled_partition<N>(block);
    cg::thread_block_tile<N> erased = tile;
    const int v = out[block.thread_rank()];
    unsigned int r = members<N>(tile, v) + members<N>(erased, v);
    cg::sync(tile);
    r += cg::reduce(tile, v, cg::plus<int>()) + cg::reduce(erased, v, cg::bit_xor<int>());
    r += cg::reduce(tile, v, [](int a, int b) { return a < b ? a : b; });
    f[0] = cg::reduce(tile, f[1], cg::greater<float>()) + cg::inclusive_scan(tile, f[2]);
    d[0] = cg::exclusive_scan(tile, d[1]) + cg::exclusive_scan(erased, d[2], cg::less<double>());
    out[0] = static_cast<int>(r + cg::thread_rank(tile) + cg::group_size(tile));
}

__global__ void all_sizes(float* f, double* d, int* out) {
    __shared__ cg::block_tile_memory<1024> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    use<64>(block, f, d, out);
    use<128>(block, f, d, out);
    use<256>(block, f, d, out);
    use<512>(block, f, d, out);
    use<1024>(block, f, d, out);
    auto big = cg::tiled_partition<512>(block);
    auto part = cg::tiled_partition<128>(big);
    cg::thread_block_tile<128, cg::thread_block_tile<512, cg::thread_block>> typed = part;
    out[1] = cg::reduce(part, out[2], cg::plus<int>()) + typed.meta_group_rank() * 100 + part.meta_group_size();
    auto warp = cg::tiled_partition<32>(block);
    auto quarter = cg::tiled_partition<16>(block);
    out[3] = cg::reduce(warp, out[4], cg::plus<int>()) + cg::inclusive_scan(quarter, out[5]) +
             warp.shfl_down(out[6], 1) + quarter.shfl_xor(out[7], 2) + warp.meta_group_rank();
}
"""

_TOO_BIG = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
struct wide { double a, b; };
struct add { __device__ wide operator()(wide x, wide y) const { return {x.a + y.a, x.b + y.b}; } };
__global__ void k(wide* w) {
    auto tile = cg::tiled_partition<128>(cg::this_thread_block());
    w[0] = cg::reduce(tile, w[1], add());
}
"""

_NO_WARP_SHUFFLES = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
    auto tile = cg::tiled_partition<256>(cg::this_thread_block());
    out[0] = tile.shfl_down(out[1], 1);
}
"""

# Two tile syncs, the code to look at: a tile barrier of shared-memory atomics, no block
# barrier of its own (the one there is tiled_partition's sync of the block, as many barrier
# instructions as the one __syncthreads of the reference kernel: gfx12 splits it in two).
_SYNC_ONLY = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
    auto tile = cg::tiled_partition<128>(cg::this_thread_block());
    out[threadIdx.x] = 1;
    tile.sync();
    out[threadIdx.x + 1] += 1;
    tile.sync();
    out[threadIdx.x + 2] += 2;
}
"""
_ONE_SYNCTHREADS = r"""
__global__ void k(int* out) {
    out[threadIdx.x] = 1;
    __syncthreads();
    out[threadIdx.x + 1] += 1;
}
"""


def _script(gfx: str, calls: str) -> str:
    return f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
set -u
mkdir -p /tmp/t && cd /tmp/t
cat > api.cu <<'CU'
{_API.replace("MEMBER_CALLS", calls)}
CU
cat > too_big.cu <<'CU'
{_TOO_BIG}
CU
cat > no_shuffles.cu <<'CU'
{_NO_WARP_SHUFFLES}
CU
cat > sync.cu <<'CU'
{_SYNC_ONLY}
CU
nvcc -std=c++17 -c api.cu -o api.o && echo "api: ok"
nvcc -std=c++14 -c api.cu -o api14.o && echo "api c++14: ok"
nvcc -c too_big.cu -o too_big.o > too_big.log 2>&1; echo "too_big: $?"; grep -c "8 bytes or less" too_big.log
nvcc -c no_shuffles.cu -o no_shuffles.o > no_shuffles.log 2>&1; echo "no_shuffles: $?"
grep -c "no member named 'shfl_down'" no_shuffles.log
cat > ref.cu <<'CU'
{_ONE_SYNCTHREADS}
CU
mkdir -p keep-sync keep-ref
(cd keep-sync && nvcc -c -keep ../sync.cu -o sync.o > /dev/null 2>&1); echo "sync: $?"
(cd keep-ref && nvcc -c -keep ../ref.cu -o ref.o > /dev/null 2>&1); echo "ref: $?"
asm=$(ls keep-sync/*{gfx}*.s | head -1); ref=$(ls keep-ref/*{gfx}*.s | head -1)
echo "ds_or: $(grep -c 'ds_or_rtn_b32' "$asm")"
echo "s_sleep: $(grep -c 's_sleep' "$asm")"
echo "barriers: $(grep -c '^[[:space:]]*s_barrier' "$asm") $(grep -c '^[[:space:]]*s_barrier' "$ref")"
"""


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_multi_warp_tiles_compile_with_cudas_api(
    request: pytest.FixtureRequest, member_calls: str, gfx: str, fixture: str
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    result = docker_run(image, _script(gfx, member_calls))
    assert result.returncode == 0, result.stderr[-4000:]
    lines = result.stdout.splitlines()
    assert "api: ok" in lines and "api c++14: ok" in lines, result.stdout + result.stderr[-4000:]
    # what CUDA refuses on these tiles is refused here, with CUDA's reason
    assert lines[lines.index("too_big: 1") + 1] != "0", result.stdout
    assert lines[lines.index("no_shuffles: 1") + 1] != "0", result.stdout
    # the tile's own barrier is shared-memory atomics, not the block's s_barrier
    facts = dict(line.split(": ", 1) for line in lines if ": " in line)
    assert facts["sync"] == "0" and facts["ref"] == "0", result.stdout
    assert int(facts["ds_or"]) >= 2 and int(facts["s_sleep"]) >= 1, result.stdout
    tile_barriers, one_syncthreads = facts["barriers"].split()
    assert tile_barriers == one_syncthreads != "0", result.stdout
