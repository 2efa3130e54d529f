"""Independent int <-> limb-array conversions for the kernel tests.

Deliberately separate from futbig's own conversions, so a bug there cannot
hide a bug in the kernels.
"""
from __future__ import annotations

import numpy as np


def storage_limbs(bits: int) -> int:
    """Limbs the kernels store a `bits`-wide integer in: ceil(bits/64) rounded up to 4."""
    return -(-bits // 256) * 4


def to_limbs(values: list[int], m: int) -> np.ndarray:
    """(n, m) little-endian uint64 limbs of non-negative ints below 2^(64m)."""
    raw = b"".join(v.to_bytes(8 * m, "little") for v in values)
    return np.frombuffer(raw, dtype="<u8").reshape(len(values), m).astype(np.uint64)


def from_limbs(array: np.ndarray) -> list[int]:
    """Python ints of an (n, m) uint64 limb array."""
    array = np.ascontiguousarray(array, dtype="<u8")
    return [int.from_bytes(row.tobytes(), "little") for row in array]
