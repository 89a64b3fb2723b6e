SIDE void f() { register double t = 1; (void)t; }
