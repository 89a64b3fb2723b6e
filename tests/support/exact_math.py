"""Correctly rounded values of CUDA's own math functions (mpmath, 60 digits and more), and the
distance of a computed result from them in units in the last place."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import mpmath

FLOAT_MAX = 3.4028234663852886e38


def _erfcinv(z: mpmath.mpf) -> mpmath.mpf:
    """erfc⁻¹(z) = erf⁻¹(1 - z), with the difference kept exact for the smallest z."""
    if z == 0:
        return mpmath.inf
    if z == 2:
        return -mpmath.inf
    with mpmath.workprec(1200):
        return mpmath.erfinv(1 - z)


def _erfcx(x: mpmath.mpf) -> mpmath.mpf:
    """exp(x²)·erfc(x); for large x its asymptotic series (mpmath's erfc gives up there), whose
    20 terms are exact to far beyond a double when x > 10^6."""
    if x < 10**6:
        return mpmath.exp(x * x) * mpmath.erfc(x)
    total, term = mpmath.mpf(1), mpmath.mpf(1)
    for k in range(1, 20):
        term *= -(2 * k - 1) / (2 * x * x)
        total += term
    return total / (x * mpmath.sqrt(mpmath.pi))


def _erfinv(y: mpmath.mpf) -> mpmath.mpf:
    if abs(y) == 1:
        return mpmath.inf * y
    with mpmath.workprec(300):
        return mpmath.erfinv(y)


EXACT: dict[str, Callable[[mpmath.mpf], mpmath.mpf]] = {
    "erfinv": _erfinv,
    "erfcinv": _erfcinv,
    "erfcx": _erfcx,
    "normcdf": lambda x: mpmath.erfc(-x / mpmath.sqrt(2)) / 2,
    "normcdfinv": lambda p: -mpmath.sqrt(2) * _erfcinv(2 * p),
    "rcbrt": lambda x: mpmath.sign(x) / mpmath.cbrt(abs(x)),  # a zero argument: exact()
    "rsqrt": lambda x: 1 / mpmath.sqrt(x),
    "sinpi": mpmath.sinpi,
    "cospi": mpmath.cospi,
    "sin": mpmath.sin,
}


def to_float32(value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        return value
    if abs(value) > FLOAT_MAX:
        rounded_up = abs(value) >= FLOAT_MAX + 2.0**103  # half an ulp of FLT_MAX beyond it
        return math.copysign(math.inf if rounded_up else FLOAT_MAX, value)
    return float(struct.unpack("f", struct.pack("f", value))[0])


def exact(name: str, argument: float, single: bool) -> tuple[mpmath.mpf, float]:
    """The exact value (as mpmath holds it) and its correctly rounded double or float."""
    if argument == 0 and name in ("rcbrt", "rsqrt"):  # mpmath has no -0: 1/∛-0 is -inf
        pole = math.copysign(math.inf, argument)
        return mpmath.mpf(pole), pole
    with mpmath.workdps(60):
        value = EXACT[name](mpmath.mpf(argument))
        rounded = float(value)
    return value, to_float32(rounded) if single else rounded


def ulp_error(result: float, value: mpmath.mpf, rounded: float, single: bool) -> float:
    """|result - exact| in ulps of the correctly rounded value; 0 for a matching infinity,
    zero or NaN (a zero's sign is not checked: mpmath's zero has none), inf for any other
    result where one of those is due."""
    if math.isnan(rounded) or math.isinf(rounded) or rounded == 0:
        same = (math.isnan(result) and math.isnan(rounded)) or result == rounded
        return 0.0 if same else math.inf
    if math.isnan(result) or math.isinf(result):
        return math.inf
    if single:
        exponent = math.frexp(rounded)[1]
        unit = 2.0 ** max(exponent - 24, -149)
    else:
        unit = math.ulp(rounded)
    with mpmath.workdps(60):
        return float(abs(mpmath.mpf(result) - value) / unit)
