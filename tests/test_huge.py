"""Single huge integers (one instance of 2^20 and 2^22 bits) through the public API,
exact against gmpy2: full and low products, squares, and a quotient.

At these widths the library multiplies by the four-step NTT (transforms of 2^16
and 2^18 points, spread over the device within the one instance) and divides
through Newton's reciprocal on top of it (docs/multiplication.md, "Huge
integers"; the CPU backends choose long division up to 2^20 bits, so the test
also forces the reciprocal). The operands are the cases that break carries and the CRT bound:
all-ones (the largest convolution coefficients), powers of two, one operand of
one limb, and random values.
"""
from __future__ import annotations

import gmpy2
import pytest

import futbig as fb
from futbig import _backend, _kernels

from bigints import mask
from conftest import TEST_BACKENDS

#: (backend, bits): 2^20 and 2^22 bits everywhere, 2^24 and 2^27 bits on the GPU too.
PRODUCTS = [(b, bits) for b in TEST_BACKENDS for bits in [2**20, 2**22] + ([2**24, 2**27] if b == "cuda" else [])]
QUOTIENTS = [(b, bits) for b in TEST_BACKENDS for bits in [2**20] + ([2**24] if b == "cuda" else [])]


def cases(rng, bits: int) -> list[tuple[str, int, int]]:
    """(name, a, b) pairs of `bits`-bit operands."""
    ones = mask(bits)
    return [
        ("random", rng.getrandbits(bits) | 1 << (bits - 1), rng.getrandbits(bits)),
        ("all-ones", ones, ones),
        ("powers of two", 1 << (bits - 1), 1 << rng.randrange(bits)),
        ("one small operand", ones, rng.getrandbits(64) | 1),
    ]


def one(value: int, bits: int) -> fb.Array:
    return fb.array([value], bits=bits)


@pytest.mark.parametrize("backend_name, bits", PRODUCTS)
def test_single_products(backend_name, bits, rng):
    _backend.set_backend(backend_name)
    for name, x, y in cases(rng, bits):
        a, b = one(x, bits), one(y, bits)
        X, Y = gmpy2.mpz(x), gmpy2.mpz(y)
        assert fb.mul_full(a, b).to_ints() == [X * Y], f"mul_full, {name}, {bits} bits"
        if bits <= 2**20 or name in ("random", "all-ones"):  # the wider ones kept short on a CPU
            assert (a * b).to_ints() == [(X * Y) & mask(bits)], f"a * b, {name}, {bits} bits"
        if (bits <= 2**20 and name == "random") or name == "all-ones":  # squares: one forward transform
            assert (a * a).to_ints() == [(X * X) & mask(bits)], f"a * a, {name}, {bits} bits"
            assert fb.mul_full(a, a).to_ints() == [X * X], f"mul_full(a, a), {name}, {bits} bits"


@pytest.mark.parametrize("backend_name, bits", QUOTIENTS)
def test_single_quotient(backend_name, bits, rng):
    """The library's choice and, forced, Newton's reciprocal on the NTT products (the
    CPU backends divide 2^20 bits by long division)."""
    _backend.set_backend(backend_name)
    x = rng.getrandbits(bits) | 1 << (bits - 1)
    X = gmpy2.mpz(x)
    for y in (rng.getrandbits(bits // 2) | 1 << (bits // 2 - 1), mask(bits) >> 3):
        a, b = one(x, bits), one(y, bits)
        want = ([X // y], [X % y])
        q, r = divmod(a, b)
        assert (q.to_ints(), r.to_ints()) == want, f"divmod by a {y.bit_length()}-bit divisor"
        dtype = fb.uint(bits)
        q, r, _ = _kernels.divmod_by(_backend.context(), _kernels.DIV_NEWTON, a.device_array, b.device_array)
        got = (dtype.from_device(q, 1).to_ints(), dtype.from_device(r, 1).to_ints())
        assert got == want, f"Newton's divmod by a {y.bit_length()}-bit divisor"


def test_products_wider_than_the_ntt_are_refused(backend):
    """Past 2^27 bits only classical per-row products would serve, for hours: a clear error instead."""
    a = fb.array([3], bits=2**27 + 1)
    for product in (lambda: a * a, lambda: fb.mul_full(a, a), lambda: a * fb.array([5], bits=2**27 + 1)):
        with pytest.raises(ValueError, match=r"at most 2\*\*27 bits \(2097152 limbs\); these have 2097156 limbs"):
            product()
    assert a.to_ints() == [3]
