#include "fp16_across_objects.h"
#include <cstddef>

static unsigned short bits_of(__half h) { return static_cast<__half_raw>(h).x; }

__half2 swapped_in_cu(__half2 pair, __half single, Holder holder) {
    __half_raw raw;
    raw.x = (unsigned short)(bits_of(single) ^ bits_of(__high2half(holder.pair)) ^ (unsigned short)holder.tag);
    return __half2(__half(raw), __low2half(pair));
}

__half2 cu_calls_cpp(__half2 pair) {
    Holder holder;
    holder.tag = 5;
    holder.pair = __half2(__high2half(pair), __low2half(pair));
    holder.single = __low2half(pair);
    return swapped_in_cpp(pair, __high2half(pair), holder);
}

__half cu_from_float(float value) {
    __half h;
    h = value;
    return h;
}

unsigned long cu_layout() {
    return sizeof(Holder) | alignof(Holder) << 8 | offsetof(Holder, pair) << 16 | offsetof(Holder, single) << 24 |
           sizeof(__half2) << 32 | (unsigned long)alignof(__half2) << 40;
}
