def poly(coeffs: list[float], x: float) -> float:
    """coeffs[0] + coeffs[1] * x + ... + coeffs[n] * x ** n"""
    return sum(c * x ** i for i, c in enumerate(coeffs))


def find_root(coeffs: list[float], lo: float, hi: float) -> float:
    """A root of the polynomial in [lo, hi], as a float.
    >>> round(find_root([-2.0, 0.0, 1.0], 0.0, 2.0), 6)
    1.414214
    """
