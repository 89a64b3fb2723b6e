#include "bf16_across_objects.h"
#include <cstddef>
#include <cstdio>
#include <cstring>

static __nv_bfloat16 bf(unsigned short bits) {
    __nv_bfloat16_raw raw;
    raw.x = bits;
    return __nv_bfloat16(raw);
}
static unsigned short bits_of(__nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }

__nv_bfloat162 swapped_in_cpp(__nv_bfloat162 pair, __nv_bfloat16 single, Holder holder) {
    return __nv_bfloat162(bf((unsigned short)(bits_of(single) ^ bits_of(holder.pair.y) ^ (unsigned short)holder.tag)),
                          pair.x);
}

static int failures = 0;
static void check(const char* what, unsigned long got, unsigned long want) {
    printf("%s: %#lx%s\n", what, got, got == want ? "" : " FAIL");
    failures += got != want;
}

int main() {
    Holder holder;
    holder.tag = 3;
    holder.pair = __nv_bfloat162(bf(0x1111), bf(0x2222));
    holder.single = bf(0x3333);
    const __nv_bfloat162 pair(bf(0x4444), bf(0x5555));
    const __nv_bfloat162 from_cu = swapped_in_cu(pair, bf(0x6666), holder);
    check("nvcc's function, low", bits_of(from_cu.x), 0x6666 ^ 0x2222 ^ 3);
    check("nvcc's function, high", bits_of(from_cu.y), 0x4444);
    const __nv_bfloat162 round_trip = cu_calls_cpp(pair);
    check("g++'s function called from nvcc's, low", bits_of(round_trip.x), 0x5555 ^ 0x4444 ^ 5);
    check("g++'s function called from nvcc's, high", bits_of(round_trip.y), 0x4444);
    check("layout", cu_layout(),
          sizeof(Holder) | alignof(Holder) << 8 | offsetof(Holder, pair) << 16 | offsetof(Holder, single) << 24 |
              sizeof(__nv_bfloat162) << 32 | (unsigned long)alignof(__nv_bfloat162) << 40);
    // a float NaN with a payload: CUDA's constructor gives the canonical NaN
    const unsigned int payload = 0x7fc12345u;
    float nan;
    memcpy(&nan, &payload, sizeof nan);
    (void)cu_from_float(nan);
    __nv_bfloat16 assigned;
    assigned = nan;
    check("the class's float assignment in g++'s object", bits_of(assigned), 0x7fff);
    printf("failures: %d\n", failures);
    return failures != 0;
}
