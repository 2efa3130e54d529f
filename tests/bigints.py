"""Generators of test integers and the GMP oracle shared by every test module.

Values are Python ints; the oracle computes with gmpy2 (GMP) and converts back,
so a test compares futbig against GMP, never against a hard-coded output.
"""
from __future__ import annotations

import random
from typing import Iterator

import gmpy2

#: Limb counts that every operation is checked at: tiny, around multiples of
#: 4 limbs (the kernels' Q), around 64, and the largest block-level width.
WIDTHS_LIMBS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256, 1000, 1024, 4096)
#: A cheaper subset for expensive operations (multiplication, division).
WIDTHS_LIMBS_SMALL: tuple[int, ...] = (1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 64, 65, 256)
#: Bit widths that are not multiples of 64.
ODD_BITS: tuple[int, ...] = (1, 7, 63, 65, 100, 127, 129, 1000, 4095)


def mask(bits: int) -> int:
    """2^bits - 1."""
    return (1 << bits) - 1


def special_values(bits: int) -> list[int]:
    """Adversarial values of a width: zeros, ones, all-ones limbs, powers of two,
    long carry and borrow chains, a single high limb, alternating limbs."""
    m = mask(bits)
    limbs = (bits + 63) // 64
    values = {0, 1, 2, m, m - 1, 1 << (bits - 1), m >> 1, (m >> 1) + 1}
    for k in {0, 1, 31, 32, 63, 64, 65, bits // 2, bits - 64, bits - 1}:
        if 0 <= k < bits:
            values.add(1 << k)  # single set bit
            values.add(m ^ (1 << k))  # all ones but one
            values.add(m - ((1 << k) - 1))  # ones from bit k up: carries ripple from k
    ones_limb = (1 << 64) - 1
    alternating = sum(ones_limb << (64 * i) for i in range(0, limbs, 2)) & m
    values.update({alternating, m ^ alternating, (ones_limb << (64 * (limbs - 1))) & m})
    return sorted(v for v in values if 0 <= v <= m)


def random_values(rng: random.Random, n: int, bits: int) -> list[int]:
    """n values below 2^bits: half full-width, half of random bit length (so
    leading zero limbs of every count occur), some with long runs of ones."""
    out = []
    for i in range(n):
        kind = i % 4
        if kind in (0, 1):
            out.append(rng.getrandbits(bits))
        elif kind == 2:
            out.append(rng.getrandbits(rng.randint(1, bits)))
        else:  # a run of ones somewhere: a carry chain of random length
            lo = rng.randrange(bits)
            hi = rng.randint(lo + 1, bits)
            out.append((mask(hi) ^ mask(lo)) | rng.getrandbits(max(lo, 1)) & mask(lo))
    return out


def operand_pairs(rng: random.Random, n: int, bits: int) -> tuple[list[int], list[int]]:
    """n random pairs followed by every pair of special values that carries or
    borrows across the whole width (x + (2^bits - x), all-ones + 1, a == b)."""
    a = random_values(rng, n, bits)
    b = random_values(rng, n, bits)
    specials = special_values(bits)
    m = mask(bits)
    for x in specials:
        for y in (x, m - x, (m - x + 1) & m, 1, m, 0):
            a.append(x)
            b.append(y)
    return a, b


def batches(rng: random.Random, bits: int, sizes: tuple[int, ...] = (1, 2, 3, 100)) -> Iterator[list[int]]:
    """Batches of the given sizes (instance counts) of random values."""
    for n in sizes:
        yield random_values(rng, n, bits)


class GMP:
    """The oracle: what GMP computes, reduced like futbig's fixed widths."""

    @staticmethod
    def add(a: int, b: int, bits: int) -> tuple[int, bool]:
        s = gmpy2.mpz(a) + b
        return int(s & mask(bits)), bool(s >> bits)

    @staticmethod
    def sub(a: int, b: int, bits: int) -> tuple[int, bool]:
        d = gmpy2.mpz(a) - b
        return int(d & mask(bits)), d < 0

    @staticmethod
    def mul_lo(a: int, b: int, bits: int) -> int:
        return int((gmpy2.mpz(a) * b) & mask(bits))

    @staticmethod
    def mul_full(a: int, b: int) -> int:
        return int(gmpy2.mpz(a) * b)

    @staticmethod
    def divmod(a: int, b: int) -> tuple[int, int]:
        q, r = gmpy2.f_divmod(gmpy2.mpz(a), b)
        return int(q), int(r)
