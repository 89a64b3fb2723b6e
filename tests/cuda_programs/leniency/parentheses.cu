SIDE bool f(int a, int b, int c) { return a < b < c; }
