enum class E { A };
SIDE void f() { enum class E e = E::A; (void)e; }
