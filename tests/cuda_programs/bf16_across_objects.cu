#include "bf16_across_objects.h"
#include <cstddef>

static unsigned short bits_of(__nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }

__nv_bfloat162 swapped_in_cu(__nv_bfloat162 pair, __nv_bfloat16 single, Holder holder) {
    __nv_bfloat16_raw raw;
    raw.x = (unsigned short)(bits_of(single) ^ bits_of(holder.pair.y) ^ (unsigned short)holder.tag);
    return __nv_bfloat162(__nv_bfloat16(raw), pair.x);
}

__nv_bfloat162 cu_calls_cpp(__nv_bfloat162 pair) {
    Holder holder;
    holder.tag = 5;
    holder.pair = __nv_bfloat162(pair.y, pair.x);
    holder.single = pair.x;
    return swapped_in_cpp(pair, pair.y, holder);
}

__nv_bfloat16 cu_from_float(float value) {
    __nv_bfloat16 h;
    h = value;
    return h;
}

unsigned long cu_layout() {
    return sizeof(Holder) | alignof(Holder) << 8 | offsetof(Holder, pair) << 16 | offsetof(Holder, single) << 24 |
           sizeof(__nv_bfloat162) << 32 | (unsigned long)alignof(__nv_bfloat162) << 40;
}
