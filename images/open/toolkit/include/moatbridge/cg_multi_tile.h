/* moatbridge: CUDA 11.1+'s multi-warp tiles, which HIP's cooperative groups lack (their tiles
   stop at one wavefront): tiled_partition<N>(thread_block) and of such a tile for N = 64,
   128, 256, 512, 1024, thread_block_tile<N, Parent> (and <N, void>), block_tile_memory and
   this_thread_block(block_tile_memory&). CUDA's API for them:
   thread_rank, num_threads/size, meta_group_rank/size, sync, shfl, any, all, and (reduce.h,
   scan.h) cg::reduce, cg::inclusive_scan, cg::exclusive_scan on values of 8 bytes or less.

   How: the wavefronts of a block are its consecutive runs of warpSize threads, so a tile of N
   is N / warpSize whole wavefronts. Within a wavefront values move by ds_bpermute; between
   the wavefronts of a tile through a block-wide shared scratch (one slot per wavefront) and a
   shared-memory barrier per tile size (one bit per wavefront: a wavefront sets its bit on
   arrival; the last to arrive clears its tile's bits, which releases the others). AMD has no
   barrier for part of a workgroup, and __syncthreads would also stop tiles that do not sync.
   Tile construction is collective over the parent (as in CUDA): each wavefront clears its
   own bit (shared memory starts undefined), then the parent syncs.

   The wavefront size is the hardware's: 32 on gfx10/11/12, 64 on gfx9. Every tile of 64 or
   more threads is this class (CUDA's multi-warp API, on every target and in host
   compilation); a 64-thread tile is two wavefronts on gfx10+ and one on gfx9, where the
   collectives stay within the wavefront (the size is a constant or folded by the backend,
   so only one path is compiled). Compile-tested only: no GPU has run this code (nvcc.md). */
#pragma once
#include <hip/hip_cooperative_groups.h>
#include <moatbridge/traits.h>

namespace cooperative_groups {

/* CUDA 12's scratch for multi-warp tiles (one parameter since CUDA 12.0). On compute
   capability 8.0+, which this toolkit mimics, CUDA keeps the state in reserved shared memory
   and this type holds nothing; here the state is moatbridge's own shared memory. */
template <unsigned int MaxBlockSize = 1024>
struct alignas(8) block_tile_memory {
    static_assert(MaxBlockSize > 0 && MaxBlockSize <= 1024, "a block has at most 1024 threads");
};

template <unsigned int MaxBlockSize>
__device__ __forceinline__ thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
    return this_thread_block();
}

template <unsigned int Size, class Parent> class thread_block_tile;

}  // namespace cooperative_groups

namespace moatbridge_cg_multi {

using cooperative_groups::thread_block;

/* CUDA's multi-warp sizes (above 32 lanes); HIP's own tiles stop at 32 or 64. */
template <unsigned int Size>
struct is_multi_size : moatbridge_traits::integral_constant<bool, (Size & (Size - 1)) == 0 && Size >= 64 && Size <= 1024> {};

/* The tile types this header defines (their common base): reduce.h and scan.h pick the
   multi-wavefront algorithms by it. */
template <unsigned int Size> class tile_base;
template <class Group> struct is_multi_tile {
    template <unsigned int Size> static moatbridge_traits::true_type test(const tile_base<Size>*);
    static moatbridge_traits::false_type test(...);
    static constexpr bool value = decltype(test(static_cast<const Group*>(nullptr)))::value;
};

/* HIP 5.7 and 6.x: a constant; HIP 7: __builtin_amdgcn_wavefrontsize(), folded by the backend */
__device__ __forceinline__ unsigned int wave_size() { return static_cast<unsigned int>(warpSize); }
__device__ __forceinline__ unsigned int block_rank() { return thread_block::thread_rank(); }
__device__ __forceinline__ unsigned int block_threads() { return thread_block::size(); }
__device__ __forceinline__ unsigned int lane() { return __lane_id(); }

/* The block's state: an arrival word per tile size (64 ... 1024) and a slot per wavefront
   (1024 threads / 32 lanes). One object per kernel that uses a multi-wavefront tile. */
struct block_state {
    unsigned int arrived[6];
    unsigned long long slot[32];
};
__device__ __forceinline__ block_state& state() {
    __shared__ block_state shared;
    return shared;
}

template <unsigned int Size> __device__ __forceinline__ unsigned int* arrival_word() {
    return &state().arrived[Size >= 1024 ? 4 : Size >= 512 ? 3 : Size >= 256 ? 2 : Size >= 128 ? 1 : 0];
}

/* Slots hold any trivially copyable value of 8 bytes or less. */
template <class T> __device__ __forceinline__ void put(unsigned int slot, const T& value) {
    __builtin_memcpy(&state().slot[slot], &value, sizeof(T));
}
template <class T> __device__ __forceinline__ T get(unsigned int slot, T value) {
    __builtin_memcpy(&value, &state().slot[slot], sizeof(T));
    return value;
}

/* One lane acts for its wavefront at a barrier: the first active one. */
__device__ __forceinline__ bool leader() {
    return static_cast<unsigned int>(__builtin_amdgcn_readfirstlane(static_cast<int>(lane()))) == lane();
}

/* A tile's view of the barrier: its wavefronts' bits (only those the block has: a last tile
   cut short by the block's size waits for its own wavefronts only). */
template <unsigned int Size> struct tile_waves {
    unsigned int wave;   // the calling wavefront's index in the block
    unsigned int first;  // the tile's first wavefront
    unsigned int count;  // its wavefronts that exist
    unsigned int mask;
    __device__ __forceinline__ tile_waves() {
        const unsigned int width = wave_size();
        const unsigned int per_tile = Size / width;
        const unsigned int in_block = (block_threads() + width - 1) / width;
        wave = block_rank() / width;
        first = wave - wave % per_tile;
        count = in_block - first < per_tile ? in_block - first : per_tile;
        mask = (count >= 32 ? ~0u : ((1u << count) - 1u)) << first;
    }
    __device__ __forceinline__ unsigned int bit() const { return 1u << wave; }
};

/* Arrival: every lane's earlier writes are released (the fence is wavefront-wide on AMD, as
   in __syncthreads), then the leader sets the wavefront's bit. True, in every lane, in the
   wavefront that completed the set: it sees the others' writes and must release them. */
template <unsigned int Size> __device__ __forceinline__ bool arrive(const tile_waves<Size>& waves) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    unsigned int before = 0;
    if (leader()) {
        before = __hip_atomic_fetch_or(arrival_word<Size>(), waves.bit(), __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_WORKGROUP);
    }
    before = static_cast<unsigned int>(__builtin_amdgcn_readfirstlane(static_cast<int>(before)));
    const bool last = ((before | waves.bit()) & waves.mask) == waves.mask;
    if (last) __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    return last;
}

template <unsigned int Size> __device__ __forceinline__ void release(const tile_waves<Size>& waves) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    if (leader()) {
        __hip_atomic_fetch_and(arrival_word<Size>(), ~waves.mask, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    }
}

/* Until the last wavefront clears this one's bit (the waves of a workgroup are all resident,
   so spinning cannot starve the one awaited). */
template <unsigned int Size> __device__ __forceinline__ void wait(const tile_waves<Size>& waves) {
    if (leader()) {
        while (__hip_atomic_load(arrival_word<Size>(), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP) &
               waves.bit()) {
            __builtin_amdgcn_s_sleep(1);
        }
    }
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/* A tile of one wavefront (64 threads on gfx9): its lanes run together. */
template <unsigned int Size> __device__ __forceinline__ bool one_wave() { return Size == wave_size(); }

template <unsigned int Size> __device__ __forceinline__ void sync() {
    if (one_wave<Size>()) {
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        __builtin_amdgcn_wave_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
        return;
    }
    const tile_waves<Size> waves;
    if (arrive(waves)) {
        release(waves);
    } else {
        wait(waves);
    }
}

/* Each wavefront clears its own bit (set only while it waits, so this never disturbs a
   barrier in progress); the caller then syncs the parent, so none arrives before all did. */
template <unsigned int Size> __device__ __forceinline__ void reset() {
    const tile_waves<Size> waves;
    if (leader()) {
        __hip_atomic_fetch_and(arrival_word<Size>(), ~waves.bit(), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    }
}

/* A value from another lane of the wavefront, 32 bits at a time. */
template <class T> __device__ __forceinline__ T wave_shuffle(T value, unsigned int source_lane) {
    int words[(sizeof(T) + sizeof(int) - 1) / sizeof(int)] = {};
    __builtin_memcpy(words, &value, sizeof(T));
    for (int& word : words) word = __builtin_amdgcn_ds_bpermute(static_cast<int>(source_lane << 2), word);
    __builtin_memcpy(&value, words, sizeof(T));
    return value;
}

/* The wavefront's reduction in every lane. Partners combine lower lanes first, so all lanes
   hold the same bits even for an operator that is not commutative in floating point. */
template <class T, class Op> __device__ __forceinline__ T wave_reduce(T value, Op& op) {
    const unsigned int me = lane();
    for (unsigned int offset = 1; offset < wave_size(); offset <<= 1) {
        const T other = wave_shuffle(value, me ^ offset);
        value = (me & offset) ? op(other, value) : op(value, other);
    }
    return value;
}

template <class T, class Op> __device__ __forceinline__ T wave_inclusive_scan(T value, Op& op) {
    const unsigned int me = lane();
    for (unsigned int offset = 1; offset < wave_size(); offset <<= 1) {
        const T before = wave_shuffle(value, me >= offset ? me - offset : me);
        if (me >= offset) value = op(before, value);
    }
    return value;
}

template <class T> __device__ __forceinline__ void check_value_type() {
    static_assert(sizeof(T) <= sizeof(unsigned long long),
                  "collectives on tiles larger than a warp take values of 8 bytes or less (as in CUDA)");
    static_assert(moatbridge_traits::is_trivially_copyable<T>::value, "a tile collective's value must be trivially copyable");
}

/* cg::reduce on a multi-wavefront tile: each wavefront reduces in registers and parks its
   result in its slot; the last to arrive combines the tile's slots in wavefront order and
   writes the total back to every slot before it releases the others, who read their own
   slot (which only they write next, so one barrier per reduction suffices). */
template <unsigned int Size, class T, class Op> __device__ T reduce(T value, Op& op) {
    check_value_type<T>();
    const T mine = wave_reduce(value, op);
    if (one_wave<Size>()) return mine;
    const tile_waves<Size> waves;
    if (lane() == 0) put(waves.wave, mine);
    if (arrive(waves)) {
        T total = get(waves.first, mine);
        for (unsigned int j = 1; j < waves.count; ++j) total = op(total, get(waves.first + j, mine));
        if (lane() < waves.count) put(waves.first + lane(), total);
        release(waves);
    } else {
        wait(waves);
    }
    return get(waves.wave, mine);
}

/* cg::inclusive_scan / exclusive_scan: each wavefront scans in registers and parks its total;
   the last to arrive scans the totals (one lane per wavefront) and writes each wavefront the
   combined totals of the ones before it, which that wavefront puts in front of its own scan.
   Rank 0's exclusive result is T(), as for moatbridge's one-wavefront tiles. */
template <bool Inclusive, unsigned int Size, class T, class Op> __device__ T scan(T value, Op& op) {
    check_value_type<T>();
    const unsigned int me = lane();
    const unsigned int width = wave_size();
    const T inclusive = wave_inclusive_scan(value, op);
    if (one_wave<Size>()) {
        const T exclusive = wave_shuffle(inclusive, me > 0 ? me - 1 : 0);
        return Inclusive ? inclusive : me == 0 ? T() : exclusive;
    }
    const tile_waves<Size> waves;
    const unsigned int threads_in_wave = block_threads() - waves.wave * width;
    const unsigned int last_lane = (threads_in_wave < width ? threads_in_wave : width) - 1;
    if (me == last_lane) put(waves.wave, inclusive);
    if (arrive(waves)) {
        T total = me < waves.count ? get(waves.first + me, inclusive) : inclusive;
        total = wave_inclusive_scan(total, op);  // lane j: wavefronts 0..j; lanes past count unused
        const T before = wave_shuffle(total, me > 0 ? me - 1 : 0);
        if (me > 0 && me < waves.count) put(waves.first + me, before);
        release(waves);
    } else {
        wait(waves);
    }
    const bool first_wave = waves.wave == waves.first;
    const T prefix = first_wave ? inclusive : get(waves.wave, inclusive);
    if (Inclusive) return first_wave ? inclusive : op(prefix, inclusive);
    const T exclusive = wave_shuffle(inclusive, me > 0 ? me - 1 : 0);
    if (me == 0) return first_wave ? T() : prefix;
    return first_wave ? exclusive : op(prefix, exclusive);
}

template <class T> struct logical_or {
    __device__ T operator()(T a, T b) const { return a || b; }
};
template <class T> struct logical_and {
    __device__ T operator()(T a, T b) const { return a && b; }
};

/* What every multi-wavefront tile offers, whatever its parent. */
template <unsigned int Size> class tile_base {
    static_assert(is_multi_size<Size>::value, "a multi-wavefront tile is a power of two above the wavefront, up to 1024");

  public:
    static constexpr unsigned int moatbridge_threads = Size;  // for reduce.h and scan.h
    __device__ static unsigned int thread_rank() { return block_rank() & (Size - 1); }
    __device__ static constexpr unsigned int num_threads() { return Size; }
    __device__ static constexpr unsigned int size() { return Size; }
    __device__ static bool is_valid() { return true; }
    __device__ void sync() const { moatbridge_cg_multi::sync<Size>(); }

    /* CUDA's shfl on a multi-warp tile: the source parks its value in its wavefront's slot;
       a second barrier keeps the slot until every thread has read it. */
    template <class T> __device__ T shfl(T value, unsigned int source_rank) const {
        check_value_type<T>();
        const unsigned int source = source_rank & (Size - 1);
        if (one_wave<Size>()) return wave_shuffle(value, source);
        const tile_waves<Size> waves;
        if (thread_rank() == source) put(waves.wave, value);
        sync();
        const T result = get(waves.first + source / wave_size(), value);
        sync();
        return result;
    }
    __device__ int any(int predicate) const {
        logical_or<int> op;
        return moatbridge_cg_multi::reduce<Size>(predicate ? 1 : 0, op);
    }
    __device__ int all(int predicate) const {
        logical_and<int> op;
        return moatbridge_cg_multi::reduce<Size>(predicate ? 1 : 0, op);
    }

  protected:
    tile_base() = default;
};

/* A parent's rank and size as meta_group_rank/size need them. */
template <class Parent> struct parent_info;
template <> struct parent_info<thread_block> {
    __device__ static unsigned int rank() { return block_rank(); }
    __device__ static unsigned int count() { return block_threads(); }
};
template <unsigned int ParentSize, class Grand>
struct parent_info<cooperative_groups::thread_block_tile<ParentSize, Grand>> {
    __device__ static unsigned int rank() { return block_rank() & (ParentSize - 1); }
    __device__ static unsigned int count() { return ParentSize; }
};

template <unsigned int Size, class Parent> class tile : public tile_base<Size> {
  public:
    __device__ static unsigned int meta_group_rank() { return parent_info<Parent>::rank() / Size; }
    __device__ static unsigned int meta_group_size() { return (parent_info<Parent>::count() + Size - 1) / Size; }
};

/* thread_block_tile<N> (parent erased) keeps the ranks it was converted with, as in CUDA. */
template <unsigned int Size> class tile<Size, void> : public tile_base<Size> {
    unsigned int meta_rank_;
    unsigned int meta_size_;

  public:
    __device__ unsigned int meta_group_rank() const { return meta_rank_; }
    __device__ unsigned int meta_group_size() const { return meta_size_; }

  protected:
    __device__ tile(unsigned int meta_rank, unsigned int meta_size) : meta_rank_(meta_rank), meta_size_(meta_size) {}
};

/* tiled_partition's way to the tiles' protected constructor. */
struct access {
    template <unsigned int Size, class Parent>
    __device__ static cooperative_groups::thread_block_tile<Size, Parent> partition(const Parent& parent) {
        if (!one_wave<Size>()) reset<Size>();
        parent.sync();
        return cooperative_groups::thread_block_tile<Size, Parent>();
    }
};

}  // namespace moatbridge_cg_multi

namespace cooperative_groups {

/* One pair of specialisations per size (CUDA's multi-warp sizes), the parent-erased one first,
   as the other names it. HIP's primary template keeps the sizes up to 32. */
#define MOATBRIDGE_CG_MULTI_TILE(N)                                                                 \
    template <>                                                                                     \
    class thread_block_tile<N, void> : public ::moatbridge_cg_multi::tile<N, void> {                 \
      public:                                                                                       \
        template <class Parent>                                                                     \
        __device__ thread_block_tile(const thread_block_tile<N, Parent>& from)                      \
            : ::moatbridge_cg_multi::tile<N, void>(from.meta_group_rank(), from.meta_group_size()) {} \
    };                                                                                              \
    template <class Parent>                                                                         \
    class thread_block_tile<N, Parent> : public ::moatbridge_cg_multi::tile<N, Parent> {             \
        friend struct ::moatbridge_cg_multi::access;                                                \
                                                                                                    \
      protected:                                                                                    \
        __device__ thread_block_tile() {}                                                           \
    };
MOATBRIDGE_CG_MULTI_TILE(64)
MOATBRIDGE_CG_MULTI_TILE(128)
MOATBRIDGE_CG_MULTI_TILE(256)
MOATBRIDGE_CG_MULTI_TILE(512)
MOATBRIDGE_CG_MULTI_TILE(1024)
#undef MOATBRIDGE_CG_MULTI_TILE

/* More specialised than HIP's tiled_partition<N>(const Parent&), whose body rejects sizes
   above the wavefront: these take the multi-wavefront sizes. Collective over the parent. */
template <unsigned int Size>
__device__ typename moatbridge_traits::enable_if<::moatbridge_cg_multi::is_multi_size<Size>::value,
                                   thread_block_tile<Size, thread_block>>::type
tiled_partition(const thread_block& parent) {
    return ::moatbridge_cg_multi::access::partition<Size, thread_block>(parent);
}

template <unsigned int Size, unsigned int ParentSize, class Grand>
__device__ typename moatbridge_traits::enable_if<::moatbridge_cg_multi::is_multi_size<Size>::value &&
                                       ::moatbridge_cg_multi::is_multi_size<ParentSize>::value,
                                   thread_block_tile<Size, thread_block_tile<ParentSize, Grand>>>::type
tiled_partition(const thread_block_tile<ParentSize, Grand>& parent) {
    static_assert(Size < ParentSize, "a tile's partition is smaller than the tile");
    return ::moatbridge_cg_multi::access::partition<Size, thread_block_tile<ParentSize, Grand>>(parent);
}

}  // namespace cooperative_groups
