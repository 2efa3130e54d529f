"""Exact factorials and central binomials by product trees on the device.

    python examples/factorial.py [N]      # N! and C(2N, N); N = 20000 by default

The numbers 1..N start as one batch of 64-bit integers. Each level of the
tree multiplies the first half of the batch by the second half with exact
full products (``fb.mul_full``), and cuts the products to the narrowest width
that holds them, so the batch halves and the width about doubles until one
integer is left: ``log2(N)`` batched multiplications, the last ones by the
NTT. ``C(2N, N)`` is the product of ``N+1..2N`` divided exactly by
``N!`` on the device. Both are checked against GMP (gmpy2) and timed beside
it.
"""
from __future__ import annotations

import sys
import time

import gmpy2

import futbig as fb


def product_tree(values: fb.Array) -> fb.Array:
    """The product of all elements of ``values``, as a one-element array of
    the narrowest width (a multiple of 64 bits) that holds the product.

    >>> import futbig as fb, math
    >>> product_tree(fb.array(range(1, 21), bits=64)).to_ints() == [math.factorial(20)]
    True
    """
    x = values
    while len(x) > 1:
        if len(x) % 2:  # pad with a 1 so that the halves pair up
            x = fb.concatenate([x, fb.full(1, 1, x.dtype)])
        half = len(x) // 2
        x = fb.mul_full(x[:half], x[half:])  # twice the width: more than the products need
        need = int(x.bit_length().max())
        x = x.astype(fb.uint(max(64, -(-need // 64) * 64)))  # the narrowest width that holds them
    return x


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 20000
    if n < 1:
        raise SystemExit("N must be at least 1")
    print(f"futbig backend {fb.backend()}: N = {n}")

    start = time.perf_counter()
    factorial = product_tree(fb.array(range(1, n + 1), bits=64))
    upper = product_tree(fb.array(range(n + 1, 2 * n + 1), bits=64))
    binomial = upper // factorial  # exact: both trees have N leaves, so one dtype
    got_factorial, got_binomial = factorial[0], binomial[0]
    futbig_seconds = time.perf_counter() - start

    start = time.perf_counter()
    want_factorial, want_binomial = gmpy2.fac(n), gmpy2.comb(2 * n, n)
    gmp_seconds = time.perf_counter() - start

    assert got_factorial == want_factorial, "N! differs from gmpy2.fac"
    assert got_binomial == want_binomial, "C(2N, N) differs from gmpy2.comb"
    print(f"N! has {int(want_factorial).bit_length()} bits, C(2N, N) {int(want_binomial).bit_length()} bits: "
          f"both equal to GMP's")
    print(f"futbig {futbig_seconds * 1e3:.1f} ms (conversions included), gmpy2 {gmp_seconds * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
