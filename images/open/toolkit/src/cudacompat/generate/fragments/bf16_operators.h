/* fragment: the members bf16_class.h declares, and CUDA's operators of __hip_bfloat16
   and __hip_bfloat162. with_bfloat16_class() puts it before the last #endif (the include
   guard's) of amd_hip_bf16.h. */
/* moatbridge: CUDA's __nv_bfloat16 members and operators (computed in float, as CUDA's are on
   GPUs without bf16 arithmetic; rounded to nearest even). */
MOATBRIDGE_BF16_HD inline __hip_bfloat16::__hip_bfloat16(float value) : data(__float2bfloat16(value).data) {}
MOATBRIDGE_BF16_HD inline __hip_bfloat16::operator float() const { return __bfloat162float(*this); }
#define MOATBRIDGE_BF16_BINARY(op)                                                                     \
  MOATBRIDGE_BF16_HD inline __hip_bfloat16 operator op(const __hip_bfloat16& a, const __hip_bfloat16& b) { \
    return __hip_bfloat16(static_cast<float>(a) op static_cast<float>(b));                             \
  }                                                                                                    \
  MOATBRIDGE_BF16_HD inline __hip_bfloat16& operator op##=(__hip_bfloat16& a, const __hip_bfloat16& b) { \
    return a = a op b;                                                                                 \
  }                                                                                                    \
  MOATBRIDGE_BF16_HD inline __hip_bfloat162 operator op(const __hip_bfloat162& a,                     \
                                                        const __hip_bfloat162& b) {                    \
    return __hip_bfloat162(a.x op b.x, a.y op b.y);                                                    \
  }                                                                                                    \
  MOATBRIDGE_BF16_HD inline __hip_bfloat162& operator op##=(__hip_bfloat162& a, const __hip_bfloat162& b) { \
    return a = a op b;                                                                                 \
  }
MOATBRIDGE_BF16_BINARY(+)
MOATBRIDGE_BF16_BINARY(-)
MOATBRIDGE_BF16_BINARY(*)
MOATBRIDGE_BF16_BINARY(/)
#undef MOATBRIDGE_BF16_BINARY
#define MOATBRIDGE_BF16_COMPARE(op)                                                                   \
  MOATBRIDGE_BF16_HD inline bool operator op(const __hip_bfloat16& a, const __hip_bfloat16& b) {      \
    return static_cast<float>(a) op static_cast<float>(b);                                            \
  }                                                                                                   \
  MOATBRIDGE_BF16_HD inline bool operator op(const __hip_bfloat162& a, const __hip_bfloat162& b) {    \
    return (a.x op b.x) && (a.y op b.y);                                                              \
  }
MOATBRIDGE_BF16_COMPARE(==)
MOATBRIDGE_BF16_COMPARE(<)
MOATBRIDGE_BF16_COMPARE(>)
MOATBRIDGE_BF16_COMPARE(<=)
MOATBRIDGE_BF16_COMPARE(>=)
#undef MOATBRIDGE_BF16_COMPARE
/* unordered: true when either is NaN, as CUDA's __hbne */
MOATBRIDGE_BF16_HD inline bool operator!=(const __hip_bfloat16& a, const __hip_bfloat16& b) {
  return !(a == b);
}
MOATBRIDGE_BF16_HD inline bool operator!=(const __hip_bfloat162& a, const __hip_bfloat162& b) {
  return (a.x != b.x) && (a.y != b.y);
}
MOATBRIDGE_BF16_HD inline __hip_bfloat16 operator+(const __hip_bfloat16& a) { return a; }
MOATBRIDGE_BF16_HD inline __hip_bfloat16 operator-(const __hip_bfloat16& a) {
  return __hip_bfloat16(moatbridge_bf16_bits(), static_cast<unsigned short>(a.data ^ 0x8000u));
}
MOATBRIDGE_BF16_HD inline __hip_bfloat162 operator+(const __hip_bfloat162& a) { return a; }
MOATBRIDGE_BF16_HD inline __hip_bfloat162 operator-(const __hip_bfloat162& a) {
  return __hip_bfloat162(-a.x, -a.y);
}
MOATBRIDGE_BF16_HD inline __hip_bfloat16& operator++(__hip_bfloat16& a) { return a += __hip_bfloat16(1.0f); }
MOATBRIDGE_BF16_HD inline __hip_bfloat16& operator--(__hip_bfloat16& a) { return a -= __hip_bfloat16(1.0f); }
MOATBRIDGE_BF16_HD inline __hip_bfloat16 operator++(__hip_bfloat16& a, int) {
  __hip_bfloat16 old = a;
  ++a;
  return old;
}
MOATBRIDGE_BF16_HD inline __hip_bfloat16 operator--(__hip_bfloat16& a, int) {
  __hip_bfloat16 old = a;
  --a;
  return old;
}
#undef MOATBRIDGE_BF16_HD
