"""Host-side conversions (futbig._convert): ints, mpz, limb arrays and bytes, against Python's own ints."""
from __future__ import annotations

import re

import gmpy2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bigints import ODD_BITS, WIDTHS_LIMBS_SMALL, random_values, special_values
from futbig._convert import (
    bytes_to_limbs,
    check_width,
    coerce_ints,
    ints_to_limbs,
    limb_array_to_limbs,
    limbs_to_bytes,
    limbs_to_ints,
    storage_limbs,
)

BITS = [64 * w for w in WIDTHS_LIMBS_SMALL] + list(ODD_BITS)


def reference_limbs(values: list[int], m: int) -> np.ndarray:
    """Limbs by shifting and masking, one limb at a time: independent of the code under test."""
    return np.array([[(v >> (64 * j)) & (2**64 - 1) for j in range(m)] for v in values], dtype=np.uint64).reshape(
        len(values), m
    )


@pytest.mark.parametrize("bits", BITS)
def test_ints_round_trip(rng, bits):
    values = special_values(bits) + random_values(rng, 50, bits)
    m = storage_limbs(bits)
    limbs = ints_to_limbs(values, bits, m)
    assert limbs.shape == (len(values), m) and limbs.dtype == np.uint64
    np.testing.assert_array_equal(limbs, reference_limbs(values, m))
    assert limbs_to_ints(limbs) == values


@pytest.mark.parametrize("bits", [1, 64, 65, 4096])
def test_mpz_and_mixed_inputs(rng, bits):
    values = random_values(rng, 20, bits)
    m = storage_limbs(bits)
    want = reference_limbs(values, m)
    np.testing.assert_array_equal(ints_to_limbs([gmpy2.mpz(v) for v in values], bits, m), want)
    mixed = [gmpy2.mpz(v) if i % 2 else v for i, v in enumerate(values)]
    np.testing.assert_array_equal(ints_to_limbs(mixed, bits, m), want)
    np.testing.assert_array_equal(ints_to_limbs(iter(values), bits, m), want)


def test_chunk_boundaries():
    values = list(range(5000))  # more than two chunks
    assert limbs_to_ints(ints_to_limbs(values, 64, 4)) == values


def test_storage_limbs_rounds_up_to_multiples_of_four():
    for bits in range(1, 2000, 7):
        m = storage_limbs(bits)
        assert m % 4 == 0 and 64 * m >= bits and 64 * (m - 4) < bits


@pytest.mark.parametrize(
    "values, error, words",
    [
        ([1, -3], ValueError, ["element 1", "negative"]),
        ([0, 1, 2**65], OverflowError, ["element 2", "66 bits", "uint(65)"]),
        ([2**65 - 1, 2**300], OverflowError, ["element 1", "301 bits"]),
        ([1, 2.0], TypeError, ["element 1", "float"]),
        (["7"], TypeError, ["element 0", "str"]),
        ([None], TypeError, ["element 0", "NoneType"]),
        ([gmpy2.mpz(-1)], ValueError, ["element 0", "negative"]),
    ],
)
def test_bad_elements_are_named(values, error, words):
    with pytest.raises(error) as info:
        ints_to_limbs(values, 65, storage_limbs(65))
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize("bits", [1, 8, 63, 64])
@pytest.mark.parametrize("first", [int, gmpy2.mpz])
def test_fast_paths_check_every_element(bits, first):
    """One-limb ints (numpy's converter) and mpz lists (gmpy2.pack) are checked like the general path."""
    top = 2**bits
    ok = [first(top - 1), 0, 1, top // 2]
    assert limbs_to_ints(ints_to_limbs(ok, bits, 4)) == [top - 1, 0, 1, top // 2]
    assert limbs_to_ints(ints_to_limbs(ok + [True], bits, 4))[-1] == 1
    cases = [
        (ok + [2.5], TypeError, f"element {len(ok)} is 2.5 (float)"),  # never truncated to 2
        (ok + [-1], ValueError, f"element {len(ok)} is negative"),
        (ok + [first(-1)], ValueError, f"element {len(ok)} is negative"),
        (ok + [top], OverflowError, f"element {len(ok)} needs {bits + 1} bits"),
        (ok + [2**64], OverflowError, f"element {len(ok)} needs 65 bits"),
        (ok + [first(2**300)], OverflowError, f"element {len(ok)} needs 301 bits"),
        (ok + [np.float64(1)], TypeError, f"element {len(ok)} is"),
    ]
    for values, error, words in cases:
        with pytest.raises(error, match=re.escape(words)):
            ints_to_limbs(values, bits, 4)


def test_one_limb_values_in_wide_rows_come_back():
    limbs = np.zeros((3, 4), dtype=np.uint64)
    limbs[:, 0] = [0, 5, 2**64 - 1]
    assert limbs_to_ints(limbs) == [0, 5, 2**64 - 1]
    limbs[1, 3] = 1
    assert limbs_to_ints(limbs) == [0, 5 + 2**192, 2**64 - 1]


def test_odd_widths_reject_bits_past_the_width():
    assert limbs_to_ints(ints_to_limbs([2**99], 100, 4)) == [2**99]
    with pytest.raises(OverflowError, match="element 0 needs 101 bits"):
        ints_to_limbs([2**100], 100, 4)
    with pytest.raises(OverflowError, match="element 1"):
        ints_to_limbs([0, 2], 1, 4)


def test_coerce_accepts_index_types():
    assert coerce_ints([True, np.uint64(5), np.int8(3), gmpy2.mpz(9)], 8) == [1, 5, 3, 9]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_uint64_limb_arrays(rng, k):
    values = random_values(rng, 30, 64 * k)
    src = reference_limbs(values, k)
    m = storage_limbs(64 * k)
    assert limbs_to_ints(limb_array_to_limbs(src, 64 * k, m)) == values
    assert limbs_to_ints(limb_array_to_limbs(np.asfortranarray(src), 64 * k, m)) == values
    assert limbs_to_ints(limb_array_to_limbs(src.astype(">u8"), 64 * k, m)) == values
    wide = np.zeros((30, 2 * k), dtype=np.uint64)
    wide[:, ::2] = src  # a strided view: must be read limb by limb, not as raw memory
    assert limbs_to_ints(limb_array_to_limbs(wide[:, ::2], 64 * k, m)) == values


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_uint32_limb_arrays(rng, k):
    values = random_values(rng, 30, 32 * k)
    src = np.array([[(v >> (32 * j)) & (2**32 - 1) for j in range(k)] for v in values], dtype=np.uint32)
    assert limbs_to_ints(limb_array_to_limbs(src, 32 * k, storage_limbs(32 * k))) == values
    reversed_view = src[::-1]
    assert limbs_to_ints(limb_array_to_limbs(reversed_view, 32 * k, storage_limbs(32 * k))) == values[::-1]


def test_limb_array_errors():
    with pytest.raises(TypeError, match="uint64 or uint32"):
        limb_array_to_limbs(np.zeros((2, 2), dtype=np.int64), 128, 4)
    with pytest.raises(TypeError, match="uint64 or uint32"):
        limb_array_to_limbs(np.zeros((2, 2), dtype=np.float64), 128, 4)
    with pytest.raises(ValueError, match="2-d"):
        limb_array_to_limbs(np.zeros((2, 2, 2), dtype=np.uint64), 128, 4)
    too_wide = np.zeros((3, 6), dtype=np.uint64)
    too_wide[2, 5] = 1
    with pytest.raises(OverflowError, match="element 2 needs 321 bits"):
        limb_array_to_limbs(too_wide, 256, 4)
    with pytest.raises(OverflowError, match="element 0"):
        limb_array_to_limbs(np.array([[0, 2**36]], dtype=np.uint64), 100, 4)


@pytest.mark.parametrize("bits", [1, 8, 9, 63, 64, 65, 100, 4095])
@pytest.mark.parametrize("byteorder", ["little", "big"])
def test_bytes_round_trip(rng, bits, byteorder):
    values = random_values(rng, 20, bits)
    record = -(-bits // 8)
    data = b"".join(v.to_bytes(record, byteorder) for v in values)
    limbs = bytes_to_limbs(data, bits, storage_limbs(bits), byteorder)
    assert limbs_to_ints(limbs) == values
    assert limbs_to_bytes(limbs, bits, byteorder) == data


def test_bytes_errors():
    with pytest.raises(ValueError, match="not a whole number of 2-byte records"):
        bytes_to_limbs(b"\x00\x01\x02", 16, 4)
    with pytest.raises(ValueError, match="byteorder"):
        bytes_to_limbs(b"\x00\x01", 16, 4, "middle")
    with pytest.raises(OverflowError, match="element 1"):
        bytes_to_limbs(b"\x01\x00\x00\x02", 9, 4, "little")


def test_check_width_passes_values_below_the_width():
    check_width(reference_limbs([2**100 - 1, 0], 4), 100)
    with pytest.raises(OverflowError, match="element 1"):
        check_width(reference_limbs([0, 2**100], 4), 100)


@settings(max_examples=60, deadline=None)
@given(bits=st.integers(1, 700), data=st.data())
def test_hypothesis_ints_limbs_bytes(bits, data):
    values = data.draw(st.lists(st.integers(0, 2**bits - 1), max_size=20))
    m = storage_limbs(bits)
    limbs = ints_to_limbs(values, bits, m)
    assert limbs_to_ints(limbs) == values
    assert limbs_to_ints(bytes_to_limbs(limbs_to_bytes(limbs, bits), bits, m)) == values
    assert limbs_to_ints(limb_array_to_limbs(limbs.view(np.uint32), bits, m)) == values
