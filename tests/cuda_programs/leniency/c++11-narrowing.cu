SIDE void f(double d) { float a[1] = {d}; (void)a; }
SIDE void g(long long v) { int a[1] = {v}; (void)a; }
