"""Code nvcc builds with a warning that clang refuses by default. Pure data.

nvcc's front end and its host compiler (g++) warn about some constructs clang makes errors by
default: `register` in C++17, narrowing in braces, `"%"FMT` without a space, chained
comparisons, `enum class` in an elaborated type, `return;` in a non-void function. For those
groups the driver passes `-Wno-error=<group>`: ours builds the same code and warns. The list
is the stack's clang's error-by-default groups (`diagtool show-enabled`), each either
tolerated here or kept an error for the reason given (tests/test_gxx_leniency.py checks both
against NVIDIA's nvcc with g++ and against each stack's clang)."""

from __future__ import annotations

# group: (first clang major that has it, last clang major where it is an error by default)
TOLERATED: dict[str, tuple[int, int | None]] = {
    "register": (0, None),
    "c++11-narrowing": (0, None),
    # part of c++11-narrowing for clang: NVIDIA's front end refuses it (ours is more lenient)
    "c++11-narrowing-const-reference": (19, None),
    "reserved-user-defined-literal": (0, None),
    "parentheses": (0, None),  # `a < b < c`, an error from clang 20
    "elaborated-enum-class": (0, None),
    "missing-template-arg-list-after-template-kw": (19, None),
    "init-priority-reserved": (19, None),
    "return-mismatch": (19, None),
    "return-type": (0, 18),  # clang 17 reports `return;` in a non-void function here
    "enum-constexpr-conversion": (0, 18),  # no longer a warning group by clang 21: a hard error
}

# Every other error-by-default group of the stacks' clang, and why it stays an error.
KEPT: dict[str, str] = {
    "address-of-temporary": "g++ refuses it too",
    "argument-outside-range": "a clang builtin's constant argument out of range: clang's builtins only",
    "array-compare-cxx26": "C++26 only",
    "atomic-access": "C11 atomics, not C++",
    "attribute-statement": "clang's own statement attributes only",
    "delegating-ctor-cycles": "NVIDIA's front end refuses it too",
    "dtor-typedef": "NVIDIA's front end refuses it too",
    "dynamic-exception-spec": "NVIDIA's front end refuses it too in C++17",
    "elaborated-enum-base": "NVIDIA's front end refuses it too",
    "enum-enum-conversion": "C++26 only",
    "extraneous-template-head": "ill-formed template code (not measured against nvcc)",
    "gnu-array-member-paren-init": "NVIDIA's front end refuses it too",
    "hip-omp-target-directives": "HIP with OpenMP offload, not CUDA",
    "hlsl-availability": "HLSL only",
    "implicit-function-declaration": "C only (nvcc hands C sources to the host compiler, as ours does)",
    "implicit-int": "C only",
    "incompatible-function-pointer-types": "C only",
    "incompatible-ms-struct": "Microsoft's struct layout, not on Linux",
    "increment-bool": "g++ refuses it too in C++17",
    "initializer-overrides": "overriding designated initializers (not measured against nvcc)",
    "int-conversion": "C only",
    "invalid-constexpr": "g++ refuses it too",
    "invalid-gnu-asm-cast": "a cast as an asm output (not measured against nvcc)",
    "invalid-ios-deployment-target": "Apple only",
    "invalid-partial-specialization": "ill-formed template code (not measured against nvcc)",
    "invalid-specialization": "ill-formed template code (not measured against nvcc)",
    "invalid-static-assert-message": "NVIDIA's front end refuses it too",
    "invalid-token-paste": "Microsoft mode only",
    "legacy-constant-register-binding": "HLSL only",
    "module-file-config-mismatch": "clang modules only",
    "module-import-in-extern-c": "clang modules only",
    "modules-import-nested-redundant": "clang modules only",
    "non-pod-varargs": "clang would build a call that aborts when it runs",
    "nonportable-sycl": "SYCL only",
    "nullability-declspec": "Microsoft declspec only",
    "odr": "clang modules only",
    "out-of-line-declaration": "NVIDIA's front end refuses it too",
    "private-header": "clang modules only",
    "signed-unsigned-wchar": "Microsoft mode only",
    "static-float-init": "g++ refuses it too",
    "strict-primary-template-shadow": "g++ refuses it too",
    "underlying-atomic-qualifier-ignored": "C only",
    "unusable-partial-specialization": "ill-formed template code (not measured against nvcc)",
    "vec-elem-size": "clang's vector extension only",
}


def tolerance_flags(clang_major: int) -> list[str]:
    """`-Wno-error=` for each tolerated group this clang makes an error by default."""
    return [
        f"-Wno-error={group}"
        for group, (first, last) in TOLERATED.items()
        if clang_major >= first and (last is None or clang_major <= last)
    ]
