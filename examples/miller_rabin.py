"""Miller-Rabin primality tests of many random 1024-bit candidates at once.

    python examples/miller_rabin.py [COUNT] [BITS]    # 4000 candidates of 1024 bits by default

Every candidate ``n`` (odd, top bit set) is written ``n - 1 = d * 2**s``
on the host. On the device: trial division by the odd primes below 54 (one
``%`` by their product, a one-limb scalar), then for each of a few fixed bases
``x = base**d mod n`` with one exponent and one modulus per instance
(``fb.powmod``), followed by up to ``max(s) - 1`` squarings; the candidates
that fail a base leave the batch before the next one, as a loop would stop
testing them. A candidate is a probable prime when every base finds
``x == 1`` or ``x == n - 1`` along the way. Trial division is checked
against ``gmpy2.gcd`` and the verdicts against gmpy2's strong-probable-prime test with the same bases
(``gmpy2.is_strong_prp``, GMP on one core), which is timed beside futbig.
"""
from __future__ import annotations

import math
import random
import sys
import time

import gmpy2
import numpy as np

import futbig as fb

#: Witnesses: the first primes. Any fixed set gives the same verdicts as GMP's
#: test with that set; with 12 of them no composite below 3.3 * 10**24 passes.
BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)

#: The odd primes below 54, whose product fits one 64-bit limb.
SMALL_PRIMES = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53)
PRIMORIAL = math.prod(SMALL_PRIMES)


def strong_probable_primes(n: fb.Array, bases: tuple[int, ...] = BASES) -> np.ndarray:
    """Which instances of ``n`` (odd, at least 5 and above every base) pass the
    strong-probable-prime test to every base, as a numpy bool array.

    >>> import futbig as fb
    >>> strong_probable_primes(fb.array([2**127 - 1, 2**127 + 1, 561, 1009], bits=128), (2, 3)).tolist()
    [True, False, False, True]
    """
    ints = n.to_ints()
    d_ints, s_list = [], []
    for x in ints:  # n - 1 = d * 2**s with d odd
        s = ((x - 1) & -(x - 1)).bit_length() - 1
        d_ints.append((x - 1) >> s)
        s_list.append(s)
    d, s = fb.array(d_ints, n.dtype), np.array(s_list)
    passed = np.ones(len(ints), dtype=bool)
    alive = np.arange(len(ints))  # the instances that passed every base so far
    for base in bases:
        minus_one = n - 1
        x = fb.powmod(fb.full(len(alive), base, n.dtype), d, n)
        decided = (x == 1) | (x == minus_one)  # numpy bool arrays
        for step in range(1, int(s.max())):
            x = fb.powmod(x, 2, n)
            decided |= (x == minus_one) & (step < s)
        passed[alive[~decided]] = False
        if decided.all():
            continue
        if not decided.any():
            break
        # Only the instances still in the running go on to the next base.
        alive, n, d, s = alive[decided], n[decided], d[decided], s[decided]
    return passed


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 4000
    bits = int(argv[1]) if len(argv) > 1 else 1024
    if count < 1 or bits < 64:
        raise SystemExit("COUNT must be at least 1 and BITS at least 64")
    print(f"futbig backend {fb.backend()}: {count} candidates of {bits} bits, {len(BASES)} bases")
    rng = random.Random(2026)
    candidates = [rng.getrandbits(bits) | (1 << (bits - 1)) | 1 for _ in range(count)]

    start = time.perf_counter()
    n = fb.array(candidates, bits=bits)
    residues = (n % PRIMORIAL).to_ints()  # one % per candidate, by a one-limb scalar
    survivors = np.array([math.gcd(r, PRIMORIAL) == 1 for r in residues])
    probable = np.zeros(count, dtype=bool)
    if survivors.any():
        probable[survivors] = strong_probable_primes(n[survivors])
    futbig_seconds = time.perf_counter() - start

    start = time.perf_counter()
    want_survivors = [gmpy2.gcd(c, PRIMORIAL) == 1 for c in candidates]
    want = [s and all(gmpy2.is_strong_prp(c, b) for b in BASES) for c, s in zip(candidates, want_survivors)]
    gmp_seconds = time.perf_counter() - start

    assert survivors.tolist() == want_survivors, "trial division differs from gmpy2.gcd"
    assert probable.tolist() == want, "the verdicts differ from gmpy2.is_strong_prp"
    print(f"{int(survivors.sum())} candidates survive trial division, {int(probable.sum())} are probable primes: "
          f"the same verdicts as GMP's")
    print(f"futbig {futbig_seconds * 1e3:.1f} ms (conversions included), gmpy2 {gmp_seconds * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
