"""The signed dtype fb.int(bits) and the number functions, against gmpy2 and Python ints.

Signed values are checked at widths around the limb boundaries with the
extreme values (min, max, -1, 0, 1) paired with each other and with random
and adversarial values (the unsigned special values read as two's complement).
"""
from __future__ import annotations

import math
import operator
import random

import gmpy2
import numpy as np
import pytest

import futbig as fb
from bigints import mask, random_values, special_values

WIDTHS = [2, 63, 64, 65, 128, 1000, 4096]


def signed(v: int, bits: int) -> int:
    """The unsigned pattern ``v`` read as ``bits``-bit two's complement (wraps any int)."""
    v &= mask(bits)
    return v - (1 << bits) if v >> (bits - 1) else v


def extremes(bits: int) -> list[int]:
    return sorted({-(1 << (bits - 1)), (1 << (bits - 1)) - 1, -1, 0, 1})


def values(rng: random.Random, bits: int, n: int = 8) -> list[int]:
    """Extremes, adversarial patterns and random values of int(bits)."""
    specials = [signed(v, bits) for v in special_values(bits)]
    picked = rng.sample(specials, min(8, len(specials)))
    return extremes(bits) + picked + [signed(v, bits) for v in random_values(rng, n, bits)]


def pairs(rng: random.Random, bits: int) -> tuple[list[int], list[int]]:
    """Every pair of extremes, each extreme with random values, and random pairs."""
    ext = extremes(bits)
    a = [x for x in ext for _ in ext]
    b = [y for _ in ext for y in ext]
    others = values(rng, bits)
    a += ext * 2 + others + rng.sample(others, len(others))
    b += rng.sample(others, len(ext)) + others[: len(ext)] + others[::-1] + others
    return a, b


def check(got: fb.Array, want: list[int], what: str, dtype: fb.BigIntType) -> None:
    assert isinstance(got, fb.Array) and got.dtype == dtype, f"{what}: dtype {got.dtype}, not {dtype}"
    values_ = got.to_ints()
    bad = [i for i, (g, w) in enumerate(zip(values_, want)) if g != w]
    assert len(values_) == len(want) and not bad, f"{what} at {dtype}: instance {bad[:1]} differs from Python"


@pytest.mark.parametrize("bits", WIDTHS)
def test_wrapping_operations(backend, rng, bits):
    t = fb.int(bits)
    a, b = pairs(rng, bits)
    A, B = fb.array(a, t), fb.array(b, t)
    assert A.to_ints() == a and B.to_ints() == b
    for op in (operator.add, operator.sub, operator.mul, operator.and_, operator.or_, operator.xor):
        check(op(A, B), [signed(op(x, y), bits) for x, y in zip(a, b)], op.__name__, t)
    check(A * A, [signed(x * x, bits) for x in a], "square", t)
    check(-A, [signed(-x, bits) for x in a], "neg", t)
    check(~A, [~x for x in a], "~", t)
    check(abs(A), [signed(abs(x), bits) for x in a], "abs", t)
    check(fb.sign(A), [(x > 0) - (x < 0) for x in a], "sign", t)
    check(A ** 3, [signed(x**3, bits) for x in a], "**", t)
    for k in sorted({0, 1, 63, 64, bits - 1, bits, bits + 7}):
        check(A << k, [signed(x << k, bits) for x in a], f"<< {k}", t)
        check(A >> k, [x >> k for x in a], f">> {k}", t)
    counts = [rng.randrange(bits + 3) for _ in a]
    check(A >> counts, [x >> k for x, k in zip(a, counts)], ">> each", t)
    check(A << counts, [signed(x << k, bits) for x, k in zip(a, counts)], "<< each", t)
    assert A.bit_length().tolist() == [x.bit_length() for x in a]
    assert fb.popcount(A).tolist() == [int(gmpy2.popcount(abs(gmpy2.mpz(x)))) for x in a]


@pytest.mark.parametrize("bits", WIDTHS)
def test_floor_division_and_exact_products(backend, rng, bits):
    t = fb.int(bits)
    a, b = pairs(rng, bits)
    b = [y or -1 for y in b]
    A, B = fb.array(a, t), fb.array(b, t)
    q, r = fb.divmod(A, B)
    want = [gmpy2.f_divmod(gmpy2.mpz(x), y) for x, y in zip(a, b)]
    check(q, [signed(int(w[0]), bits) for w in want], "//", t)  # min // -1 wraps to min
    check(r, [int(w[1]) for w in want], "%", t)
    check(A % B, [int(w[1]) for w in want], "%", t)
    wide = fb.int(2 * bits)
    check(fb.mul_full(A, B), [x * y for x, y in zip(a, b)], "mul_full", wide)
    check(fb.mul_full(A, A), [x * x for x in a], "mul_full square", wide)
    for k in {1, 3, 2**62 + 1, t.max, -1, -3, t.min}:
        if t.min <= k <= t.max:
            check(A // k, [signed(x // k, bits) for x in a], f"// {k}", t)
            check(A % k, [x % k for x in a], f"% {k}", t)
    # Without negative operands the unsigned operations run (no sign handling).
    pa, pb = [abs(x) % (t.max + 1) for x in a], [abs(y) % (t.max + 1) or 1 for y in b]
    PA, PB = fb.array(pa, t), fb.array(pb, t)
    check(PA // PB, [x // y for x, y in zip(pa, pb)], "// non-negative", t)
    check(PA % 7 if t.max >= 7 else PA % 1, [x % (7 if t.max >= 7 else 1) for x in pa], "% non-negative", t)
    check(fb.mul_full(PA, PB), [x * y for x, y in zip(pa, pb)], "mul_full non-negative", wide)
    check(fb.mul_full(PA, PA), [x * x for x in pa], "square non-negative", wide)
    check(PA >> 3, [x >> 3 for x in pa], ">> non-negative", t)
    with pytest.raises(ZeroDivisionError, match="divisor 2 is 0"):
        A // fb.array([1, 1, 0] + [1] * (len(a) - 3), t)
    with pytest.raises(ZeroDivisionError, match="divisor 1 is 0"):
        PA // fb.array([1, 0] + [1] * (len(a) - 2), t)
    with pytest.raises(ZeroDivisionError):
        A % 0


@pytest.mark.parametrize("bits", WIDTHS)
def test_comparisons_scalars_and_overflow(backend, rng, bits):
    t = fb.int(bits)
    a, b = pairs(rng, bits)
    A, B = fb.array(a, t), fb.array(b, t)
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        assert op(A, B).tolist() == [op(x, y) for x, y in zip(a, b)], op.__name__
    assert fb.compare(A, B).tolist() == [(x > y) - (x < y) for x, y in zip(a, b)]
    for s in (-1, t.min, t.max, t.min - 1, t.max + 1, -(2**5000)):
        assert (A < s).tolist() == [x < s for x in a] and (s <= A).tolist() == [s <= x for x in a]
    for s in (-1, t.min, t.max):
        check(A + s, [signed(x + s, bits) for x in a], f"+ {s}", t)
        check(s - A, [signed(s - x, bits) for x in a], f"{s} -", t)
        check(A * s, [signed(x * s, bits) for x in a], f"* {s}", t)
    for op, name in ((operator.add, "add"), (operator.sub, "sub"), (operator.mul, "mul")):
        fits = [t.min <= op(x, y) <= t.max for x, y in zip(a, b)]
        fn = getattr(fb, name)
        if all(fits):
            check(fn(A, B, overflow="raise"), [op(x, y) for x, y in zip(a, b)], name, t)
        else:
            with pytest.raises(OverflowError, match=f"{name} overflowed int\\({bits}\\) at index {fits.index(False)} "):
                fn(A, B, overflow="raise")
        ok = [i for i, f in enumerate(fits) if f]
        check(fn(A[ok], B[ok], overflow="raise"), [op(a[i], b[i]) for i in ok], name, t)
    with pytest.raises(OverflowError, match="scalar"):
        A + (t.max + 1)
    with pytest.raises(OverflowError, match="element 1 .* does not fit in int"):
        fb.array([0, t.min - 1], t)
    with pytest.raises(OverflowError, match="element 2 .* does not fit in int"):
        fb.array([0, 1, t.max + 1], t)


@pytest.mark.parametrize("bits", [2, 64, 65, 1000])
def test_conversions(backend, rng, bits):
    t = fb.int(bits)
    a = values(rng, bits)
    A = fb.array(a, t)
    assert fb.array([gmpy2.mpz(x) for x in a], t).to_ints() == a
    assert np.asarray(A).tolist() == a and list(A) == a and A[len(a) - 1] == a[-1]
    record = -(-bits // 8)
    for order in ("little", "big"):
        data = b"".join(x.to_bytes(record, order, signed=True) for x in a)
        assert A.tobytes(order) == data
        assert fb.frombytes(data, t, order).to_ints() == a
    k64, k32 = -(-bits // 64), -(-bits // 32)
    limbs = np.array([[(x >> (64 * i)) & mask(64) for i in range(k64)] for x in a], dtype=np.uint64)
    assert np.array_equal(A.to_limbs(), limbs)
    assert np.array_equal(A.to_limbs(np.uint32), A.to_limbs().view("<u4")[:, :k32])
    assert t.from_limbs(limbs).to_ints() == a and fb.array(limbs, t).to_ints() == a
    assert t.from_limbs(A.to_limbs(np.uint32)).to_ints() == a
    # Narrower limb arrays are sign-extended; wider ones must fit.
    small = [x for x in a if -(2**31) <= x < 2**31]
    assert t.from_limbs(np.array([[x & mask(32)] for x in small], dtype=np.uint32)).to_ints() == small
    sign_limb = np.where(limbs[:, -1:] >> np.uint64(63), np.uint64(2**64 - 1), np.uint64(0))
    wider = np.concatenate([limbs, sign_limb], axis=1)
    if bits % 64 == 0:
        assert t.from_limbs(wider).to_ints() == a
    too_wide = np.zeros((2, k64 + 1), dtype=np.uint64)
    too_wide[1, k64] = 1
    with pytest.raises(OverflowError, match="element 1"):
        t.from_limbs(too_wide)
    if bits >= 64:
        column = np.array([-5, 0, 2**63 - 1, -(2**63)], dtype=np.int64)
        assert fb.array(column, t).to_ints() == column.tolist()
        assert fb.array(column).dtype == fb.int(64)
    assert fb.array([-1, 2**64]).dtype == fb.int(128) and fb.array([1, 2**64]).dtype == fb.uint(128)


@pytest.mark.parametrize("bits", [2, 64, 65, 1000])
def test_astype_and_mixing_with_uint(backend, rng, bits):
    t = fb.int(bits)
    a = values(rng, bits)
    A = fb.array(a, t)
    for target in (fb.uint(bits), fb.uint(bits + 70), fb.int(bits + 1), fb.int(bits + 64), fb.int(2 * bits + 300)):
        want = [x & mask(target.bits) if not target.signed else x for x in a]
        check(A.astype(target), want, "astype", target)
    for narrow in {fb.int(max(2, bits // 2)), fb.uint(max(1, bits // 2)), fb.int(2)}:
        want = [x & mask(narrow.bits) if not narrow.signed else signed(x, narrow.bits) for x in a]
        check(A.astype(narrow), want, "astype narrower", narrow)
    u = [x & mask(bits) for x in a]
    U = fb.array(u, bits=bits)
    check(U.astype(t), a, "uint -> int", t)
    # numpy's rule: the smallest signed dtype that holds both.
    mixed = fb.int(bits + 1)
    check(A + U, [signed(x + y, bits + 1) for x, y in zip(a, u)], "int + uint", mixed)
    check(U - A, [signed(y - x, bits + 1) for x, y in zip(a, u)], "uint - int", mixed)
    assert (A < U).tolist() == [x < y for x, y in zip(a, u)]
    assert (fb.array(a, fb.int(bits + 100)) + U).dtype == fb.int(bits + 100)
    assert fb.concatenate([A, U]).to_ints() == a + u


@pytest.mark.parametrize("dtype", [fb.uint(64), fb.int(64), fb.int(65), fb.uint(1000), fb.int(4096)])
def test_number_functions(backend, rng, dtype):
    bits = dtype.bits
    if dtype.signed:
        a = values(rng, bits, n=20)
    else:
        a = sorted(set(special_values(bits)))[:12] + random_values(rng, 20, bits)
    rng.shuffle(a)
    A = fb.array(a, dtype)
    assert fb.min(A) == min(a) and fb.max(A) == max(a)
    assert fb.min(A[:1]) == a[0]
    assert fb.sum(A) == sum(a)
    lo, hi = (dtype.min, dtype.max)
    assert fb.sum(A, dtype=dtype) == (signed(sum(a), bits) if dtype.signed else sum(a) % 2**bits)
    assert fb.sum(A[:0]) == 0 and fb.prod(A[:0]) == 1
    assert fb.prod(A[:7]) == math.prod(a[:7])
    assert fb.prod(A) == math.prod(a)  # the tree cuts each level to its values: extremes and signs at every level
    assert fb.prod(A, dtype=dtype) == (signed(math.prod(a), bits) if dtype.signed else math.prod(a) % 2**bits)
    b = a[::-1]
    B = fb.array(b, dtype)
    check(fb.minimum(A, B), [min(x, y) for x, y in zip(a, b)], "minimum", dtype)
    check(fb.maximum(A, B), [max(x, y) for x, y in zip(a, b)], "maximum", dtype)
    cond = [x < y for x, y in zip(a, b)]
    check(fb.where(np.array(cond), A, B), [x if c else y for c, x, y in zip(cond, a, b)], "where", dtype)
    check(fb.where(A > 0, A, lo), [x if x > 0 else lo for x in a], "where scalar", dtype)
    check(fb.where(True, A, hi), a, "where bool", dtype)
    order = fb.argsort(A)
    assert order.tolist() == sorted(range(len(a)), key=lambda i: a[i])  # stable, like numpy's
    check(fb.sort(A), sorted(a), "sort", dtype)
    assert fb.argsort(A[:0]).tolist() == []
    roots = [x for x in a if x >= 0]
    check(fb.isqrt(fb.array(roots, dtype)), [math.isqrt(x) for x in roots], "isqrt", dtype)
    with pytest.raises(ValueError, match="no identity"):
        fb.min(A[:0])
    if dtype.signed:
        with pytest.raises(ValueError, match="isqrt of a negative number: element 1"):
            fb.isqrt(fb.array([4, -1], dtype))
