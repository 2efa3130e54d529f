"""divmod and div_limb entries against GMP: over 100 000 cases per run.

Checks q and r against gmpy2 and the invariants a == q*b + r, r < b; zero
divisors raise a per-instance flag and leave the other instances exact.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from futbig import _kernels

from bigints import GMP, mask, random_values, special_values
from limbs import from_limbs, storage_limbs, to_limbs

# (bits, instances): > 100 000 cases in all, most at the small widths.
CASES = [(64 * w, 10_000) for w in range(1, 9)] + [(64 * w, 3_000) for w in (16, 17, 64, 65)] + [
    (100, 3_000), (1000, 1_000), (64 * 256, 400), (64 * 1024, 60)
]


def divisors(rng: random.Random, a: list[int], bits: int) -> list[int]:
    """Divisors of every length from one limb to the full width, plus the hard ones."""
    out = []
    for i, x in enumerate(a):
        kind = i % 8
        if kind == 0:
            out.append(rng.getrandbits(64) | 1)  # one limb
        elif kind == 1:
            out.append(rng.getrandbits(rng.randint(1, bits)) or 1)  # any length
        elif kind == 2:
            out.append(max(x >> rng.randrange(0, 64), 1))  # close to a
        elif kind == 3:
            out.append(x + 1 if x < mask(bits) else x)  # b > a or b == a
        elif kind == 4:
            out.append(1 << (64 * rng.randrange(0, (bits + 63) // 64)) if bits > 64 else 1 << rng.randrange(bits))
        elif kind == 5:
            out.append((rng.getrandbits(64) << 64 | rng.getrandbits(64)) & mask(bits) or 3)  # leading limb index 1
        elif kind == 6:
            out.append(mask(rng.randint(1, bits)))  # all ones
        else:
            out.append(rng.getrandbits(bits) or 1)
    return out


def dividend_divisor_batch(rng: random.Random, bits: int, n: int) -> tuple[list[int], list[int]]:
    a = random_values(rng, n, bits)
    b = divisors(rng, a, bits)
    for x in special_values(bits):
        for y in special_values(bits)[:: max(1, len(special_values(bits)) // 8)]:
            if y:
                a.append(x)
                b.append(y)
    return a, b


# `divmod`'s method argument for each of its two algorithms (0 is the library's choice).
ALGORITHMS = {"thread": _kernels.DIV_LONG, "newton": _kernels.DIV_NEWTON}


@pytest.fixture(params=list(ALGORITHMS))
def method(request) -> int:
    return ALGORITHMS[request.param]


def divmod_call(ctx, method: int, a, b):
    """The divmod entry with the backend's switch points and the given method."""
    return _kernels.divmod_by(ctx, method, a, b)


def div_limb_call(ctx, a, d, method: int = _kernels.DIV_LIMB_AUTO):
    """The div_limb entry with the backend's switch points and the given method."""
    return ctx.call("div_limb", _kernels.ON_CPU[ctx.name], method, a, d)


@pytest.mark.parametrize("bits,n", CASES)
def test_divmod(ctx, rng, method, bits, n):
    a, b = dividend_divisor_batch(rng, bits, n)
    m = storage_limbs(bits)
    q, r, zero = divmod_call(ctx, method, to_limbs(a, m), to_limbs(b, m))
    qs, rs = from_limbs(ctx.to_host(q)), from_limbs(ctx.to_host(r))
    assert not ctx.to_host(zero).any()
    for i, (x, y) in enumerate(zip(a, b)):
        if (qs[i], rs[i]) != GMP.divmod(x, y):
            raise AssertionError(f"divmod instance {i}: a={hex(x)} b={hex(y)}: got q={hex(qs[i])} r={hex(rs[i])}")
        assert x == qs[i] * y + rs[i] and rs[i] < y


@pytest.mark.parametrize("limb_method", [_kernels.DIV_LIMB_LOOP, _kernels.DIV_LIMB_SCAN], ids=["loop", "scan"])
@pytest.mark.parametrize("bits,n", [(64, 20_000), (64 * 3, 5_000), (64 * 17, 2_000), (1000, 500), (64 * 1024, 40), (64 * 5000, 4)])
def test_div_limb(ctx, rng, bits, n, limb_method):
    a = random_values(rng, n, bits) + special_values(bits)
    d = [rng.getrandbits(rng.randint(1, 64)) or 1 for _ in a]
    d[:6] = [1, 2**64 - 1, 2**63, 3, 2**63 + 1, 2**32][: len(d)]  # normalised already, or shifted by 63, 62, 0, 31
    q, r, zero = div_limb_call(ctx, to_limbs(a, storage_limbs(bits)), np.array(d, dtype=np.uint64), limb_method)
    assert not ctx.to_host(zero).any()
    assert from_limbs(ctx.to_host(q)) == [x // y for x, y in zip(a, d)]
    assert ctx.to_host(r).tolist() == [x % y for x, y in zip(a, d)]


@pytest.mark.parametrize("bits", [64, 64 * 5, 64 * 300])
def test_division_by_zero_is_flagged_per_instance(ctx, rng, method, bits):
    a = random_values(rng, 50, bits)
    b = [0 if i % 7 == 3 else (rng.getrandbits(bits) or 1) for i in range(len(a))]
    m = storage_limbs(bits)
    q, r, zero = divmod_call(ctx, method, to_limbs(a, m), to_limbs(b, m))
    assert ctx.to_host(zero).tolist() == [int(y == 0) for y in b]
    qs, rs = from_limbs(ctx.to_host(q)), from_limbs(ctx.to_host(r))
    for i, (x, y) in enumerate(zip(a, b)):
        assert (qs[i], rs[i]) == ((0, 0) if y == 0 else GMP.divmod(x, y)), f"instance {i}"
    d = np.array([0 if i % 5 == 0 else 7 for i in range(len(a))], dtype=np.uint64)
    q, r, zero = div_limb_call(ctx, to_limbs(a, m), d)
    assert ctx.to_host(zero).tolist() == [int(y == 0) for y in d.tolist()]
    assert from_limbs(ctx.to_host(q)) == [0 if y == 0 else x // int(y) for x, y in zip(a, d.tolist())]


def test_divmod_empty_batch(ctx, method):
    empty = np.zeros((0, 4), dtype=np.uint64)
    q, r, zero = divmod_call(ctx, method, empty, empty)
    assert ctx.shape(q) == (0, 4) and ctx.to_host(zero).shape == (0,)


@pytest.mark.parametrize("bits", [512, 4096])
def test_divmod_batches_of_many_blocks(ctx, rng, method, bits):
    """Over 2^16 instances with divisors of about half the width (the benchmark's shape)."""
    n = 2**16 + 3
    a = random_values(rng, n, bits)
    b = [rng.getrandbits(bits // 2) | 1 for _ in a]
    m = storage_limbs(bits)
    q, r, _ = divmod_call(ctx, method, to_limbs(a, m), to_limbs(b, m))
    qs, rs = from_limbs(ctx.to_host(q)), from_limbs(ctx.to_host(r))
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if (qs[i], rs[i]) != (x // y, x % y)]
    assert not bad, f"{len(bad)} wrong, first at instance {bad[0] if bad else None}"
    d = np.array([rng.getrandbits(64) | 1 for _ in a], dtype=np.uint64)
    q, r, _ = div_limb_call(ctx, to_limbs(a, m), d)
    assert from_limbs(ctx.to_host(q)) == [x // int(y) for x, y in zip(a, d.tolist())]


@pytest.mark.parametrize("bits,n,k", [(64 * 8, 2_000, 4), (64 * 17, 1_000, 9), (64 * 64, 500, 32), (64 * 65, 300, 33),
                                      (64 * 1024, 12, 512), (64 * 2048, 3, 1026), (64 * 4096, 3, 2048)])
def test_divmod_divisors_of_one_length(ctx, rng, method, bits, n, k):
    """Divisors of k or k-1 limbs throughout the batch: the reciprocal then works at about half the width.

    From 1026 limbs the Newton steps and q*b take cyclic products modulo B^L - 1
    (docs/division.md); 1026 limbs is the widest precision that L = 1024 serves.
    """
    a = random_values(rng, n, bits) + [mask(bits), 0, 1 << (bits - 1)]
    b = [(rng.getrandbits(64 * (k - i % 2)) | 1 << (64 * (k - i % 2) - 1)) for i in range(len(a))]
    b[:3] = [mask(64 * k), 1 << (64 * (k - 1)), mask(64 * (k - 1)) or 1]
    m = storage_limbs(bits)
    q, r, _ = divmod_call(ctx, method, to_limbs(a, m), to_limbs(b, m))
    qs, rs = from_limbs(ctx.to_host(q)), from_limbs(ctx.to_host(r))
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if (qs[i], rs[i]) != GMP.divmod(x, y)]
    assert not bad, f"{len(bad)} wrong, first at instance {bad[0]}: a={hex(a[bad[0]])} b={hex(b[bad[0]])}"


def estimate_breakers(rng: random.Random, bits: int, n: int,
                      divisor_limbs: int | None = None) -> tuple[list[int], list[int]]:
    """Operands whose quotient-limb estimates are too large (add-back) or capped (at B^D - 1).

    An estimate from the leading limbs of the partial remainder U and of the
    divisor v overshoots when v's dropped limbs are all ones and U = Qd*v - 1:
    the estimate is Qd, the quotient Qd - 1.  Such windows are placed at every
    limb offset t; the remainder they leave, v - 1, makes the next window's
    estimate reach the cap.  Divisors keep their top bit set (no shift), or not.
    Divisors have `divisor_limbs` limbs if given, random lengths otherwise.
    """
    m = storage_limbs(bits)
    B = 1 << 64
    a, b = [], []
    for i in range(n):
        k = divisor_limbs or rng.randint(1, max(1, m - 1))
        top = rng.randint(1, min(3, k))
        lead = rng.getrandbits(64 * top) | (1 << (64 * top - 1 - (i % 3 == 2) * rng.randrange(63)))
        v = lead << (64 * (k - top)) | (B ** (k - top) - 1 if i % 4 else 0)
        qd = rng.randrange(1, B ** rng.choice((1, 2, 4, 8))) if i % 5 else B ** rng.choice((2, 4, 8)) - 1
        t = rng.randint(0, m)
        x = ((qd * v - 1) << (64 * t)) | (rng.getrandbits(64 * t) if i % 7 == 0 else 0)
        a.append(x & mask(64 * m) & mask(bits))
        b.append(v & mask(bits) or 1)
    return a, b


@pytest.mark.parametrize("bits,n", [(64 * 4, 3_000), (64 * 8, 5_000), (64 * 16, 5_000), (64 * 17, 2_000),
                                    (64 * 64, 1_000), (1000, 500)])
def test_divmod_estimates_too_large(ctx, rng, method, bits, n):
    a, b = estimate_breakers(rng, bits, n)
    m = storage_limbs(bits)
    q, r, _ = divmod_call(ctx, method, to_limbs(a, m), to_limbs(b, m))
    qs, rs = from_limbs(ctx.to_host(q)), from_limbs(ctx.to_host(r))
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if (qs[i], rs[i]) != GMP.divmod(x, y)]
    assert not bad, f"{len(bad)} wrong, first at instance {bad[0]}: a={hex(a[bad[0]])} b={hex(b[bad[0]])}"


@pytest.mark.parametrize("bits,n,k", [(64 * 17, 2_000, 9), (64 * 32, 2_000, 16), (64 * 33, 1_000, 20),
                                      (64 * 64, 1_000, 31), (64 * 65, 1_000, 33), (64 * 128, 500, 64),
                                      (64 * 200, 300, 70)])
def test_long_division_estimates_too_large(ctx, rng, bits, n, k):
    """As above with one divisor length per batch, which long division serves at every width: the
    estimates of one, four and eight quotient limbs per pass overshoot and reach their caps."""
    a, b = estimate_breakers(rng, bits, n, k)
    m = storage_limbs(bits)
    q, r, _ = divmod_call(ctx, ALGORITHMS["thread"], to_limbs(a, m), to_limbs(b, m))
    qs, rs = from_limbs(ctx.to_host(q)), from_limbs(ctx.to_host(r))
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if (qs[i], rs[i]) != GMP.divmod(x, y)]
    assert not bad, f"{len(bad)} wrong, first at instance {bad[0]}: a={hex(a[bad[0]])} b={hex(b[bad[0]])}"


@pytest.mark.parametrize("bits", [64 * 16, 64 * 17, 64 * 64, 64 * 300])
def test_divmod_mixed_lengths_by_the_library_choice(ctx, rng, bits):
    """The library's routing (method 0) of batches whose divisors have every length: per thread
    on the CPU, through the reciprocal on the GPU above 16 limbs; exact either way."""
    n = 400
    a = random_values(rng, n, bits)
    b = [rng.getrandbits(rng.randint(1, bits)) | 1 for _ in a]
    m = storage_limbs(bits)
    q, r, _ = divmod_call(ctx, _kernels.DIV_AUTO, to_limbs(a, m), to_limbs(b, m))
    qs, rs = from_limbs(ctx.to_host(q)), from_limbs(ctx.to_host(r))
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if (qs[i], rs[i]) != GMP.divmod(x, y)]
    assert not bad, f"{len(bad)} wrong, first at instance {bad[0]}: a={hex(a[bad[0]])} b={hex(b[bad[0]])}"
