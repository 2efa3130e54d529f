"""The Futhark entry points (docs/interface.md) against GMP, on every built backend.

These call the compiled entries directly with padded limb arrays; the Python
API on top of them is tested in test_api*.py.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from futbig._kernels import MUL_AUTO, MUL_CLASSICAL, MUL_NTT, ON_CPU, ntt_switches

from bigints import GMP, ODD_BITS, WIDTHS_LIMBS, WIDTHS_LIMBS_SMALL, mask, operand_pairs, random_values
from limbs import from_limbs, storage_limbs, to_limbs

FULL_BITS = [64 * w for w in WIDTHS_LIMBS] + list(ODD_BITS)
SMALL_BITS = [64 * w for w in WIDTHS_LIMBS_SMALL] + [1, 63, 65, 100, 1000]


def pairs_for(rng: random.Random, bits: int, n: int = 100):
    a, b = operand_pairs(rng, n, bits)
    m = storage_limbs(bits)
    return a, b, to_limbs(a, m), to_limbs(b, m)


def assert_ints_equal(got: list[int], want: list[int], what: str, a=None, b=None) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} results for {len(want)} instances"
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            ops = "" if a is None else f" of a={hex(a[i])}" + ("" if b is None else f", b={hex(b[i])}")
            raise AssertionError(f"{what}: instance {i}{ops}: got {hex(g)}, GMP says {hex(w)}")


@pytest.mark.parametrize("bits", FULL_BITS)
@pytest.mark.parametrize("cpu", [False, True], ids=["block kernels", "rows"])
def test_add_sub(ctx, rng, bits, cpu):
    a, b, A, B = pairs_for(rng, bits)
    s, carry = ctx.call("add", cpu, bits, A, B)
    want = [GMP.add(x, y, bits) for x, y in zip(a, b)]
    assert_ints_equal(from_limbs(ctx.to_host(s)), [w[0] for w in want], "add", a, b)
    assert ctx.to_host(carry).tolist() == [int(w[1]) for w in want]
    d, borrow = ctx.call("sub", cpu, bits, A, B)
    want = [GMP.sub(x, y, bits) for x, y in zip(a, b)]
    assert_ints_equal(from_limbs(ctx.to_host(d)), [w[0] for w in want], "sub", a, b)
    assert ctx.to_host(borrow).tolist() == [int(w[1]) for w in want]
    assert_ints_equal(from_limbs(ctx.to_host(ctx.call("neg", cpu, bits, A))), [(-x) & mask(bits) for x in a], "neg", a)


@pytest.mark.parametrize("bits", FULL_BITS)
def test_not_cmp_bitwise(ctx, rng, bits):
    a, b, A, B = pairs_for(rng, bits, n=50)
    m = mask(bits)
    host = lambda x: from_limbs(ctx.to_host(x))
    assert_ints_equal(host(ctx.call("bit_not", bits, A)), [x ^ m for x in a], "bit_not", a)
    assert_ints_equal(host(ctx.call("bit_and", A, B)), [x & y for x, y in zip(a, b)], "bit_and", a, b)
    assert_ints_equal(host(ctx.call("bit_or", A, B)), [x | y for x, y in zip(a, b)], "bit_or", a, b)
    assert_ints_equal(host(ctx.call("bit_xor", A, B)), [x ^ y for x, y in zip(a, b)], "bit_xor", a, b)
    want_cmp = [(x > y) - (x < y) for x, y in zip(a, b)]
    assert ctx.to_host(ctx.call("cmp", A, B)).tolist() == want_cmp


@pytest.mark.parametrize("bits", [64, 65, 100, 256, 1000, 64 * 65, 64 * 1024])
def test_shifts(ctx, rng, bits):
    a = random_values(rng, 40, bits)
    A = to_limbs(a, storage_limbs(bits))
    m = mask(bits)
    host = lambda x: from_limbs(ctx.to_host(x))
    for k in sorted({0, 1, 63, 64, 65, bits // 3, bits - 1, bits, bits + 5}):
        assert_ints_equal(host(ctx.call("shl", bits, k, A)), [(x << k) & m for x in a], f"shl {k}", a)
        assert_ints_equal(host(ctx.call("shr", k, A)), [x >> k for x in a], f"shr {k}", a)
    ks = [rng.randrange(bits + 70) for _ in a]
    K = np.array(ks, dtype=np.int64)
    assert_ints_equal(host(ctx.call("shl_each", bits, K, A)), [(x << k) & m for x, k in zip(a, ks)], "shl_each", a)
    assert_ints_equal(host(ctx.call("shr_each", K, A)), [x >> k for x, k in zip(a, ks)], "shr_each", a)


def check_products(ctx, a, b, A, B, bits, method=MUL_AUTO, cpu=None) -> None:
    """mul_lo, mul_full, sqr_lo and sqr_full by ``method`` with the switch points of
    ``cpu`` (default: the backend's own) against GMP."""
    cpu = ON_CPU[ctx.name] if cpu is None else cpu
    host = lambda x: from_limbs(ctx.to_host(x))
    lo = ctx.call("mul_lo", cpu, method, bits, A, B)
    assert_ints_equal(host(lo), [GMP.mul_lo(x, y, bits) for x, y in zip(a, b)], f"mul_lo {method}", a, b)
    full = ctx.call("mul_full", cpu, method, A, B)
    assert ctx.shape(full) == (len(a), 2 * A.shape[1])
    assert_ints_equal(host(full), [GMP.mul_full(x, y) for x, y in zip(a, b)], f"mul_full {method}", a, b)
    sqr = ctx.call("sqr_lo", cpu, method, bits, A)
    assert_ints_equal(host(sqr), [GMP.mul_lo(x, x, bits) for x in a], f"sqr_lo {method}", a)
    assert_ints_equal(host(ctx.call("sqr_full", cpu, method, A)), [x * x for x in a], f"sqr_full {method}", a)


@pytest.mark.parametrize("bits", SMALL_BITS + [64 * 1024, 64 * 4096])
def test_mul(ctx, rng, bits):
    n = 100 if bits <= 64 * 256 else 4
    a, b, A, B = pairs_for(rng, bits, n)
    if bits > 64 * 1024:  # keep the quadratic oracle and kernel work small on a CPU
        a, b, A, B = a[:12], b[:12], A[:12], B[:12]
    check_products(ctx, a, b, A, B, bits, MUL_CLASSICAL)
    check_products(ctx, a, b, A, B, bits, MUL_NTT)


@pytest.mark.parametrize("cpu", [False, True])
def test_mul_ladder_switches(ctx, rng, cpu):
    """One limb step below, at and above each switch to the NTT, with the GPU's and
    the CPUs' switch points (lib/github.com/futbig/futbig/thresholds.fut), whatever the backend."""
    for limbs in sorted({s + d for s in ntt_switches(ctx, cpu) for d in (-4, 0, 4)}):
        bits = 64 * limbs - 5
        a, b, A, B = pairs_for(rng, bits, 5)
        check_products(ctx, a, b, A, B, bits, MUL_AUTO, cpu)


@pytest.mark.parametrize("log_bits", [12, 14, 16, 18, 20])
def test_mul_ntt_wide(ctx, rng, log_bits):
    """The NTT from 2^12 to 2^20 bits (one-block transforms up to 2^18 bits, four-step
    at 2^20), batches of 1, 2 and 3, all-ones operands (the largest coefficients)."""
    bits = 2**log_bits
    ones = mask(bits)
    a = [ones, rng.getrandbits(bits), 1 << (bits - 1)][: 1 + log_bits % 3]
    b = [ones, rng.getrandbits(bits), ones][: len(a)]
    m = storage_limbs(bits)
    check_products(ctx, a, b, to_limbs(a, m), to_limbs(b, m), bits, MUL_NTT)


@pytest.mark.parametrize("limbs", [1020, 1024, 1028, 1032, 2044, 2048, 2052, 4092, 4096, 4100, 4116])
def test_mul_ntt_block_shapes(ctx, rng, limbs):
    """One limb step below, at and above the widths where the NTT's kernels change
    shape (``ntt_block_log`` 14 in thresholds.fut, every backend): 8 values a thread up
    to 1024 limbs (2^12 points; 1028-1040 wrap into them, ``test_mul_ntt_wrapping`` has
    1040 and 1044), 16 values a thread to 2048 limbs (2^13 points; 2052 wraps into
    them) and to 4096 limbs (2^14 points, the first operand's transform in a kernel of
    its own; 4100 wraps into them), two rows of 2^14 points at 4116 (four-step from
    2^16 points: ``test_mul_ntt_wide`` at 2^20 bits). Products and squares, all-ones and
    random operands."""
    bits = 64 * limbs - 5
    a = [mask(bits), rng.getrandbits(bits)]
    b = [mask(bits), rng.getrandbits(bits)]
    m = storage_limbs(bits)
    check_products(ctx, a, b, to_limbs(a, m), to_limbs(b, m), bits, MUL_NTT)


@pytest.mark.parametrize("limbs", [256, 260, 264, 516, 1040, 1044, 2064, 2068])
def test_mul_ntt_wrapping(ctx, rng, limbs):
    """Widths whose products take a transform of half the length with the few
    coefficients past its end computed apart (``wrap_log`` in ntt.fut: at most 64
    and at most 1/64 of the points): below, at and past the last width that wraps
    for 2^10 to 2^13 points; ``test_mul_ntt_block_shapes`` has the 2052- and
    4100-limb products. All-ones operands (the largest wrapped coefficients) and
    random ones."""
    bits = 64 * limbs - 5
    a = [mask(bits), rng.getrandbits(bits), mask(bits)]
    b = [mask(bits), rng.getrandbits(bits), rng.getrandbits(bits)]
    m = storage_limbs(bits)
    check_products(ctx, a, b, to_limbs(a, m), to_limbs(b, m), bits, MUL_NTT)


@pytest.mark.parametrize("bits", [1, 64, 200, 256, 449, 512, 700, 768, 1024, 1500, 1983, 2048, 2304, 4096])
def test_mul_lo_around_the_per_thread_widths(ctx, rng, bits):
    """mul_lo below, at and above the widths it serves with one instance per thread
    (convmul itself is checked at those widths by lib/github.com/futbig/futbig/mul_tests.fut)."""
    a, b, A, B = pairs_for(rng, bits, 200)
    want = [GMP.mul_lo(x, y, bits) for x, y in zip(a, b)]
    got = ctx.call("mul_lo", ON_CPU[ctx.name], MUL_CLASSICAL, bits, A, B)
    assert_ints_equal(from_limbs(ctx.to_host(got)), want, "mul_lo", a, b)


@pytest.mark.parametrize("bits", [1280, 1500, 1792, 1793, 2048])
def test_mul_full_around_the_per_thread_widths(ctx, rng, bits):
    """Full products and squares below, at and above the widest per-thread kernel of
    full products (28 limbs, ``thread_mul_full_limbs``; convmul above), all-ones included."""
    a, b, A, B = pairs_for(rng, bits, 130)
    check_products(ctx, a, b, A, B, bits, MUL_CLASSICAL)


@pytest.mark.parametrize("limbs", [60, 64, 68, 124, 128, 132, 172])
def test_mul_around_the_convmul_interleave(ctx, rng, limbs):
    """convmul below, at and above the widths from which its convolution phase
    interleaves a block's instances: full products from 64 limbs (at most
    ``conv_interleave_instances`` = 4 per block), low halves from 64 with their rows
    padded up to 124 (5-8 per block, ``conv_interleave_padded_instances``), unpadded
    from 128 (172 limbs, 3 per block), with partial blocks, special values and squares."""
    a, b, A, B = pairs_for(rng, 64 * limbs, 7)
    check_products(ctx, a, b, A, B, 64 * limbs, MUL_CLASSICAL)


@pytest.mark.parametrize("bits", SMALL_BITS + [64 * 1024])
def test_mul_limb(ctx, rng, bits):
    a = random_values(rng, 60, bits) + [mask(bits), 0, 1]
    d = [rng.getrandbits(64) for _ in a[:-3]] + [2**64 - 1, 2**64 - 1, 0]
    A = to_limbs(a, storage_limbs(bits))
    lo, hi = ctx.call("mul_limb", bits, A, np.array(d, dtype=np.uint64))
    assert_ints_equal(from_limbs(ctx.to_host(lo)), [(x * y) & mask(bits) for x, y in zip(a, d)], "mul_limb low", a, d)
    assert ctx.to_host(hi).tolist() == [(x * y) >> bits for x, y in zip(a, d)]


@pytest.mark.parametrize("bits", [64, 100, 256, 64 * 17, 64 * 64, 64 * 1024, 64 * 2048])
def test_fused(ctx, rng, bits):
    a, b, A, B = pairs_for(rng, bits, 30)
    if bits > 64 * 1024:  # past the one-kernel poly: a sequence of kernels, kept small on a CPU
        a, b, A, B = a[:12], b[:12], A[:12], B[:12]
    m = mask(bits)
    host = lambda x: from_limbs(ctx.to_host(x))
    assert_ints_equal(host(ctx.call("add6", bits, A, B)), [(6 * x + 10 * y) & m for x, y in zip(a, b)], "add6", a, b)
    want = [((x * x + y) * (y * y + y) + x * y) & m for x, y in zip(a, b)]
    assert_ints_equal(host(ctx.call("poly", ON_CPU[ctx.name], bits, A, B)), want, "poly", a, b)


@pytest.mark.parametrize("bits", [64, 256 * 64, 5000 * 64])
def test_large_and_empty_batches(ctx, rng, bits):
    """n = 0 works; a width beyond one GPU block (5000 limbs) is still exact."""
    m = storage_limbs(bits)
    empty = np.zeros((0, m), dtype=np.uint64)
    s, carry = ctx.call("add", ON_CPU[ctx.name], bits, empty, empty)
    assert ctx.shape(s) == (0, m) and ctx.to_host(carry).shape == (0,)
    a, b, A, B = pairs_for(rng, bits, 3)
    s, _ = ctx.call("add", ON_CPU[ctx.name], bits, A, B)
    assert_ints_equal(from_limbs(ctx.to_host(s)), [GMP.add(x, y, bits)[0] for x, y in zip(a, b)], "add", a, b)
    k = min(len(a), 4)
    prod = ctx.call("mul_lo", ON_CPU[ctx.name], MUL_AUTO, bits, A[:k], B[:k])
    assert_ints_equal(from_limbs(ctx.to_host(prod)), [GMP.mul_lo(x, y, bits) for x, y in zip(a[:k], b[:k])], "mul_lo", a, b)


@pytest.mark.parametrize("bits", [512, 4096])
def test_batches_of_many_blocks(ctx, rng, bits):
    """Over 2^16 instances: the GPU runs many blocks (and Futhark may pick other
    kernel versions past thresholds), so errors far from instance 0 show here."""
    n = 2**16 + 3
    m = storage_limbs(bits)
    a, b = random_values(rng, n, bits), random_values(rng, n, bits)
    A, B = to_limbs(a, m), to_limbs(b, m)
    host = lambda x: from_limbs(ctx.to_host(x))
    s, _ = ctx.call("add", ON_CPU[ctx.name], bits, A, B)
    assert_ints_equal(host(s), [GMP.add(x, y, bits)[0] for x, y in zip(a, b)], "add", a, b)
    mask_ = mask(bits)
    assert_ints_equal(host(ctx.call("add6", bits, A, B)), [(6 * x + 10 * y) & mask_ for x, y in zip(a, b)], "add6", a, b)
    lo = ctx.call("mul_lo", ON_CPU[ctx.name], MUL_AUTO, bits, A, B)
    assert_ints_equal(host(lo), [GMP.mul_lo(x, y, bits) for x, y in zip(a, b)], "mul_lo", a, b)
    want = [((x * x + y) * (y * y + y) + x * y) & mask_ for x, y in zip(a, b)]
    assert_ints_equal(host(ctx.call("poly", ON_CPU[ctx.name], bits, A, B)), want, "poly", a, b)
