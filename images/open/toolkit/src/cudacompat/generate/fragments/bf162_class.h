/* fragment: __hip_bfloat162 with a constructor from its two halves. with_bfloat16_class()
   puts it in place of HIP 5.7's plain struct in amd_hip_bf16.h. */
struct __hip_bfloat162 {
  __hip_bfloat16 x;
  __hip_bfloat16 y;
  __hip_bfloat162() = default;
  MOATBRIDGE_BF16_HD constexpr __hip_bfloat162(const __hip_bfloat16& a, const __hip_bfloat16& b)
      : x(a), y(b) {}
};
