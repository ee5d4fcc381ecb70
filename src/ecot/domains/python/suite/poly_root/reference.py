def poly(coeffs: list[float], x: float) -> float:
    """coeffs[0] + coeffs[1] * x + ... + coeffs[n] * x ** n"""
    return sum(c * x ** i for i, c in enumerate(coeffs))


def find_root(coeffs: list[float], lo: float, hi: float) -> float:
    """A root of the polynomial in [lo, hi], as a float, by bisection."""
    lo, hi = float(lo), float(hi)
    f_lo = poly(coeffs, lo)
    if f_lo == 0:
        return lo
    if poly(coeffs, hi) == 0:
        return hi
    for _ in range(200):
        mid = (lo + hi) / 2
        f_mid = poly(coeffs, mid)
        if f_mid == 0 or hi - lo < 1e-15:
            return mid
        if (f_mid < 0) == (f_lo < 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2
