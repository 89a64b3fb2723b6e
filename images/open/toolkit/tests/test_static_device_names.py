"""Internal-linkage device variables under relocatable device code: the bitcode repair that
binds a kernel's references to its unit's externalized variables, and where the driver runs
it. tests/test_relocatable_device_code.py builds and links a CMake project that needs it."""

from __future__ import annotations

from cudacompat.nvcc import main, options, plan, static_names
from cudacompat.nvcc.config import ToolkitConfig

CONFIG = ToolkitConfig(
    root="/opt/moatbridge/targets/gfx1201", gfx="gfx1201", cuda_version="12.4.131", mimic_cc=86
)

# The shape clang -fgpu-rdc writes when a kernel reads `static __constant__ float c_Table[4]`
# and `static __device__ float d_Data[4]` above the host function that copies to them.
UNIT = """\
@d_ext = protected addrspace(1) externally_initialized global [4 x float] zeroinitializer, align 16
@_ZL7c_Table = external local_unnamed_addr addrspace(4) global [4 x float], align 16
@_ZL6d_Data = external hidden local_unnamed_addr addrspace(1) global [4 x float], align 16
@d_other = external protected local_unnamed_addr addrspace(1) global [4 x float], align 16
@_ZL7c_Table.static.9303213bca231b5f = addrspace(4) externally_initialized constant [4 x float] zeroinitializer, align 16
@_ZL6d_Data.static.9303213bca231b5f = addrspace(1) externally_initialized global [4 x float] zeroinitializer, align 16
@"odd name" = external addrspace(1) global i32, align 4
@"odd name.static.9303213bca231b5f" = addrspace(1) externally_initialized global i32 0, align 4
@_ZL7c_TableX = external addrspace(1) global i32, align 4

define protected amdgpu_kernel void @_Z1kPf(ptr addrspace(1) %0) {
  %2 = getelementptr inbounds [4 x float], ptr addrspace(4) @_ZL7c_Table, i64 0, i64 1
  %3 = getelementptr inbounds [4 x float], ptr addrspace(1) @_ZL6d_Data, i64 0, i64 1
  %4 = load i32, ptr addrspace(1) @"odd name", align 4
  %5 = load i32, ptr addrspace(1) @_ZL7c_TableX, align 4
  %6 = getelementptr inbounds [4 x float], ptr addrspace(1) @d_other, i64 0, i64 1
  ret void
}
@llvm.compiler.used = appending addrspace(1) global [1 x ptr] [ptr addrspacecast (ptr addrspace(4) @_ZL7c_Table.static.9303213bca231b5f to ptr)], section "llvm.metadata"
"""


def test_references_to_a_unit_variable_bind_to_its_externalized_definition() -> None:
    bound = static_names.bind_externalized_statics(UNIT)
    assert "@_ZL7c_Table = external" not in bound and "@_ZL6d_Data = external" not in bound
    assert "ptr addrspace(4) @_ZL7c_Table.static.9303213bca231b5f, i64 0, i64 1" in bound
    assert "ptr addrspace(1) @_ZL6d_Data.static.9303213bca231b5f, i64 0, i64 1" in bound
    assert '@"odd name.static.9303213bca231b5f", align 4' in bound
    assert '@"odd name" = external' not in bound
    # definitions are untouched, each still defined once
    assert bound.count("@_ZL7c_Table.static.9303213bca231b5f = addrspace(4)") == 1
    assert bound.count("@_ZL6d_Data.static.9303213bca231b5f = addrspace(1)") == 1


def test_other_external_names_stay_as_they_are() -> None:
    bound = static_names.bind_externalized_statics(UNIT)
    # defined in another unit (extern __device__): the device link resolves it
    assert "@d_other = external protected" in bound and "ptr addrspace(1) @d_other, i64 0" in bound
    # a longer name with the same start is a different variable
    assert "@_ZL7c_TableX = external" in bound and "ptr addrspace(1) @_ZL7c_TableX, align 4" in bound


def test_a_unit_with_nothing_to_bind_comes_back_as_the_same_string() -> None:
    no_hashed = "\n".join(line for line in UNIT.splitlines() if ".static." not in line) + "\n"
    assert static_names.bind_externalized_statics(no_hashed) is no_hashed
    already_bound = static_names.bind_externalized_statics(UNIT)
    assert static_names.bind_externalized_statics(already_bound) is already_bound


def test_static_kernels_and_functions_bind_too() -> None:
    unit = (
        "declare void @_ZL4stepv()\n"
        "define internal void @caller() {\n  call void @_ZL4stepv()\n  ret void\n}\n"
        "define protected amdgpu_kernel void @_ZL4stepv.static.0abc() {\n  ret void\n}\n"
    )
    bound = static_names.bind_externalized_statics(unit)
    assert "declare void @_ZL4stepv()" not in bound
    assert "call void @_ZL4stepv.static.0abc()" in bound


def test_device_sections_are_read_from_the_objects_string_table() -> None:
    table = (
        b"\0.text\0__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx1201\0"
        b"__CLANG_OFFLOAD_BUNDLE__host-x86_64-pc-linux-gnu-\0"
        b"__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a:xnack+\0"
        b"__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx1201\0"
        b"__CLANG_OFFLOAD_BUNDLE__hip-bad name\0"
    )
    assert static_names.bundle_sections(table) == [
        "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx1201",
        "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
    ]


def test_the_driver_gates_on_the_same_marker() -> None:
    # main.py cannot import static_names on every start (it needs `re`)
    assert main._EXTERNALIZED_MARKER == static_names.EXTERNALIZED_MARKER


def planned(*argv: str) -> plan.Plan:
    return plan.build(options.parse(list(argv)), CONFIG, "/work")


def _binds(result: plan.Plan) -> list[str]:
    return [step.object for step in result.steps if isinstance(step, plan.BindStaticNames)]


def test_every_relocatable_compile_is_followed_by_the_repair() -> None:
    assert _binds(planned("-dc", "k.cu")) == ["k.o"]
    assert _binds(planned("-rdc=true", "-c", "k.cu", "-o", "out/k.o")) == ["out/k.o"]
    linked = planned("-rdc=true", "a.cu", "b.cu", "-o", "app")
    assert _binds(linked) == ["/work/a.o", "/work/b-1.o"]
    # each repair comes right after its compile, before any device link reads the object
    kinds = [type(step).__name__ for step in linked.steps]
    assert kinds[:4] == ["Run", "BindStaticNames", "Run", "BindStaticNames"]
    assert _binds(planned("-rdc=true", "-lib", "a.cu", "-o", "liba.a")) == ["/work/a.o"]
    step = planned("-dc", "k.cu").steps[1]
    assert isinstance(step, plan.BindStaticNames)
    assert step.objcopy.endswith("/llvm-objcopy") and step.disassembler.endswith("/llvm-dis")
    assert step.assembler.endswith("/llvm-as")


def test_whole_program_compiles_and_host_sources_need_no_repair() -> None:
    assert _binds(planned("-c", "k.cu")) == []
    assert _binds(planned("k.cu", "-o", "app")) == []
    assert _binds(planned("-rdc=true", "-c", "host.cpp")) == []
    assert _binds(planned("-rdc=true", "-E", "k.cu")) == []
    assert _binds(planned("-rdc=true", "-fdevice-syntax-only", "k.cu")) == []
