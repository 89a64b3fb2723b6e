"""Thrust's CUDA system by its CUDA names (`thrust::cuda::par`, `thrust::cuda::pointer`,
`thrust::system::cuda::vector`, `thrust::cuda::errc`, `thrust::cuda_category`, ...) names
rocThrust's HIP system. The inventory is every public name NVIDIA's Thrust declares in its
CUDA system, read from CUDA 12.4's Thrust (Debian's libthrust-dev) and CUDA 13.0's CCCL
(PyPI's nvidia-cuda-cccl), not the names seen in code so far."""

from __future__ import annotations

import re

import pytest

from conftest import docker_run
from support import nvidia_pypi, nvidia_toolkit, thrust_names
from support.open_stacks import OPEN_STACKS

_ERROR = re.compile(r"probe\.cu:(\d+):\d+: error: (.*)")


def test_the_reader_finds_each_kind_of_declaration() -> None:
    text = """
    THRUST_NAMESPACE_BEGIN
    namespace cuda_cub { template <class T> struct pointer_impl {}; }
    namespace system { namespace cuda {
    namespace detail { using hidden = int; }
    using thrust::cuda_cub::par;  // the policy
    typedef detail::hidden memory_resource;
    template <class T> using vector = int;
    namespace errc {
    enum errc_t { success = cudaSuccess, invalid_value = cudaErrorInvalidValue };
    }
    inline void body() { using inner = int; }
    } // namespace cuda
    inline const error_category& cuda_category();
    } // namespace system
    namespace cuda { namespace errc = system::cuda::errc; }
    using system::cuda_category;
    THRUST_NAMESPACE_END
    """
    names = thrust_names.read_declarations([text])
    assert names.names == {
        "system::cuda::par", "system::cuda::memory_resource", "system::cuda::vector",
        "system::cuda::errc", "system::cuda::errc::errc_t", "system::cuda::errc::success",
        "system::cuda::errc::invalid_value", "system::cuda_category",
        "cuda::errc", "cuda_category",
    }  # fmt: skip
    assert names.namespaces == {"system::cuda::errc", "cuda::errc"}
    assert names.errc == {"success": "cudaSuccess", "invalid_value": "cudaErrorInvalidValue"}


def _inventory() -> tuple[thrust_names.ThrustCudaNames, list[str]]:
    cuda_12_4 = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    cuda_13_0 = nvidia_pypi.cccl_13_0_include()
    readings = [thrust_names.read_headers(cuda_12_4), thrust_names.read_headers(cuda_13_0)]
    headers = sorted({*thrust_names.public_headers(cuda_12_4), *thrust_names.public_headers(cuda_13_0)})
    return thrust_names.union(*readings), headers


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_every_name_of_thrusts_cuda_system_resolves(
    request: pytest.FixtureRequest, gfx: str, fixture: str
) -> None:
    inventory, headers = _inventory()
    # Thrust 2.3's and CCCL 3.0's: the policies, memory, containers, futures, errc and more.
    assert len(inventory.names) >= 90 and len(inventory.errc) >= 50, sorted(inventory.names)
    probe = thrust_names.probe(inventory, headers)
    image = str(request.getfixturevalue(fixture)["reference"])
    script = f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
mkdir -p /tmp/t && cd /tmp/t
cat > probe.cu <<'CU'
{probe.source}CU
nvcc -c -Xcompiler -ferror-limit=0 probe.cu -o probe.o
echo "nvcc rc=$?"
"""
    result = docker_run(image, script)
    assert "nvcc rc=" in result.stdout, result.stderr[-3000:]
    failed: dict[str, str] = {}
    for line in result.stderr.splitlines():
        error = _ERROR.match(line)
        if error:
            failed.setdefault(probe.line_of.get(int(error[1]), f"line {error[1]}"), error[2])
    # every name resolves, and each errc enumerator equals the CUDA error NVIDIA's gives it
    assert not failed, failed
    assert "nvcc rc=0" in result.stdout, result.stderr[-3000:]
