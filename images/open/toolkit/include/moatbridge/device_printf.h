/* moatbridge nvcc: in CUDA, threadIdx.x and friends are plain unsigned ints; in HIP they are
   proxy objects that convert to one, which device printf cannot pass through `...`
   ("cannot compile this non-scalar arg to printf"). Route printf through a variadic
   template that converts such arguments first. Only for nvcc compiles (the prelude).
   A function-like macro, so that `printf` not followed by `(` stays itself: the format
   attribute of logging functions, `__attribute__((format(printf, 2, 3)))`, names the
   format family, not a function, and `using ::printf;` keeps meaning the C function. */
#pragma once
#if defined(__HIP__) && defined(__cplusplus) && !defined(MOATBRIDGE_NO_PRINTF_WRAPPER)
#include <cstdio>
#include <type_traits>
template <class T>
__host__ __device__ inline auto moatbridge_printf_arg(const T& value) {
    if constexpr (std::is_class_v<T> && std::is_convertible_v<T, unsigned int>) {
        return static_cast<unsigned int>(value);
    } else {
        return value;
    }
}
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wformat-security"
#pragma clang diagnostic ignored "-Wformat-nonliteral"
template <class... Args>
__host__ __device__ inline int moatbridge_printf(const char* format, const Args&... args) {
    return ::printf(format, moatbridge_printf_arg(args)...);
}
#pragma clang diagnostic pop
namespace std {
using ::moatbridge_printf;
}
#define printf(...) moatbridge_printf(__VA_ARGS__)
#endif
