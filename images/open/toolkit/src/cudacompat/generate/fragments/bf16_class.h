/* fragment: __hip_bfloat16 as a class with CUDA's conversions. with_bfloat16_class() puts
   it in place of HIP 5.7's plain struct in amd_hip_bf16.h. */
#if defined(__HIP__)
#define MOATBRIDGE_BF16_HD __host__ __device__
#else
#define MOATBRIDGE_BF16_HD
#endif
struct moatbridge_bf16_bits {};
/* moatbridge: a class, as CUDA's __nv_bfloat16 is: it converts to and from float (so
   `float acc = x * y` and `ggml_cuda_mad(acc, b.x, b.y)` compile) and from the integer types.
   Storage and layout are HIP's: one unsigned short, trivially copyable. */
struct __hip_bfloat16 {
  unsigned short data;
  __hip_bfloat16() = default;
  MOATBRIDGE_BF16_HD constexpr __hip_bfloat16(moatbridge_bf16_bits, unsigned short bits) : data(bits) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(float value);
  MOATBRIDGE_BF16_HD __hip_bfloat16(double value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(short value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(unsigned short value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(int value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(unsigned int value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(long value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(unsigned long value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(long long value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD __hip_bfloat16(unsigned long long value) : __hip_bfloat16(static_cast<float>(value)) {}
  MOATBRIDGE_BF16_HD operator float() const;
};
