// fp16_host_api.cpp — what NVIDIA's cuda_fp16.h gives a host compiler (g++, or clang++ without
// CUDA), in a plain .cpp file: the __half and __half2 classes (their constructors from every
// arithmetic type, conversions back, operators), and every host-callable function, checked two
// ways (tests/test_cuda_fp16_host.py):
//  - exact expected bit patterns for the edge cases: a failure prints FAIL, exit status 1;
//  - sweeps over floats, doubles, every half value, integers and half pairs, printed as
//    checksums. Compiled against NVIDIA's real headers (g++ on the host) and against the open
//    toolkit's (g++ and clang++ in the image), the outputs must be the same. Built by nvcc
//    (host code of a .cu file), the classes are HIP's: lines of their members ("class ...")
//    and operators ("operator...") are HIP's results, the functions' must be the same.
#include <cuda_fp16.h>
#include <climits>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "sweep_support.h"

static __half h16(unsigned short bits) {
    __half_raw raw;
    raw.x = bits;
    return __half(raw);
}
static unsigned short bits(__half h) { return static_cast<__half_raw>(h).x; }
static unsigned pair_bits(__half2 h) { return bits(__low2half(h)) | (unsigned)bits(__high2half(h)) << 16; }
static float f32(unsigned int u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static unsigned int u32(float f) {
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int failures = 0;
static void check(const char* what, unsigned long long got, unsigned long long want, int line) {
    if (got == want) return;
    ++failures;
    printf("FAIL line %d: %s = %#llx, expected %#llx\n", line, what, got, want);
}
#define CHECK(expression, want) check(#expression, (unsigned long long)(expression), (unsigned long long)(want), __LINE__)
#define CHECK_H(expression, want) CHECK(bits(expression), want)

static void expectations() {
    // what everyday host code writes
    __half zero = 0, three(3), x = 1.5f, y = 2.25;
    CHECK_H(zero, 0x0000);
    CHECK_H(three, 0x4200);
    CHECK_H(x * y + x, 0x44e0);  // 3.375 + 1.5
    x += y;
    CHECK_H(x, 0x4380);  // 3.75
    CHECK_H(-x, 0xc380);
    CHECK(x > y, 1);
    CHECK((int)x, 3);
    CHECK((bool)zero, 0);
    three = 7;
    CHECK_H(three, 0x4700);
    const __half2 p = __halves2half2(__float2half(1.0f), __float2half(-2.0f));
    CHECK(pair_bits(p * p), 0x44003c00u);
    CHECK(pair_bits(-p), 0x4000bc00u);
    CHECK(p == p, 1);
    half alias = __float2half(0.5f);
    nv_half other = alias;
    CHECK_H(other, 0x3800);

    // float -> half: ties to even, directed rounding, overflow, subnormals, NaN
    CHECK_H(__float2half_rn(f32(0x3f801000)), 0x3c00);  // tie, to even (down)
    CHECK_H(__float2half_rn(f32(0x3f803000)), 0x3c02);  // tie, to even (up)
    CHECK_H(__float2half_rz(f32(0x3f801fff)), 0x3c00);
    CHECK_H(__float2half_rd(f32(0xbf800001)), 0xbc01);
    CHECK_H(__float2half_ru(f32(0x3f800001)), 0x3c01);
    CHECK_H(__float2half_rn(65519.0f), 0x7bff);
    CHECK_H(__float2half_rn(65520.0f), 0x7c00);
    CHECK_H(__float2half_rz(1e9f), 0x7bff);
    CHECK_H(__float2half_ru(1e9f), 0x7c00);
    CHECK_H(__float2half_rd(-1e9f), 0xfc00);
    CHECK_H(__float2half_rn(5.9604645e-8f), 0x0001);  // the smallest subnormal
    CHECK_H(__float2half_rn(2.9802322e-8f), 0x0000);  // half of it: a tie, to even
    CHECK_H(__float2half_ru(1e-30f), 0x0001);
    CHECK_H(__float2half_rd(-1e-30f), 0x8001);
    CHECK_H(__float2half_rn(f32(0x00000001)), 0x0000);
    CHECK_H(__double2half(65519.99999), 0x7bff);
    CHECK_H(__double2half(1.0 + 1.0 / 2048 + 1e-12), 0x3c01);  // just above a tie

    // half -> integers: towards zero, saturated, NaN
    CHECK(__half2int_rz(h16(0xc0e0)), -2);  // -2.4375
    CHECK(__half2uint_rz(h16(0xc0e0)), 0);
    CHECK(__half2short_rz(h16(0x7bff)), 32767);
    CHECK(__half2ushort_rz(h16(0x7bff)), 65504);
    CHECK(__half2char_rz(h16(0x5bd0)), 127);
    CHECK(__half2uchar_rz(h16(0x5bd0)), 250);
    CHECK(__half2ll_rz(h16(0x7e00)), 0x8000000000000000ull);
    CHECK(__half2ull_rz(h16(0x7e00)), 0x8000000000000000ull);
    CHECK(__half2int_rz(h16(0x7e00)), 0);
    CHECK(__half2int_rz(h16(0xfc00)), INT_MIN);

    // integers -> half
    CHECK_H(__int2half_rn(2049), 0x6800);  // tie, to even
    CHECK_H(__int2half_ru(2049), 0x6801);
    CHECK_H(__int2half_rd(-2049), 0xe801);
    CHECK_H(__ll2half_rn(LLONG_MAX), 0x7c00);
    CHECK_H(__ll2half_rz(LLONG_MAX), 0x7bff);
    CHECK_H(__ull2half_rd(ULLONG_MAX), 0x7bff);
    CHECK_H(__uint2half_rn(65519u), 0x7bff);
    CHECK_H(__uint2half_rn(65520u), 0x7c00);

    // arithmetic and comparisons
    CHECK_H(__hadd_sat(h16(0x3c00), h16(0x3c00)), 0x3c00);
    CHECK_H(__hsub_sat(h16(0x3c00), h16(0x4000)), 0x0000);
    CHECK_H(__hmul_sat(h16(0x7e00), h16(0x3c00)), 0x0000);
    CHECK_H(__hdiv(h16(0x3c00), h16(0x0000)), 0x7c00);
    CHECK(__heq2_mask(__halves2half2(h16(0x3c00), h16(0x7e00)), __halves2half2(h16(0x3c00), h16(0x7e00))), 0x0000ffffu);
    CHECK(__hequ2_mask(__halves2half2(h16(0x3c00), h16(0x7e00)), __halves2half2(h16(0x4000), h16(0x3c00))), 0xffff0000u);
    CHECK(__hisinf(h16(0xfc00)), -1);
    CHECK(__hisinf(h16(0x7c00)), 1);
    CHECK_H(CUDART_INF_FP16, 0x7c00);
    CHECK_H(CUDART_MAX_NORMAL_FP16, 0x7bff);
    CHECK_H(CUDART_ONE_FP16, 0x3c00);

    // raw types, both ways
    __half2 back2 = __half2(h16(0x1234), h16(0xabcd));
    __half2_raw raw2 = back2;
    back2 = raw2;
    CHECK(pair_bits(back2), 0xabcd1234u);
#if !defined(__HIP__)
    // Not in an nvcc build, whose __half and __half2 are HIP's classes: HIP's __half is not
    // constructible in a constant expression, its volatile assignment from __half_raw stores
    // something else, and HIP 6's __half2_raw holds two __half_raw where CUDA's holds two
    // unsigned shorts.
    volatile __half v;
    v = __half_raw{0x3555};
    __half_raw from_volatile = v;
    CHECK(from_volatile.x, 0x3555);
    CHECK(raw2.x | (unsigned)raw2.y << 16, 0xabcd1234u);
    constexpr __half one(__half_raw{0x3c00});
    constexpr bool one_is_true = one;
    CHECK(one_is_true, 1);
#endif
}

static void sweep_float_conversions() {
    // the low bits around half's rounding position (bit 12 of a normal float) and the ends
    const unsigned int lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0xf000,
                                 0xffff};
    Hash as;
    for (unsigned int block = 0; block < 256; ++block) {
        Hash rn, rz, rd, ru;
        for (unsigned int high = block << 8; high < (block + 1) << 8; ++high)
            for (unsigned int low : lows) {
                const float f = f32(high << 16 | low);
                rn.add(bits(__float2half_rn(f)));
                rn.add(bits(__float2half(f)));
                rn.add(pair_bits(__floats2half2_rn(f, -f)) ^ pair_bits(__float2half2_rn(f)));
                rz.add(bits(__float2half_rz(f)));
                rd.add(bits(__float2half_rd(f)));
                ru.add(bits(__float2half_ru(f)));
                as.add(bits(__half(f)));
                __half assigned;
                assigned = f;
                as.add(bits(assigned));
            }
        printf("float2half %02x rn %016llx rz %016llx rd %016llx ru %016llx\n", block, rn.value, rz.value, rd.value,
               ru.value);
    }
    printf("class from float %016llx\n", as.value);
    Hash from_double, class_double;
    unsigned long long state = 0x853c49e6748fea9bull;
    for (int i = 0; i < 400000; ++i) {
        unsigned long long r = next_random(state);
        // doubles near half values (ties and near-ties) at every exponent, and random ones
        if (i % 2) r = (r & 0x800fffffffffffffull) | ((unsigned long long)(0x3e0 + (r >> 53) % 0x40) << 52);
        double d;
        memcpy(&d, &r, sizeof d);
        from_double.add(bits(__double2half(d)));
        class_double.add(bits(__half(d)));
    }
    printf("double2half %016llx\nclass from double %016llx\n", from_double.value, class_double.value);
}

#define TO_INTEGER(X) X(char) X(uchar) X(short) X(ushort) X(int) X(uint) X(ll) X(ull)
static void sweep_integer_conversions() {
#define SWEEP_TO(to)                                                                                 \
    {                                                                                                \
        Hash hash;                                                                                   \
        for (unsigned int h = 0; h < 65536; ++h) hash.add((unsigned long long)__half2##to##_rz(h16((unsigned short)h))); \
        printf("half2" #to "_rz %016llx\n", hash.value);                                             \
    }
    TO_INTEGER(SWEEP_TO)
#undef SWEEP_TO
#define FROM(X) X(int, int) X(uint, unsigned int) X(short, short) X(ushort, unsigned short) X(ll, long long) \
    X(ull, unsigned long long)
#define DECLARE(name, type) Hash from_##name##_rn, from_##name##_rz, from_##name##_rd, from_##name##_ru;
    FROM(DECLARE)
#undef DECLARE
    Hash members;
    unsigned long long state = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 200000; ++i) {
        unsigned long long v;
        if (i < 64 * 64) v = (1ull << (i / 64)) + (unsigned long long)(i % 64) - 32;
        else if (i < 64 * 64 * 2) v = 65504ull + (unsigned long long)(i % 64) - 16;
        else {
            v = next_random(state);
            v >>= next_random(state) % 64;
        }
        for (unsigned long long w : {v, 0ull - v}) {
#define HASH(name, type)                                     \
    from_##name##_rn.add(bits(__##name##2half_rn((type)w))); \
    from_##name##_rz.add(bits(__##name##2half_rz((type)w))); \
    from_##name##_rd.add(bits(__##name##2half_rd((type)w))); \
    from_##name##_ru.add(bits(__##name##2half_ru((type)w)));
            FROM(HASH)
#undef HASH
            // the class's constructors and assignments from each integer type
            members.add(bits(__half((int)w)) ^ (unsigned)bits(__half((unsigned int)w)) << 16);
            members.add(bits(__half((short)w)) ^ (unsigned)bits(__half((unsigned short)w)) << 16);
            members.add(bits(__half((long)w)) ^ (unsigned)bits(__half((unsigned long)w)) << 16);
            members.add(bits(__half((long long)w)) ^ (unsigned)bits(__half((unsigned long long)w)) << 16);
            __half assigned;
            assigned = (int)w;
            members.add(bits(assigned));
            assigned = (unsigned long long)w;
            members.add(bits(assigned));
        }
    }
#define PRINT(name, type)                                                                                       \
    printf(#name "2half rn %016llx rz %016llx rd %016llx ru %016llx\n", from_##name##_rn.value, from_##name##_rz.value, \
           from_##name##_rd.value, from_##name##_ru.value);
    FROM(PRINT)
#undef PRINT
#undef FROM
    printf("class from integers %016llx\n", members.value);
}

static void sweep_values() {
    Hash to_float, classify, unary, as, members, moves, class_float, operators;
    for (unsigned int h = 0; h < 65536; ++h) {
        const __half a = h16((unsigned short)h);
        to_float.add(u32(__half2float(a)));
        class_float.add(u32((float)a));
        classify.add((unsigned)__hisnan(a) | (unsigned)(__hisinf(a) + 1) << 1 | pair_bits(__hisnan2(__half2(a, a))) << 4);
        unary.add(bits(__hneg(a)) | (unsigned)bits(__habs(a)) << 16);
        unary.add(pair_bits(__hneg2(__half2(a, h16(0x3c00)))) ^ pair_bits(__habs2(__half2(h16(0x3c00), a))));
        operators.add(bits(-a) ^ (unsigned)bits(+a) << 16);
        as.add((unsigned short)__half_as_short(a) ^ (unsigned)__half_as_ushort(a) << 16);
        as.add(bits(__short_as_half((short)h)) ^ (unsigned)bits(__ushort_as_half((unsigned short)h)) << 16);
        // the class's conversions (towards zero, saturated), each hashed on its own
        members.add((unsigned long long)(int)a);
        members.add((unsigned long long)(unsigned int)a);
        members.add((unsigned long long)(long long)a);
        members.add((unsigned long long)a);
        members.add((unsigned long long)(long)a);
        members.add((unsigned long long)(unsigned long)a);
        members.add((unsigned long long)(short)a);
        members.add((unsigned long long)(unsigned short)a);
        members.add((unsigned long long)(signed char)a);
        members.add((unsigned long long)(unsigned char)a);
        members.add((unsigned long long)(char)a);
        members.add((unsigned long long)(bool)a);
        __half inc = a, dec = a;
        ++inc;
        --dec;
        operators.add(bits(inc) ^ (unsigned)bits(dec) << 16);
        inc = a;
        operators.add(bits(inc++) ^ (unsigned)bits(inc) << 16);
        __half2 inc2(a, a);
        ++inc2;
        inc2--;
        operators.add(pair_bits(inc2));
        const __half2 pair = make_half2(a, h16((unsigned short)(h * 7)));
        const float2 wide = __half22float2(pair);
        moves.add(u32(wide.x) ^ (unsigned long long)u32(wide.y) << 32);
        moves.add(u32(__low2float(pair)) ^ (unsigned long long)u32(__high2float(pair)) << 32);
        moves.add(pair_bits(__float22half2_rn(wide)));
        moves.add(pair_bits(__half2half2(a)) ^ bits(__low2half(pair)) ^ (unsigned)bits(__high2half(pair)) << 16);
        moves.add(pair_bits(__low2half2(pair)) ^ (unsigned long long)pair_bits(__high2half2(pair)) << 32);
        moves.add(pair_bits(__lows2half2(pair, __lowhigh2highlow(pair))) ^
                  (unsigned long long)pair_bits(__highs2half2(pair, __lowhigh2highlow(pair))) << 32);
    }
    printf("half2float %016llx\nclassify %016llx\nneg abs %016llx\nas %016llx\nmoves %016llx\n", to_float.value,
           classify.value, unary.value, as.value, moves.value);
    printf("class to integers %016llx\nclass to float %016llx\noperators unary %016llx\n", members.value,
           class_float.value, operators.value);
}

#define BINARY(X) X(__hadd) X(__hsub) X(__hmul) X(__hdiv) X(__hadd_rn) X(__hsub_rn) X(__hmul_rn) X(__hadd_sat) \
    X(__hsub_sat) X(__hmul_sat) X(__hmax) X(__hmin) X(__hmax_nan) X(__hmin_nan)
#define BINARY2(X) X(__hadd2) X(__hsub2) X(__hmul2) X(__h2div) X(__hadd2_rn) X(__hsub2_rn) X(__hmul2_rn) \
    X(__hadd2_sat) X(__hsub2_sat) X(__hmul2_sat) X(__hmax2) X(__hmin2) X(__hmax2_nan) X(__hmin2_nan) X(__heq2)   \
    X(__hne2) X(__hle2) X(__hge2) X(__hlt2) X(__hgt2) X(__hequ2) X(__hneu2) X(__hleu2) X(__hgeu2) X(__hltu2)     \
    X(__hgtu2)
#define TESTS(X) X(__heq) X(__hne) X(__hle) X(__hge) X(__hlt) X(__hgt) X(__hequ) X(__hneu) X(__hleu) X(__hgeu) \
    X(__hltu) X(__hgtu)
#define TESTS2(X) X(__hbeq2) X(__hbne2) X(__hble2) X(__hbge2) X(__hblt2) X(__hbgt2) X(__hbequ2) X(__hbneu2)    \
    X(__hbleu2) X(__hbgeu2) X(__hbltu2) X(__hbgtu2) X(__heq2_mask) X(__hne2_mask) X(__hle2_mask) X(__hge2_mask) \
    X(__hlt2_mask) X(__hgt2_mask) X(__hequ2_mask) X(__hneu2_mask) X(__hleu2_mask) X(__hgeu2_mask)              \
    X(__hltu2_mask) X(__hgtu2_mask)
#define OPERATORS(X) X(+, plus) X(-, minus) X(*, times) X(/, over)
#define RELATIONS(X) X(==, eq) X(!=, ne) X(<, lt) X(>, gt) X(<=, le) X(>=, ge)
static void sweep_pairs() {
    const unsigned short specials[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x0003, 0x03ff, 0x83ff, 0x0400, 0x0401, 0x3400,
                                       0x3800, 0x3a00, 0x3bff, 0x3c00, 0xbc00, 0x3c01, 0x3c02, 0x3e00, 0x4000, 0xc000,
                                       0x6400, 0x6401, 0x7800, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01};
    const int n_specials = sizeof specials / sizeof specials[0];
    unsigned long long state = 0x2545f4914f6cdd1dull;
#define DECLARE(name) Hash hash##name;
    BINARY(DECLARE) BINARY2(DECLARE) TESTS(DECLARE) TESTS2(DECLARE)
#undef DECLARE
#define DECLARE(op, name) Hash op_##name, op2_##name, assign_##name, assign2_##name;
    OPERATORS(DECLARE)
#undef DECLARE
#define DECLARE(op, name) Hash rel_##name;
    RELATIONS(DECLARE)
#undef DECLARE
    for (int i = 0; i < n_specials * n_specials + 300000; ++i) {
        unsigned short p, q;
        pair_of(i, specials, n_specials, state, 0x7c00, p, q);
        const __half a = h16(p), b = h16(q);
        const __half2 ab(a, b), ba(b, a);
#define HASH(name) hash##name.add(bits(name(a, b)));
        BINARY(HASH)
#undef HASH
#define HASH(name) hash##name.add(pair_bits(name(ab, ba)));
        BINARY2(HASH)
#undef HASH
#define HASH(name) hash##name.add(name(a, b));
        TESTS(HASH)
#undef HASH
#define HASH(name) hash##name.add(name(ab, ba)) ;
        TESTS2(HASH)
#undef HASH
#define HASH(op, name)                           \
    {                                            \
        op_##name.add(bits(a op b));             \
        op2_##name.add(pair_bits(ab op ba));     \
        __half c = a;                            \
        c op## = b;                              \
        assign_##name.add(bits(c));              \
        __half2 c2 = ab;                         \
        c2 op## = ba;                            \
        assign2_##name.add(pair_bits(c2));       \
    }
        OPERATORS(HASH)
#undef HASH
#define HASH(op, name) rel_##name.add((a op b) | (ab op ba) << 1 | (ab op ab) << 2);
        RELATIONS(HASH)
#undef HASH
    }
#define PRINT(name) printf(#name " %016llx\n", hash##name.value);
    BINARY(PRINT) BINARY2(PRINT) TESTS(PRINT) TESTS2(PRINT)
#undef PRINT
#define PRINT(op, name) \
    printf("operator" #op " %016llx %016llx %016llx %016llx\n", op_##name.value, op2_##name.value, assign_##name.value, assign2_##name.value);
    OPERATORS(PRINT)
#undef PRINT
#define PRINT(op, name) printf("operator" #op " %016llx\n", rel_##name.value);
    RELATIONS(PRINT)
#undef PRINT
}

int main() {
    expectations();
    sweep_float_conversions();
    sweep_integer_conversions();
    sweep_values();
    sweep_pairs();
    printf("expectations failed: %d\n", failures);
    return failures != 0;
}
