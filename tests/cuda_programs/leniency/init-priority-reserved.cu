struct A { A(); };
A a __attribute__((init_priority(50)));
SIDE void f() {}
