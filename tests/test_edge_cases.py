"""Routes and host traffic of the Python API: the one-limb scalar paths,
overflow checks on the device, and concatenation in one pass."""
from __future__ import annotations

import gc

import gmpy2
import numpy as np
import pytest

import futbig as fb
from bigints import GMP, mask, random_values, special_values


# --------------------------------------------------------------------------
# Scalars through the one-limb entries


@pytest.mark.parametrize("bits", [1, 63, 64, 65, 100, 256, 4095, 64 * 65])
def test_one_limb_scalars(backend, rng, bits, entries):
    a = special_values(bits) + random_values(rng, 6, bits)
    A = fb.array(a, bits=bits)
    for k in sorted({1, 2, 3, 7, 2**32 + 1, 2**63, 2**64 - 1, rng.randrange(1, 2**64)}):
        if k > mask(bits):
            continue
        entries.clear()
        for got in (A * k, k * A, fb.mul(A, gmpy2.mpz(k))):
            assert got.dtype == fb.uint(bits) and got.to_ints() == [GMP.mul_lo(x, k, bits) for x in a], k
        q, r = divmod(A, k)
        want = [GMP.divmod(x, k) for x in a]
        assert q.to_ints() == [w[0] for w in want] and r.to_ints() == [w[1] for w in want], k
        assert (A // np.uint64(k)).to_ints() == [w[0] for w in want] and (A % k).to_ints() == [w[1] for w in want]
        # The route: one-limb entries, no batch of copies of the scalar, no batch product or division.
        assert {"mul_limb", "div_limb"} <= set(entries), entries
        assert not {"mul_lo", "divmod", "gather"} & set(entries), entries
    with pytest.raises(ZeroDivisionError, match="scalar 0"):
        A // 0
    with pytest.raises(OverflowError, match="scalar"):
        A * (mask(bits) + 1)
    if bits > 64:  # a scalar of two limbs takes the batch path
        k = 2**64 + 3
        assert (A * k).to_ints() == [GMP.mul_lo(x, k, bits) for x in a]
        assert (A % k).to_ints() == [x % k for x in a]


@pytest.mark.parametrize("bits", [1, 64, 65, 4095])
def test_multiply_overflow_raise(backend, rng, bits, host_copies):
    a = special_values(bits) + random_values(rng, 6, bits)
    b = [rng.choice([0, 1, 2, 3, mask(bits), x]) & mask(bits) for x in a]
    A, B = fb.array(a, bits=bits), fb.array(b, bits=bits)
    cases = [(A, B, [x * y for x, y in zip(a, b)]), (A, A, [x * x for x in a])]
    cases += [(A, k, [x * k for x in a]) for k in {1, 3, mask(min(bits, 64))} if k <= mask(bits)]
    for x, y, products in cases:
        over = [i for i, p in enumerate(products) if p >> bits]
        host_copies.clear()
        if over:
            with pytest.raises(OverflowError, match=f"at index {over[0]} \\({len(over)} of {len(a)} instances"):
                fb.mul(x, y, overflow="raise")
            fits = [i for i in range(len(a)) if i not in over]
            x, y = x[fits], y[fits] if isinstance(y, fb.Array) else y
            products = [products[i] for i in fits]
        got = fb.mul(x, y, overflow="raise")
        assert host_copies == []  # the overflow check runs on the device: nothing comes back
        assert got.to_ints() == products


# --------------------------------------------------------------------------
# Concatenation


def test_concatenate_copies_each_row_once(backend, rng, entries):
    parts = [random_values(rng, n, bits) for n, bits in [(3, 64), (0, 64), (5, 300), (1, 65), (4, 64)]]
    arrays = [fb.array(p, bits=b) for p, b in zip(parts, [64, 64, 300, 65, 64])]
    entries.clear()
    joined = fb.concatenate(arrays + [[7, 8]])
    assert entries.count("place") == 5 and "concat" not in entries, entries
    del arrays[0]
    gc.collect()
    assert joined.dtype == fb.uint(300) and joined.to_ints() == sum(parts, []) + [7, 8]
    assert fb.concatenate([fb.array([1], bits=64)]).to_ints() == [1]
    assert fb.concatenate([fb.array([], bits=64), fb.array([], bits=64), fb.array([], bits=64)]).to_ints() == []
    assert fb.concatenate([fb.array([2], bits=64), fb.array([], bits=64), [3]]).to_ints() == [2, 3]
