"""Modular arithmetic (futbig.modular) against gmpy2: powmod, invert, gcd.

Moduli odd, even, powers of two, 1, 2**bits - 1 and of one limb in a wide
type; exponents 0, 1, 2, all ones and per instance; inputs >= m; zero
moduli; widths of 1, 2, 3, 4, 5, 8, 16 limbs and an odd bit width. The
Montgomery operations also through each of their two routes (one instance
per thread, batch-level products), forced, at 4 to 36 limbs.
"""
from __future__ import annotations

import random

import gmpy2
import pytest

import futbig as fb
from futbig import _kernels

from bigints import mask, random_values, special_values
from limbs import from_limbs, to_limbs

BITS = [64 * w for w in (1, 2, 3, 4, 5, 8, 16)] + [100]


def moduli(rng: random.Random, n: int, bits: int) -> list[int]:
    """Per-instance moduli cycling through the kinds that matter."""
    out = []
    for i in range(n):
        kind = i % 8
        if kind == 0:
            out.append(rng.getrandbits(bits) | 1 | 1 << (bits - 1))  # odd, full length
        elif kind == 1:
            out.append((rng.getrandbits(bits) & ~1) or 2)  # even
        elif kind == 2:
            out.append(1 << rng.randrange(bits))  # a power of two (1 included)
        elif kind == 3:
            out.append(mask(bits))  # 2**bits - 1
        elif kind == 4:
            out.append(rng.getrandbits(64) | 1)  # one limb
        elif kind == 5:
            out.append(1)
        elif kind == 6:
            out.append(rng.getrandbits(rng.randint(1, bits)) or 3)  # any length
        else:
            out.append(3 * (rng.getrandbits(bits - 2) or 1) if bits > 2 else 3)  # even or odd, composite
    return out


def values(rng: random.Random, n: int, bits: int, mods: list[int]) -> list[int]:
    """Random and adversarial values, some >= their modulus."""
    out = random_values(rng, n, bits)
    for i in range(0, n, 5):
        out[i] = mods[i] - 1
    for i in range(1, n, 7):
        out[i] = mask(bits)
    for i in range(2, n, 9):
        out[i] = mods[i] if mods[i] <= mask(bits) else 0
    return out


def ref_inv(a: int, p: int) -> int | None:
    try:
        return int(gmpy2.invert(a, p))
    except ZeroDivisionError:
        return None


@pytest.mark.parametrize("bits", BITS)
def test_per_instance_moduli(backend, rng, bits):
    n = 48
    dtype = fb.uint(bits)
    ms = moduli(rng, n, bits)
    a_ints, b_ints = values(rng, n, bits, ms), values(rng, n, bits, ms[::-1])
    a, b, m = fb.array(a_ints, dtype), fb.array(b_ints, dtype), fb.array(ms, dtype)
    assert fb.mod_add(a, b, m).to_ints() == [(x + y) % p for x, y, p in zip(a_ints, b_ints, ms)]
    assert fb.mod_sub(a, b, m).to_ints() == [(x - y) % p for x, y, p in zip(a_ints, b_ints, ms)]
    assert fb.mod_mul(a, b, m).to_ints() == [x * y % p for x, y, p in zip(a_ints, b_ints, ms)]
    assert fb.mod_sqr(a, m).to_ints() == [x * x % p for x, p in zip(a_ints, ms)]
    assert fb.mod(a, m).to_ints() == [x % p for x, p in zip(a_ints, ms)]
    es = random_values(rng, n, bits)
    es[:4] = [0, 1, 2, mask(bits)]
    got = fb.powmod(a, fb.array(es, dtype), m).to_ints()
    assert got == [int(gmpy2.powmod(x, e, p)) for x, e, p in zip(a_ints, es, ms)]
    inv = fb.modinv(a, m, errors="zero").to_ints()
    assert inv == [ref_inv(x, p) or 0 for x, p in zip(a_ints, ms)]
    assert fb.gcd(a, b).to_ints() == [int(gmpy2.gcd(x, y)) for x, y in zip(a_ints, b_ints)]


@pytest.mark.parametrize("bits", [64, 192, 256, 100, 1024])
def test_shared_modulus_and_exponent(backend, rng, bits):
    n = 30
    dtype = fb.uint(bits)
    for p in (rng.getrandbits(bits) | 1, mask(bits), 1 << (bits - 1), 2**61 - 1, 6, 1,
              rng.getrandbits(bits) & ~1 or 2):
        a_ints = values(rng, n, bits, [p] * n)
        a = fb.array(a_ints, dtype)
        for e in (0, 1, 2, mask(bits), rng.getrandbits(bits)):
            assert fb.powmod(a, e, p).to_ints() == [int(gmpy2.powmod(x, e, p)) for x in a_ints], (p, e)
        assert pow(a, 65537, p).to_ints() == [pow(x, 65537, p) for x in a_ints]
        assert fb.mod_mul(a, a_ints[::-1], p).to_ints() == [x * y % p for x, y in zip(a_ints, a_ints[::-1])]
        inv = fb.modinv(a, p, errors="zero").to_ints()
        assert inv == [ref_inv(x, p) or 0 for x in a_ints]


def gcd_pairs(rng: random.Random, bits: int) -> list[tuple[int, int]]:
    """Pairs for the division steps of gcd and modinv (62 steps per matrix on one
    word, then whole rows): adversarial values against each other, common factors
    of every size (common twos among them), equal values, zeros, consecutive
    Fibonacci numbers (the most steps for their size) and pairs that differ in
    length by less than one matrix's worth of bits."""
    sv = special_values(bits)
    pairs = [(x, y) for x in sv[:: max(1, len(sv) // 6)] for y in sv[1:: max(1, len(sv) // 5)]]
    for _ in range(12):
        g = rng.getrandbits(rng.randint(1, bits - 1)) or 1
        g <<= rng.randrange(3)
        pairs.append(((rng.getrandbits(bits) // g) * g, (rng.getrandbits(bits) // g) * g))
    f0, f1 = 0, 1
    while f1 <= mask(bits):
        f0, f1 = f1, f0 + f1
    x = rng.getrandbits(bits)
    pairs += [(f0, f1 - f0), (x, x), (x, 0), (0, x), (x, x >> rng.randrange(1, 62)), (x, mask(bits) - x)]
    return pairs


# 2048 and 2112 bits: `modinv`'s division steps for every instance from 32 limbs
# (`inverse_split_limbs`), at 32 limbs and zero-extended to 64.
@pytest.mark.parametrize("bits", [64, 129, 256, 1024, 2048, 2112, 4160])
def test_gcd_and_inverse_adversarial(backend, rng, bits):
    pairs = gcd_pairs(rng, bits)
    a_ints, b_ints = [x for x, _ in pairs], [y for _, y in pairs]
    dtype = fb.uint(bits)
    a, b = fb.array(a_ints, dtype), fb.array(b_ints, dtype)
    assert fb.gcd(a, b).to_ints() == [int(gmpy2.gcd(x, y)) for x, y in pairs]
    # Per-instance moduli (b, zero moduli made 1), and shared ones: odd, 2**bits - 1,
    # a power of two, even.
    ms = [y or 1 for y in b_ints]
    inv = fb.modinv(a, fb.array(ms, dtype), errors="zero").to_ints()
    assert inv == [ref_inv(x, p) or 0 for x, p in zip(a_ints, ms)]
    for p in (rng.getrandbits(bits) | 1 | 1 << (bits - 1), mask(bits), 1 << (bits - 1), rng.getrandbits(bits) & ~1 or 2):
        inv = fb.modinv(a, p, errors="zero").to_ints()
        assert inv == [ref_inv(x, p) or 0 for x in a_ints], p


def test_wide_exponents_and_broadcasts(backend, rng):
    a = fb.array([3, 5, 7], bits=128)
    e = fb.array([2**300 + 1, 0, 2**511 - 1], bits=512)  # exponents wider than the values
    p = 2**127 - 1
    assert fb.powmod(a, e, p).to_ints() == [pow(x, y, p) for x, y in zip([3, 5, 7], e.to_ints())]
    assert fb.powmod(fb.array([3], bits=64), [1, 2, 3], 1000).to_ints() == [3, 9, 27]
    assert fb.powmod(fb.array([3, 7, 9], bits=64), -2, 10).to_ints() == [9, 9, 1]
    assert fb.powmod(a, 3, fb.array([1000], bits=128)).to_ints() == [27, 125, 343]
    assert fb.powmod(5, fb.array([2, 3, 4], bits=64), 2**100 + 1).to_ints() == [25, 125, 625]


def test_errors(backend):
    a = fb.array([3, 4, 6], bits=64)
    with pytest.raises(ZeroDivisionError, match="index 1"):
        fb.powmod(a, 2, fb.array([7, 0, 0], bits=64))
    with pytest.raises(ZeroDivisionError, match="scalar 0"):
        fb.mod_mul(a, a, 0)
    with pytest.raises(ZeroDivisionError, match="divisor 2 is 0"):
        fb.mod(a, [1, 2, 0])
    with pytest.raises(ValueError, match=r"index 1 \(2 of 3"):
        fb.modinv(a, 10)
    with pytest.raises(TypeError, match="unsigned"):
        fb.mod_add(fb.array([1], fb.int(64)), 1, 5)
    with pytest.raises(ValueError, match="odd modulus"):
        fb.Montgomery(10)


@pytest.mark.parametrize("bits", [64, 256, 320])
def test_montgomery_chain(backend, rng, bits):
    p = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
    ints = random_values(rng, 20, bits)
    M = fb.Montgomery(p, fb.uint(bits))
    x = M.to_mont(fb.array(ints, fb.uint(bits)))
    y = M.sqr(M.mul(x, x))
    assert M.from_mont(y).to_ints() == [pow(v, 4, p) for v in ints]


# The two routes of the Montgomery operations, forced through the entries' `method`
# (futbig._kernels.MOD_*): one instance per thread, and batch-level products by the
# multiplication ladder (the GPU's route from `mont_batch_limbs` limbs, 20 at first).
# One instance per thread runs kernels of constant width up to `fixed_mont_limbs` (32;
# `mod_mul` and `powmod` zero-extend 10 and 20 limbs to 12 and 24, `mont_mul` has them
# at exactly 4, 8, 16 and 32 limbs), and the run-time width above (36).
ROUTES = {"thread": _kernels.MOD_THREAD, "batch": _kernels.MOD_BATCH}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("limbs", [4, 10, 16, 20, 24, 32, 36])
def test_montgomery_routes(ctx, rng, route, limbs):
    method, m = ROUTES[route], limbs
    bits = 64 * m
    n = 10
    dev = lambda xs, w=m: ctx.to_device(to_limbs(xs, w))
    back = lambda x: from_limbs(ctx.to_host(x))
    ms = moduli(rng, n, bits)  # odd, even, powers of two, 2**bits - 1, one limb, 1
    a_ints, b_ints = values(rng, n, bits, ms), values(rng, n, bits, ms[::-1])  # some >= their modulus
    a, b = dev(a_ints), dev(b_ints)
    shared = [rng.getrandbits(bits) | 1 | 1 << (bits - 1), mask(bits), rng.getrandbits(64) | 1, 1, 6]
    # One odd modulus both told (`one_odd`: the device does not check it) and checked on the device.
    for ps, one_odd in [(ms, False)] + [([p], hint) for p in shared for hint in [False] + [True] * (p % 2)]:
        got, _ = _kernels.mod_mul(ctx, a, b, dev(ps), method, one_odd)
        assert back(got) == [x * y % ps[i % len(ps)] for i, (x, y) in enumerate(zip(a_ints, b_ints))], ps
    # Per-instance exponents of 256 bits at most (a batch-level power costs about 1.2 products per
    # bit of the longest exponent, each a few kernels): lengths differ, all ones among them.
    es = [0, 1, mask(256), rng.getrandbits(256)] + [rng.getrandbits(rng.randint(1, 256)) for _ in range(n - 4)]
    for ps, one_odd in ((ms, False), (shared[:1], True), (shared[1:2], False)):
        got, _ = _kernels.powmod(ctx, a, dev(es, 4), dev(ps), method, one_odd)
        assert back(got) == [int(gmpy2.powmod(x, e, ps[i % len(ps)])) for i, (x, e) in enumerate(zip(a_ints, es))], ps
    for e in (0, 1, mask(64)):  # one exponent for the batch, one-limb modulus in the wide dtype
        got, _ = _kernels.powmod(ctx, a, dev([e], 4), dev(shared[2:3]), method)
        assert back(got) == [int(gmpy2.powmod(x, e, shared[2])) for x in a_ints], e
    p, R = shared[0], 1 << bits
    forms = _kernels.to_mont(ctx, a, dev([p]), method)
    assert back(forms) == [x * R % p for x in a_ints]
    prod = _kernels.mont_mul(ctx, forms, _kernels.to_mont(ctx, b, dev([p]), method), dev([p]), method)
    assert back(prod) == [x * y * R % p for x, y in zip(a_ints, b_ints)]
    assert back(_kernels.from_mont(ctx, prod, dev([p] * n), method)) == [x * y % p for x, y in zip(a_ints, b_ints)]
