/* moatbridge: <climits>'s macros for every compiler the device headers meet. Runtime
   compilation (hiprtc) has no C library headers of its own and must not depend on the
   system's (a runtime image has none), so there they come from the compiler's predefined
   limits. */
#pragma once
#if !defined(__HIPCC_RTC__)
#include <climits>
#else
#ifndef CHAR_BIT
#define CHAR_BIT __CHAR_BIT__
#endif
#ifndef SCHAR_MAX
#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#endif
#ifndef SHRT_MAX
#define SHRT_MAX __SHRT_MAX__
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#endif
#ifndef INT_MAX
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#endif
#ifndef LONG_MAX
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#endif
#ifndef LLONG_MAX
#define LLONG_MAX __LONG_LONG_MAX__
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif
#endif
