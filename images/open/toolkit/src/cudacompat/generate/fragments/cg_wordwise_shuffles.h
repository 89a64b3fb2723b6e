/* fragment: shuffles of any trivially copyable type, one 32-bit word at a time, for the
   tiles' shfl* methods. with_shuffles_of_any_type() puts it before the first
   `namespace cooperative_groups {` of amd_hip_cooperative_groups.h. */
struct __hip_bfloat162;
namespace moatbridge_cg {  /* moatbridge: CUDA's tiles shuffle any trivially copyable type */
/* and the types CUDA shuffles with intrinsics of their own though they are not trivially
   copyable: the bfloat16 pair, copied by a constructor of its own as NVIDIA's is, and
   plain data all the same */
template <class T> struct shuffled_by_words : std::false_type {};
template <> struct shuffled_by_words<__hip_bfloat162> : std::true_type {};
template <class T, class Shuffle> __device__ inline T by_words(T var, Shuffle shuffle) {
  int words[(sizeof(T) + sizeof(int) - 1) / sizeof(int)] = {};
  __builtin_memcpy(words, static_cast<const void*>(&var), sizeof(T));
  for (int& word : words) word = shuffle(word);
  __builtin_memcpy(static_cast<void*>(&var), words, sizeof(T));
  return var;
}
#define MOATBRIDGE_CG_SHUFFLE(name)                                                            \
  template <class T, class Lane> __device__ inline                                             \
  typename std::enable_if<std::is_arithmetic<T>::value, T>::type name(T var, Lane lane, int width) { \
    return ::name(var, lane, width);                                                           \
  }                                                                                            \
  template <class T, class Lane> __device__ inline                                             \
  typename std::enable_if<!std::is_arithmetic<T>::value, T>::type name(T var, Lane lane, int width) { \
    return by_words(var, [=](int word) { return ::name(word, lane, width); });                 \
  }
MOATBRIDGE_CG_SHUFFLE(__shfl)
MOATBRIDGE_CG_SHUFFLE(__shfl_up)
MOATBRIDGE_CG_SHUFFLE(__shfl_down)
MOATBRIDGE_CG_SHUFFLE(__shfl_xor)
#undef MOATBRIDGE_CG_SHUFFLE
}  // namespace moatbridge_cg
