#include "fp16_across_objects.h"
#include <cstddef>
#include <cstdio>
#include <cstring>

static __half h16(unsigned short bits) {
    __half_raw raw;
    raw.x = bits;
    return __half(raw);
}
static unsigned short bits_of(__half h) { return static_cast<__half_raw>(h).x; }

__half2 swapped_in_cpp(__half2 pair, __half single, Holder holder) {
    return __half2(h16((unsigned short)(bits_of(single) ^ bits_of(__high2half(holder.pair)) ^ (unsigned short)holder.tag)),
                          __low2half(pair));
}

static int failures = 0;
static void check(const char* what, unsigned long got, unsigned long want) {
    printf("%s: %#lx%s\n", what, got, got == want ? "" : " FAIL");
    failures += got != want;
}

int main() {
    Holder holder;
    holder.tag = 3;
    holder.pair = __half2(h16(0x1111), h16(0x2222));
    holder.single = h16(0x3333);
    const __half2 pair(h16(0x4444), h16(0x5555));
    const __half2 from_cu = swapped_in_cu(pair, h16(0x6666), holder);
    check("nvcc's function, low", bits_of(__low2half(from_cu)), 0x6666 ^ 0x2222 ^ 3);
    check("nvcc's function, high", bits_of(__high2half(from_cu)), 0x4444);
    const __half2 round_trip = cu_calls_cpp(pair);
    check("g++'s function called from nvcc's, low", bits_of(__low2half(round_trip)), 0x5555 ^ 0x4444 ^ 5);
    check("g++'s function called from nvcc's, high", bits_of(__high2half(round_trip)), 0x4444);
    check("layout", cu_layout(),
          sizeof(Holder) | alignof(Holder) << 8 | offsetof(Holder, pair) << 16 | offsetof(Holder, single) << 24 |
              sizeof(__half2) << 32 | (unsigned long)alignof(__half2) << 40);
    // a float NaN with a payload: CUDA's constructor gives the canonical NaN
    const unsigned int payload = 0x7fc12345u;
    float nan;
    memcpy(&nan, &payload, sizeof nan);
    (void)cu_from_float(nan);
    __half assigned;
    assigned = nan;
    check("the class's float assignment in g++'s object", bits_of(assigned), 0x7fff);
    printf("failures: %d\n", failures);
    return failures != 0;
}
