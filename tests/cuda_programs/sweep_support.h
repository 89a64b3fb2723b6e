// sweep_support.h — what the oracle programs' sweeps share (bf16_functions.cpp,
// fp16_host_api.cpp): a checksum of results and the inputs' random source, so that a sweep
// built against NVIDIA's header and against ours hashes the same values in the same order.
#pragma once

// FNV-1a over the results
struct Hash {
    unsigned long long value = 0xcbf29ce484222325ull;
    void add(unsigned long long v) {
        for (int i = 0; i < 8; ++i) value = (value ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ull;
    }
};
static unsigned long long next_random(unsigned long long& state) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

// The i-th pair of 16-bit values of a sweep: every pair of specials, then random ones, half of
// them with close exponents (within four of each other, where sums round on ties); `exponent`
// is the format's exponent field (0x7f80 for bfloat16, 0x7c00 for half).
static void pair_of(int i, const unsigned short* specials, int n_specials, unsigned long long& state,
                    unsigned short exponent, unsigned short& p, unsigned short& q) {
    if (i < n_specials * n_specials) {
        p = specials[i / n_specials];
        q = specials[i % n_specials];
        return;
    }
    const unsigned long long r = next_random(state);
    p = (unsigned short)r;
    q = (unsigned short)(r >> 16);
    const unsigned int step = exponent & (0u - exponent);  // the exponent's lowest bit
    if (i % 2) q = (unsigned short)((q & ~exponent) | ((p + ((r >> 32) % 9) * step - 4 * step) & exponent));
}
