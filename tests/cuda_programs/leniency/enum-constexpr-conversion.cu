enum E { A, B };
constexpr E e = static_cast<E>(8);
SIDE int f() { return e; }
