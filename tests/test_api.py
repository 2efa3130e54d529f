"""The Python array API (futbig.array) on every built backend, against gmpy2."""
from __future__ import annotations

import operator

import gmpy2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import futbig as fb
import futbig._backend as backends
from bigints import GMP, mask, operand_pairs, random_values, special_values

# Limb counts 1, 3, 5, 65 (not multiples of 4) and bits that are not multiples of 64.
BITS = [1, 63, 64, 65, 100, 192, 256, 320, 4095, 64 * 65]
MUL_BITS = [1, 63, 64, 65, 100, 192, 320, 4095]


def operands(rng, bits, n=12):
    a, b = operand_pairs(rng, n, bits)
    return a, b, fb.array(a, bits=bits), fb.array(b, bits=bits)


def nonzero(values):
    return [v if v else 1 for v in values]


def check(got: fb.Array, want: list[int], what: str, bits: int) -> None:
    assert isinstance(got, fb.Array) and got.dtype == fb.uint(bits), f"{what}: dtype {got.dtype}"
    values = got.to_ints()
    bad = [i for i, (g, w) in enumerate(zip(values, want)) if g != w]
    assert len(values) == len(want) and not bad, f"{what} at {bits} bits: instance {bad[:1]} differs from GMP"


@pytest.mark.parametrize("bits", BITS)
def test_add_sub_neg_bitwise(backend, rng, bits):
    a, b, A, B = operands(rng, bits)
    check(A + B, [GMP.add(x, y, bits)[0] for x, y in zip(a, b)], "+", bits)
    check(A - B, [GMP.sub(x, y, bits)[0] for x, y in zip(a, b)], "-", bits)
    check(-A, [int(-gmpy2.mpz(x) & mask(bits)) for x in a], "neg", bits)
    check(A & B, [x & y for x, y in zip(a, b)], "&", bits)
    check(A | B, [x | y for x, y in zip(a, b)], "|", bits)
    check(A ^ B, [x ^ y for x, y in zip(a, b)], "^", bits)
    check(~A, [x ^ mask(bits) for x in a], "~", bits)


@pytest.mark.parametrize("bits", BITS)
def test_comparisons(backend, rng, bits):
    a, b, A, B = operands(rng, bits)
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        got = op(A, B)
        assert isinstance(got, np.ndarray) and got.dtype == bool
        assert got.tolist() == [op(gmpy2.mpz(x), y) for x, y in zip(a, b)], op.__name__
    assert fb.compare(A, B).tolist() == [(x > y) - (x < y) for x, y in zip(a, b)]


@pytest.mark.parametrize("bits", MUL_BITS)
def test_mul(backend, rng, bits):
    a, b, A, B = operands(rng, bits, n=8)
    check(A * B, [GMP.mul_lo(x, y, bits) for x, y in zip(a, b)], "*", bits)
    check(A * A, [GMP.mul_lo(x, x, bits) for x in a], "square", bits)
    check(fb.mul_full(A, B), [GMP.mul_full(x, y) for x, y in zip(a, b)], "mul_full", 2 * bits)
    check(fb.mul_full(A, A), [GMP.mul_full(x, x) for x in a], "mul_full square", 2 * bits)
    check(A**3, [int(gmpy2.mpz(x) ** 3 & mask(bits)) for x in a], "**", bits)


@pytest.mark.parametrize("bits", MUL_BITS)
def test_division(backend, rng, bits):
    a, b, A, _ = operands(rng, bits, n=8)
    b = nonzero(b)
    B = fb.array(b, bits=bits)
    want = [GMP.divmod(x, y) for x, y in zip(a, b)]
    check(A // B, [q for q, _ in want], "//", bits)
    check(A % B, [r for _, r in want], "%", bits)
    q, r = divmod(A, B)
    check(q, [q for q, _ in want], "divmod q", bits)
    check(r, [r for _, r in want], "divmod r", bits)
    small = [rng.randrange(1, min(2**64, 2**bits)) for _ in a]  # one-limb divisors
    check(fb.floor_divide(A, small), [x // y for x, y in zip(a, small)], "// one limb", bits)
    check(fb.remainder(A, small), [x % y for x, y in zip(a, small)], "% one limb", bits)


@pytest.mark.parametrize("bits", BITS)
def test_shifts(backend, rng, bits):
    a = special_values(bits) + random_values(rng, 8, bits)
    A = fb.array(a, bits=bits)
    for k in sorted({0, 1, 63, 64, 65, bits - 1, bits, bits + 5, 10**6}):
        if k >= 0:
            check(A << k, [(x << k) & mask(bits) for x in a], f"<< {k}", bits)
            check(A >> k, [x >> k for x in a], f">> {k}", bits)
    ks = [rng.randrange(0, bits + 70) for _ in a]
    check(A << ks, [(x << k) & mask(bits) for x, k in zip(a, ks)], "<< each", bits)
    check(A >> np.array(ks), [x >> k for x, k in zip(a, ks)], ">> each", bits)


@pytest.mark.parametrize("bits", [1, 65, 100, 4095])
def test_python_int_operands_broadcast(backend, rng, bits):
    a = random_values(rng, 10, bits)
    A = fb.array(a, bits=bits)
    c = rng.randrange(1, 2**bits)
    check(A + c, [(x + c) & mask(bits) for x in a], "+ int", bits)
    check(c + A, [(x + c) & mask(bits) for x in a], "int +", bits)
    check(c - A, [(c - x) & mask(bits) for x in a], "int -", bits)
    check(A * c, [(x * c) & mask(bits) for x in a], "* int", bits)
    check(c // fb.array(nonzero(a), bits=bits), [c // x for x in nonzero(a)], "int //", bits)
    check(A % c, [x % c for x in a], "% int", bits)
    check(A ^ gmpy2.mpz(c), [x ^ c for x in a], "^ mpz", bits)
    check(A & np.uint8(1), [x & 1 for x in a], "& numpy int", bits)
    assert (A == c).tolist() == [x == c for x in a]
    check(A + a, [(2 * x) & mask(bits) for x in a], "+ list", bits)


def test_length_one_arrays_broadcast(backend):
    check(fb.array([1, 2, 3], bits=64) + fb.array([10], bits=64), [11, 12, 13], "broadcast", 64)


def test_mixed_widths_promote(backend, rng):
    a = random_values(rng, 10, 64)
    b = random_values(rng, 10, 300)
    A, B = fb.array(a, bits=64), fb.array(b, bits=300)
    check(A + B, [(x + y) & mask(300) for x, y in zip(a, b)], "uint64 + uint300", 300)
    check(B * A, [(x * y) & mask(300) for x, y in zip(a, b)], "uint300 * uint64", 300)
    check(B // fb.array(nonzero(a), bits=64), [y // x for x, y in zip(nonzero(a), b)], "uint300 // uint64", 300)
    assert (A < B).tolist() == [x < y for x, y in zip(a, b)]
    P = fb.mul_full(A, A)  # uint128 stored like an uint256 product: must still mix
    check(P + B, [(x * x + y) & mask(300) for x, y in zip(a, b)], "mul_full + uint300", 300)


def test_overflow_raise(backend):
    a = fb.array([1, 2**64 - 2, 2**64 - 1, 5], bits=64)
    check(fb.add(a, 1), [2, 2**64 - 1, 0, 6], "add wraps", 64)
    with pytest.raises(OverflowError, match="add overflowed uint\\(64\\) at index 2 \\(1 of 4"):
        fb.add(a, 1, overflow="raise")
    check(fb.add(a, 0, overflow="raise"), a.to_ints(), "add no overflow", 64)
    with pytest.raises(OverflowError, match="sub overflowed uint\\(64\\) at index 0 \\(1 of 4"):
        fb.sub(a, 2, overflow="raise")
    with pytest.raises(OverflowError, match="mul overflowed uint\\(64\\) at index 1 \\(2 of 4"):
        fb.mul(a, 2, overflow="raise")
    check(fb.mul(a[:1], 2**63, overflow="raise"), [2**63], "mul no overflow", 64)
    with pytest.raises(ValueError, match="overflow must be"):
        fb.add(a, a, overflow="saturate")


@pytest.mark.parametrize("bits", [64, 4095])
def test_errors_name_the_culprit_and_change_nothing(backend, rng, bits):
    a = random_values(rng, 6, bits)
    A = fb.array(a, bits=bits)
    with pytest.raises(ValueError, match="element 2 is negative"):
        fb.array([1, 2, -3], bits=bits)
    with pytest.raises(OverflowError, match=f"element 1 needs {bits + 1} bits"):
        fb.array([1, 2**bits], bits=bits)
    with pytest.raises(TypeError, match="element 0 is 1.5"):
        fb.array([1.5], bits=bits)
    with pytest.raises(ValueError, match=r"shapes \(6,\) \(5,\)"):
        A + fb.array(a[:5], bits=bits)
    with pytest.raises(ValueError, match=r"shapes \(6,\) \(2,\)"):
        A * [1, 2]
    divisors = nonzero(a)
    divisors[3] = 0
    divisors[5] = 0
    with pytest.raises(ZeroDivisionError, match="divisor 3 is 0 \\(2 of 6"):
        A // fb.array(divisors, bits=bits)
    with pytest.raises(ZeroDivisionError):
        A % 0
    # Many divisors, zeros far into the batch and at its last index.
    many = nonzero(random_values(rng, 5000, bits))
    many[4999] = many[1234] = 0
    with pytest.raises(ZeroDivisionError, match="divisor 1234 is 0 \\(2 of 5000"):
        fb.divmod(fb.array(random_values(rng, 5000, bits), bits=bits), fb.array(many, bits=bits))
    with pytest.raises(OverflowError, match="scalar"):
        A + 2**bits
    with pytest.raises(ValueError, match="negative"):
        A - (-1)
    with pytest.raises(ValueError, match="negative shift"):
        A << -1
    with pytest.raises(TypeError):
        A + 1.0
    with pytest.raises(TypeError):
        A + "1"
    assert A.to_ints() == a  # nothing changed


def test_unsupported_inputs(backend):
    with pytest.raises(TypeError, match="uint64 or uint32"):
        fb.array(np.zeros((2, 2), dtype=np.float64))
    with pytest.raises(TypeError, match="uint64 or uint32"):
        fb.array(np.zeros((2, 2), dtype=np.int64), bits=128)
    with pytest.raises(TypeError, match="float64"):
        fb.array(np.zeros(3), bits=64)
    with pytest.raises(TypeError, match="sequence"):
        fb.array(5, bits=64)
    with pytest.raises(TypeError, match="dtype"):
        fb.array(b"\x00" * 8)
    with pytest.raises(TypeError, match="dtype"):
        fb.array([1], dtype=np.uint64)
    with pytest.raises(ValueError, match="bits must be >= 1"):
        fb.uint(0)
    with pytest.raises(ValueError, match="negative"):
        fb.array(np.array([1, -1]), bits=64)


@pytest.mark.parametrize("bits", [1, 65, 192, 4096])
def test_construction_paths(backend, rng, bits):
    a = random_values(rng, 9, bits)
    want = fb.array(a, bits=bits).to_ints()
    assert want == a
    assert fb.array([gmpy2.mpz(x) for x in a], fb.uint(bits)).to_ints() == a
    assert fb.uint(bits).from_ints(iter(a)).to_ints() == a
    k = -(-bits // 64)
    limbs = np.array([[(x >> (64 * j)) & (2**64 - 1) for j in range(k)] for x in a], dtype=np.uint64)
    from_limbs = fb.array(limbs)
    assert from_limbs.dtype == fb.uint(64 * k) and from_limbs.to_ints() == a
    assert fb.array(limbs, bits=bits).to_ints() == a
    np.testing.assert_array_equal(fb.array(a, bits=bits).to_limbs(), limbs)
    assert fb.array(np.asfortranarray(limbs), bits=bits).to_ints() == a
    assert fb.array(fb.array(a, bits=bits).to_limbs(np.uint32), bits=bits).to_ints() == a
    for order in ("little", "big"):
        data = fb.array(a, bits=bits).tobytes(order)
        assert data == b"".join(x.to_bytes(-(-bits // 8), order) for x in a)
        assert fb.frombytes(data, bits=bits, byteorder=order).to_ints() == a
    assert fb.array(np.array(a, dtype=object), bits=bits).to_ints() == a


def test_inferred_dtypes(backend):
    assert fb.array([1, 2]).dtype == fb.uint(64)
    assert fb.array([2**64]).dtype == fb.uint(128)
    assert fb.array(np.array([3, 4], dtype=np.uint32)).to_ints() == [3, 4]
    assert fb.array(np.zeros((1, 3), dtype=np.uint32)).dtype == fb.uint(96)


def test_indexing_iteration_and_concatenation(backend, rng):
    a = random_values(rng, 10, 130)
    A = fb.array(a, bits=130)
    assert len(A) == 10 and A.shape == (10,) and A.size == 10
    assert [A[i] for i in range(-10, 10)] == a + a
    assert list(A) == a
    for s in (slice(2, 7), slice(None, None, -1), slice(1, 9, 3), slice(5, 5), slice(None)):
        got = A[s]
        assert isinstance(got, fb.Array) and got.to_ints() == a[s]
    mask_ = np.array([x % 2 == 0 for x in a])
    assert A[mask_].to_ints() == [x for x in a if x % 2 == 0]
    assert A[[3, -1, 3]].to_ints() == [a[3], a[-1], a[3]]
    with pytest.raises(IndexError, match="out of bounds"):
        A[10]
    with pytest.raises(IndexError, match="out of bounds"):
        A[[0, 11]]
    with pytest.raises(IndexError, match="length"):
        A[np.array([True, False])]
    b = random_values(rng, 4, 64)
    joined = fb.concatenate([A, fb.array(b, bits=64), [7, 8]])
    assert joined.dtype == fb.uint(130) and joined.to_ints() == a + b + [7, 8]


def test_empty_arrays(backend):
    e = fb.array([], bits=100)
    assert len(e) == 0 and e.to_ints() == [] and (e + e).to_ints() == [] and (e * 3).to_ints() == []
    assert (e // fb.array([], bits=100)).to_ints() == [] and (e < e).tolist() == []
    assert e.to_limbs().shape == (0, 2)


def test_repr_is_short(backend):
    small = fb.array([1, 2, 3], bits=64)
    assert repr(small) == f"array([1, 2, 3], dtype=uint(64), device={backend!r})"
    big = fb.array([3**2000] * 1000, bits=4096)
    text = repr(big)
    assert len(text) < 250 and "..." in text and "uint(4096)" in text


def test_astype(backend, rng):
    a = random_values(rng, 10, 200)
    A = fb.array(a, bits=200)
    check(A.astype(fb.uint(64)), [x & mask(64) for x in a], "narrow", 64)
    check(A.astype(fb.uint(1000)), a, "widen", 1000)
    check(A.astype(fb.uint(199)), [x & mask(199) for x in a], "narrow odd", 199)


def test_device_and_backend(backend):
    assert fb.backend() == backend
    assert backend in fb.available_backends()
    assert fb.array([1], bits=8).device == backend
    assert backends.context().shape(fb.array([1], bits=8).device_array) == (1, 4)


def test_first_start_notice_only_without_a_kernel_cache(tmp_path):
    # The cuda backend's first start of a build compiles every kernel (minutes): it says so, once.
    cache = tmp_path / "cuda-0123456789abcdef.kernels"
    notice = backends._first_start_notice(str(cache))
    assert notice is not None and "minutes" in notice and str(cache) in notice
    cache.write_bytes(b"kernels")
    assert backends._first_start_notice(str(cache)) is None


def test_chained_operations_stay_on_the_device(backend, host_copies, rng):
    a = random_values(rng, 50, 4096)
    b = nonzero(random_values(rng, 50, 4096))
    A, B = fb.array(a, bits=4096), fb.array(b, bits=4096)
    c = (A * B + A) // (B | 1)
    d = ((c << 5) ^ A) % 12345 - 7
    # Division checks its divisors for zero on the device (two scalars come
    # back): nothing is copied to the host.
    assert host_copies == []
    want_c = [(x * y + x) % 2**4096 // (y | 1) for x, y in zip(a, b)]
    assert c.to_ints() == want_c
    assert d.to_ints() == [((((x << 5) % 2**4096) ^ y) % 12345 - 7) % 2**4096 for x, y in zip(want_c, a)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bits=st.integers(1, 600), data=st.data())
def test_hypothesis_round_trip(backend, bits, data):
    values = data.draw(st.lists(st.integers(0, 2**bits - 1), max_size=12))
    A = fb.array(values, bits=bits)
    assert A.to_ints() == values
    assert fb.array(A.to_limbs(), bits=bits).to_ints() == values
    assert fb.frombytes(A.tobytes("big"), bits=bits, byteorder="big").to_ints() == values
