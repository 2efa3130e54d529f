"""Many square roots to 4000 bits (about 1200 digits) at once, in fixed point.

    python examples/sqrt_digits.py [K]     # the roots of 2, 3, ..., K+1; K = 4096 by default

Each root is a 4096-bit fixed-point number with F = 4000 fraction bits. The
batch first finds ``1/sqrt(k)`` by Newton's iteration ``y += y*(1 - k*y*y)/2``,
which needs only multiplications and shifts (no division), starting from a
53-bit float guess and doubling the correct bits at each step; intermediate
values are signed (``fb.int``), 8192 bits wide so that every product is
exact. Then ``s = k*y`` is ``sqrt(k) * 2**F`` to within a few units in the
last place, and one exact correction makes it the floor:
``s*s <= k * 4**F < (s+1)*(s+1)``. Every root is checked against GMP
(``gmpy2.isqrt(k << 2*F)``), and both are timed.
"""
from __future__ import annotations

import math
import sys
import time

import gmpy2

import futbig as fb

F = 4000  #: fraction bits of the results
GUARD = 64  #: extra fraction bits of the reciprocal root (k < 2**60)
WIDE = fb.int(2 * 4096)  #: products of two 4096-bit fixed-point values fit


def sqrt_fixed(ks: list[int]) -> fb.Array:
    """``floor(sqrt(k) * 2**F)`` for every ``k`` of ``ks`` (``1 <= k < 2**60``), as an ``fb.uint(4096)`` array.

    >>> import gmpy2
    >>> sqrt_fixed([2, 9]).to_ints() == [gmpy2.isqrt(2 << 2 * F), 3 << F]
    True
    """
    k = fb.array(ks, WIDE)
    p = F + GUARD  # y carries guard bits: s = k*y multiplies its error by k
    one = 1 << p
    # 1/sqrt(k) to about 50 bits, from the float root, as fixed point.
    y = fb.array([int(2**50 / math.sqrt(x)) << (p - 50) for x in ks], WIDE)
    for _ in range(math.ceil(math.log2(p / 45)) + 1):  # each step doubles the correct bits
        e = one - k * ((y * y) >> p)  # 1 - k*y*y (k is an integer, not fixed point): small, of either sign
        y = y + ((y * e) >> (p + 1))
    s = (k * y) >> GUARD  # sqrt(k) * 2**F, off by a few units in the last place
    target = k << (2 * F)
    for _ in range(4):  # the exact floor: s*s <= k*4**F < (s+1)**2
        s = fb.where(s * s > target, s - 1, s)
        s = fb.where((s + 1) * (s + 1) <= target, s + 1, s)
    return s.astype(fb.uint(4096))


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 4096
    if count < 1:
        raise SystemExit("K must be at least 1")
    ks = list(range(2, count + 2))
    print(f"futbig backend {fb.backend()}: the square roots of 2..{count + 1} to {F} bits")

    start = time.perf_counter()
    roots = sqrt_fixed(ks).to_ints()
    futbig_seconds = time.perf_counter() - start

    start = time.perf_counter()
    want = [gmpy2.isqrt(k << (2 * F)) for k in ks]
    gmp_seconds = time.perf_counter() - start

    bad = [k for k, got, ref in zip(ks, roots, want) if got != ref]
    assert not bad, f"{len(bad)} roots differ from gmpy2.isqrt, the first that of {bad[0]}"
    digits = str(roots[0] * 10**60 >> F)
    print(f"sqrt(2) = {digits[0]}.{digits[1:]}...")
    print(f"all {count} roots equal to GMP's; futbig {futbig_seconds * 1e3:.1f} ms (conversions included), "
          f"gmpy2 {gmp_seconds * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
