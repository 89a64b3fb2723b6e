/* moatbridge: the type traits the device headers use, in one namespace that serves both
   compilers. nvcc's compiles have <type_traits>; runtime compilation (hiprtc, behind nvrtc.h)
   must not include it (hiprtc's own partial std clashes with the system's) and has only some
   of it, a different part on each HIP version. So the headers say moatbridge_traits::, which
   is std's under nvcc and clang's type-trait builtins under hiprtc. */
#pragma once
#if !defined(__HIPCC_RTC__)
#include <type_traits>
namespace moatbridge_traits {
using std::conditional;
template <class T> using decay_t = typename std::decay<T>::type; /* std::decay_t is C++14's */
using std::enable_if;
using std::false_type;
using std::integral_constant;
using std::is_floating_point;
using std::is_same;
using std::is_scalar;
using std::is_trivially_copyable;
using std::true_type;
}  // namespace moatbridge_traits
#else
namespace moatbridge_traits {
template <class T, T V> struct integral_constant {
    static constexpr T value = V;
    typedef T value_type;
    typedef integral_constant type;
    constexpr operator T() const { return V; }
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <class T, class U> struct is_same : integral_constant<bool, __is_same(T, U)> {};
template <class T> struct is_floating_point : integral_constant<bool, __is_floating_point(T)> {};
template <class T> struct is_scalar : integral_constant<bool, __is_scalar(T)> {};
template <class T> struct is_trivially_copyable : integral_constant<bool, __is_trivially_copyable(T)> {};
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T&> { typedef T type; };
template <class T> struct remove_reference<T&&> { typedef T type; };
template <class T> struct remove_cv { typedef T type; };
template <class T> struct remove_cv<const T> { typedef T type; };
template <class T> struct remove_cv<volatile T> { typedef T type; };
template <class T> struct remove_cv<const volatile T> { typedef T type; };
template <class T> struct decay_of { typedef typename remove_cv<T>::type type; };
template <class T> struct decay_of<T[]> { typedef T* type; };
template <class T, __SIZE_TYPE__ N> struct decay_of<T[N]> { typedef T* type; };
template <class R, class... A> struct decay_of<R(A...)> { typedef R (*type)(A...); };
template <class T> using decay_t = typename decay_of<typename remove_reference<T>::type>::type;
}  // namespace moatbridge_traits
#endif
