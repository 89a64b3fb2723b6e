// CUDA's own math functions called from host code, as a CUDA source's host reference code
// calls them: each printed as "name input result" in hexadecimal floating point, for the test
// to measure against correctly rounded values. No GPU is used.
#include <cmath>
#include <cstdio>
#include <vector>
// As NVIDIA's radixSortThrust sample does: Thrust's random numbers beside CUDA's host math
// (rocThrust's normal distribution defines a host erfcinv of its own; the calls below must
// still reach CUDA's).
#include <thrust/random.h>

static std::vector<double> spaced(double low, double high, int count) {
    std::vector<double> values;
    for (int i = 0; i <= count; ++i) values.push_back(low + (high - low) * i / count);
    return values;
}

static std::vector<double> with(std::vector<double> values, std::initializer_list<double> more) {
    values.insert(values.end(), more);
    return values;
}

template <class Function>
static void each(const char* name, const std::vector<double>& inputs, Function function) {
    for (double x : inputs) std::printf("%s %a %a\n", name, x, (double)function(x));
}

int main() {
    const double tiny = 4.9406564584124654e-324, below_one = 0.99999999999999989, infinity = HUGE_VAL;
    auto probabilities = with(spaced(0.0, 1.0, 200), {tiny, 1e-300, 1e-100, 1e-20, 1e-8, 0.0625, below_one});
    auto symmetric = with(spaced(-1.0, 1.0, 200), {1e-300, -1e-10, 0.49999, 0.5, -0.75, 0.999999, -below_one});
    auto twos = with(spaced(0.0, 2.0, 200), {tiny, 1e-300, 1e-100, 1e-20, 1e-5, 0.0625, 1.9999999, 2.0 - 2.2e-16});
    auto wide = with(spaced(-30.0, 40.0, 280), {-26.6, -26.0, -1e-10, 1e-10, 25.9, 26.0, 26.1, 1e5, 1e10, 1e160, 1e300, infinity, -infinity});
    auto tails = with(spaced(-39.0, 9.0, 240), {-38.4, -37.5, -1e-8, 1e-8, 1e300, -infinity, infinity});
    auto roots = with(spaced(-1000.0, 1000.0, 200), {1e-300, -1e-300, tiny, 1e300, -8.0, 27.0, 0.125});
    auto turns = with(spaced(-8.0, 8.0, 256), {0.25, -0.75, 1e-300, -1e-20, 0.3, 12345.5, 4503599627370495.5, 1e17, -3.0e15, 1e308, -9007199254740993.0});

    each("erfinv", symmetric, [](double x) { return erfinv(x); });
    each("erfcinv", twos, [](double x) { return erfcinv(x); });
    each("erfcx", wide, [](double x) { return erfcx(x); });
    each("normcdf", tails, [](double x) { return normcdf(x); });
    each("normcdfinv", probabilities, [](double x) { return normcdfinv(x); });
    each("rcbrt", roots, [](double x) { return rcbrt(x); });
    each("rsqrt", with(spaced(0.0, 100.0, 100), {tiny, 1e-300, 1e300}), [](double x) { return rsqrt(x); });
    each("sinpi", turns, [](double x) { double s, c; sincospi(x, &s, &c); return s; });
    each("cospi", turns, [](double x) { double s, c; sincospi(x, &s, &c); return c; });

    // the float overloads and the f-suffixed names ("name.float"), on the inputs rounded to float
    each("erfinv.float", symmetric, [](double x) { return erfinvf((float)x); });
    each("erfcinv.float", twos, [](double x) { return erfcinv((float)x); });
    each("erfcx.float", wide, [](double x) { return erfcxf((float)x); });
    each("normcdf.float", tails, [](double x) { return normcdf((float)x); });
    each("normcdfinv.float", probabilities, [](double x) { return normcdfinvf((float)x); });
    each("rcbrt.float", roots, [](double x) { return rcbrtf((float)x); });
    each("rsqrt.float", spaced(0.0, 100.0, 100), [](double x) { return rsqrtf((float)x); });
    each("sinpi.float", turns, [](double x) { float s, c; sincospif((float)x, &s, &c); return s; });
    each("cospi.float", turns, [](double x) { float s, c; sincospi((float)x, &s, &c); return c; });
    each("sin.float", turns, [](double x) { float s, c; sincos((float)x, &s, &c); return s; });
    return 0;
}
