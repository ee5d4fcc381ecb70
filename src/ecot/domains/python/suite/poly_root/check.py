import random


def cubic(a, b, c):
    """The coefficients of (x - a)(x - b)(x - c)."""
    return [-a * b * c, a * b + a * c + b * c, -(a + b + c), 1.0]


def check(candidate):
    root = candidate([-2.0, 0.0, 1.0], 0.0, 2.0)
    assert isinstance(root, float)
    assert abs(root - 2 ** 0.5) < 1e-6
    # three roots in the interval: any of them is right
    coeffs = [0.0, -1.0, 0.0, 1.0]
    root = candidate(coeffs, -2.0, 2.0)
    assert -2.0 <= root <= 2.0 and abs(poly(coeffs, root)) < 1e-6
    # a root at an end of the interval
    assert abs(candidate([-3.0, 1.0], 3.0, 10.0) - 3.0) < 1e-6
    rng = random.Random(20240611)
    for _ in range(40):
        a, b, c = sorted(rng.uniform(-50.0, 50.0) for _ in range(3))
        coeffs = cubic(a, b, c)
        lo, hi = a - rng.uniform(0.5, 5.0), (a + b) / 2
        root = candidate(coeffs, lo, hi)
        assert lo <= root <= hi
        assert abs(poly(coeffs, root)) < 1e-6 * max(1.0, abs(a * b * c))


check(find_root)
