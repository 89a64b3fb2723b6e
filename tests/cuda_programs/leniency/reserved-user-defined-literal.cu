#define FMT "d"
SIDE const char* f() { return "%"FMT; }
