/* fragment: __hip_bfloat162 with a constructor from its two halves. with_bfloat16_class()
   puts it in place of HIP 5.7's plain struct in amd_hip_bf16.h. */
/* moatbridge: aligned to four and copied by constructors of its own, as CUDA's __nv_bfloat162
   and HIP 6's are: a function taking one by value passes it the same way from every compiler's
   objects (through memory), and a struct holding one has CUDA's layout. */
struct __attribute__((aligned(4))) __hip_bfloat162 {
  __hip_bfloat16 x;
  __hip_bfloat16 y;
  __hip_bfloat162() = default;
  MOATBRIDGE_BF16_HD constexpr __hip_bfloat162(const __hip_bfloat16& a, const __hip_bfloat16& b)
      : x(a), y(b) {}
  MOATBRIDGE_BF16_HD constexpr __hip_bfloat162(const __hip_bfloat162& other) : x(other.x), y(other.y) {}
  MOATBRIDGE_BF16_HD __hip_bfloat162& operator=(const __hip_bfloat162& other) {
    x = other.x;
    y = other.y;
    return *this;
  }
};
