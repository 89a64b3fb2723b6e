template <class T> struct S { template <class U> SIDE static void g(); };
template <class T> SIDE void f() { auto p = &S<T>::template g; (void)p; }
