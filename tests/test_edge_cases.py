"""Edges of the Python API: indexing like numpy, numpy conversion, comparisons
with any int, star imports, other backends, huge shift counts, degenerate
limb arrays, the one-limb scalar paths, and what crosses to the host."""
from __future__ import annotations

import builtins
import gc
import operator

import gmpy2
import numpy as np
import pytest

import futbig as fb
import futbig._backend as backends
from futbig import _kernels
from bigints import GMP, mask, random_values, special_values
from conftest import TEST_BACKENDS
from futbig.ndarray import wrap

COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)


# --------------------------------------------------------------------------
# Indexing


def test_indexing_follows_numpy(backend, rng):
    values = random_values(rng, 6, 70)
    A = fb.array(values, bits=70)
    ref = np.array(values, dtype=object)
    for key in [(1,), (-1,), (..., 2), (4, ...), (...,), (), ..., (slice(1, 5, 2),), (..., [0, 5, 0]),
                np.array(3), np.int8(-2), gmpy2.mpz(1), [True, False] * 3, np.array([], dtype=np.int64)]:
        got, want = A[key], ref[key]
        if isinstance(want, np.ndarray) and want.ndim == 1:
            assert isinstance(got, fb.Array) and got.to_ints() == want.tolist(), key
        else:  # where numpy gives a 0-d array (a[..., 2]), futbig gives the int
            assert type(got) is int and got == np.asarray(want).item(), key
    # numpy raises IndexError for these on a 1-d array, and so must futbig.
    for key in [(0, 1), (0, 0, 0), (..., ...), (slice(None), 0), 1.0, [1.5], "a", np.array([True]),
                [True] * 7, 6, -7, [0, 6]]:
        with pytest.raises(IndexError):
            ref[key]
        with pytest.raises(IndexError):
            A[key]
    # numpy would make these 2-d; futbig arrays are 1-d.
    for key in [None, (None,), (0, None), True, np.bool_(False), np.array([[0]]), [[0, 1]]]:
        with pytest.raises(IndexError):
            A[key]
    with pytest.raises(IndexError, match="1-dimensional, but 2 were indexed"):
        A[0, 1]


# --------------------------------------------------------------------------
# numpy conversion


def test_numpy_conversion_is_exact(backend):
    values = [1, 2**63 + 1, 5, 2**64 - 1]
    A = fb.array(values, bits=64)
    got = np.asarray(A)
    assert got.dtype == object and got.tolist() == values and all(type(v) is int for v in got)
    assert np.array(A, copy=True).tolist() == values
    assert np.asarray(A, dtype=np.uint64).tolist() == values
    wide = fb.array([3**100, 0], bits=200)
    assert np.asarray(wide).tolist() == [3**100, 0]
    assert np.asarray(fb.array([], bits=64)).shape == (0,)
    assert np.asarray(fb.array([5, 2**60], bits=128), dtype=np.float64).tolist() == [5.0, 2.0**60]
    with pytest.raises(OverflowError, match="element 1 .* does not fit in numpy int64"):
        np.asarray(A, dtype=np.int64)
    with pytest.raises(OverflowError, match="element 0"):
        np.asarray(wide, dtype=np.float64)
    with pytest.raises(OverflowError, match="element 1"):
        np.asarray(fb.array([1, 2**53 + 1], bits=64), dtype=np.float64)  # rounds
    for lossy in (np.bool_, np.complex128):
        with pytest.raises(TypeError, match="dtype=object"):
            np.asarray(A, dtype=lossy)
    with pytest.raises(ValueError, match="always copies"):
        np.array(A, copy=False)


# --------------------------------------------------------------------------
# Comparisons


@pytest.mark.parametrize("bits", [1, 64, 65, 200])
def test_comparisons_with_any_int(backend, rng, bits):
    values = special_values(bits) + random_values(rng, 4, bits)
    A = fb.array(values, bits=bits)
    top = mask(bits)
    scalars = [0, 1, top, top + 1, 2**bits, 2**(bits + 70), 2**64 - 1, 2**64, -1, -(2**300),
               gmpy2.mpz(-5), gmpy2.mpz(top + 1), np.int64(-1), np.uint64(2**64 - 1), True]
    for k in scalars:
        v = int(k)
        for op in COMPARISONS:
            assert op(A, k).tolist() == [op(x, v) for x in values], (op.__name__, k)
            assert op(k, A).tolist() == [op(v, x) for x in values], (op.__name__, k, "reflected")
        want = [(x > v) - (x < v) for x in values]
        assert fb.compare(A, k).tolist() == want and fb.compare(k, A).tolist() == [-w for w in want]
        assert fb.less(A, k).tolist() == [x < v for x in values]
    # Sequences (and numpy arrays) holding ints of any size or sign, elementwise.
    others = [rng.choice([-1, -(2**99), top, top + 1, 2**(bits + 1), 0, x]) for x in values]
    for op in COMPARISONS:
        assert op(A, others).tolist() == [op(x, y) for x, y in zip(values, others)], op.__name__
    small = np.array([-3, 1] * (len(values) // 2) + [-3] * (len(values) % 2), dtype=np.int64)
    assert fb.greater(A, small).tolist() == [x > int(y) for x, y in zip(values, small)]
    assert fb.compare(fb.array([1], bits=bits), [-1, 2**bits, 1]).tolist() == [1, -1, 0]  # broadcast


def test_comparisons_of_different_widths(backend, rng):
    a = special_values(64) + random_values(rng, 4, 64)
    b = [rng.choice([x, x + 2**64, 2**300 - 1, 0]) for x in a]
    A, B = fb.array(a, bits=64), fb.array(b, bits=301)
    for op in COMPARISONS:
        assert op(A, B).tolist() == [op(x, y) for x, y in zip(a, b)], op.__name__
        assert op(B, A).tolist() == [op(y, x) for x, y in zip(a, b)], op.__name__


# --------------------------------------------------------------------------
# Names


def test_star_import_shadows_no_builtin():
    assert [name for name in fb.__all__ if hasattr(builtins, name)] == []
    assert all(hasattr(fb, name) for name in fb.__all__)
    namespace: dict = {}
    exec("from futbig import *", namespace)
    assert not set(namespace) & set(dir(builtins)) - {"__builtins__"}
    assert "divmod" not in namespace and fb.divmod(fb.array([7], bits=8), 2)[1].to_ints() == [1]


# --------------------------------------------------------------------------
# Other backends and old contexts


def _arrays_elsewhere(backend: str, values: list[int], bits: int) -> list[fb.Array]:
    """The values as arrays of every other test backend and of a second context of this one."""
    made = []
    for other in TEST_BACKENDS:
        if other != backend:
            backends.set_backend(other)
            made.append(fb.array(values, bits=bits))
    backends.set_backend(backend)
    old = backends.Context(backend)  # what an array of an earlier context looks like
    limbs = fb.array(values, bits=bits).to_limbs()
    padded = np.zeros((len(values), fb.uint(bits).storage_limbs), dtype=np.uint64)
    padded[:, : limbs.shape[1]] = limbs
    made.append(wrap(old.to_device(padded), len(values), fb.uint(bits), padded.shape[1], old))
    return made


def test_arrays_of_other_backends(backend, rng):
    values = random_values(rng, 5, 130)
    for foreign in _arrays_elsewhere(backend, values, 130):
        copied = fb.array(foreign)
        assert copied.device == backend and copied._ctx is backends.context() and copied.to_ints() == values
        assert fb.array(foreign, bits=64).to_ints() == [x & mask(64) for x in values]
        assert (copied + 1).to_ints() == [(x + 1) & mask(130) for x in values]
        with pytest.raises(ValueError, match=r"futbig\.array\(x\)"):
            copied + foreign
        with pytest.raises(ValueError, match=r"futbig\.array\(x\)"):
            fb.concatenate([copied, foreign])
        if foreign._ctx.name != backend:  # another program: its arrays are no arrays of this one
            with pytest.raises(TypeError, match="another backend.*set_backend"):
                fb.uint(130).from_device(foreign.device_array)
    with pytest.raises(TypeError, match="not ndarray.*from_limbs"):
        fb.uint(64).from_device(np.zeros((1, 4), dtype=np.uint64))


# --------------------------------------------------------------------------
# Shift counts


def test_huge_and_mpz_shift_counts(backend, rng):
    values = special_values(100)
    A = fb.array(values, bits=100)
    n = len(values)
    assert (A << gmpy2.mpz(5)).to_ints() == [(x << 5) & mask(100) for x in values]
    assert (A >> gmpy2.mpz(2**70)).to_ints() == [0] * n
    assert (A << np.uint64(2**63 + 1)).to_ints() == [0] * n
    counts = [rng.choice([0, 3, 99, 100, 2**63, 2**64, 2**200]) for _ in values]
    for ks in (counts, np.array(counts, dtype=object), [gmpy2.mpz(k) for k in counts]):
        assert (A << ks).to_ints() == [(x << k) & mask(100) if k < 100 else 0 for x, k in zip(values, counts)]
        assert (A >> ks).to_ints() == [x >> k for x, k in zip(values, counts)]
    big = np.array([2**63 + 5] * n, dtype=np.uint64)
    assert (A >> big).to_ints() == [0] * n
    with pytest.raises(ValueError, match="negative shift count -1 at index 1"):
        A << [0, -1] + [0] * (n - 2)
    with pytest.raises(ValueError, match="negative shift count"):
        A >> gmpy2.mpz(-2)
    with pytest.raises(TypeError, match="shift count 0 is 1.5"):
        A << [1.5] + [2**64] * (n - 1)


# --------------------------------------------------------------------------
# Degenerate limb arrays


def test_limb_arrays_without_limbs(backend):
    for limb_dtype in (np.uint64, np.uint32):
        empty_rows = np.zeros((3, 0), dtype=limb_dtype)
        with pytest.raises(ValueError, match=r"no limbs.*bits=64"):
            fb.array(empty_rows)
        got = fb.array(empty_rows, bits=64)
        assert got.dtype == fb.uint(64) and got.to_ints() == [0, 0, 0]
        assert fb.uint(100).from_limbs(empty_rows).to_ints() == [0, 0, 0]
        assert fb.array(np.zeros((0, 0), dtype=limb_dtype), bits=8).to_ints() == []
    with pytest.raises(ValueError, match="no limbs"):
        fb.array(np.zeros((0, 0), dtype=np.uint64))


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
        # The route: one-limb entries, no batch of copies of the scalar, no batch
        # product (or division, unless the backend's table routes it there).
        assert "mul_limb" in entries and "mul_lo" not in entries, entries
        if _kernels.DIV_LIMB_SCALARS[backend]:
            assert "div_limb" in entries and not {"divmod", "gather"} & set(entries), entries
        else:
            assert "divmod" in entries and "div_limb" not in entries, entries
    with pytest.raises(ZeroDivisionError, match="scalar 0"):
        A // 0
    with pytest.raises(OverflowError, match="scalar"):
        A * (mask(bits) + 1)
    if bits > 64:  # a scalar of two limbs takes the batch path
        k = 2**64 + 3
        assert (A * k).to_ints() == [GMP.mul_lo(x, k, bits) for x in a]
        assert (A % k).to_ints() == [x % k for x in a]


@pytest.mark.parametrize("bits", [1, 65, 4095])
def test_scalar_division_both_routes(backend, rng, bits, entries, monkeypatch):
    """Both routes of DIV_LIMB_SCALARS, whichever the backend's table picks."""
    a = special_values(bits) + random_values(rng, 4, bits)
    A = fb.array(a, bits=bits)
    for by_limb in (True, False):
        monkeypatch.setitem(_kernels.DIV_LIMB_SCALARS, backend, by_limb)
        for k in [k for k in (1, 7, 2**64 - 1) if k <= mask(bits)]:
            entries.clear()
            q, r = divmod(A, k)
            assert ("div_limb" in entries) == by_limb and ("divmod" in entries) != by_limb, entries
            assert q.to_ints() == [x // k for x in a] and r.to_ints() == [x % k for x in a], (by_limb, k)


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
