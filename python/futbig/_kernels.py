"""The one module that calls Futhark entry points by name, and the table of
what the host decides per backend.

Every other module (the dtypes, :class:`~futbig.Array`, the operation
families) works on device arrays through these functions and never names an
entry point. Each function is one entry point of ``futhark/futbig.fut``
(docs/interface.md) or a short sequence of them; it takes the backend
:class:`~futbig._backend.Context` first and device arrays (``[n][m]u64``,
``m`` a multiple of 4) after, and returns device arrays, so chained
operations stay on the device.

What the host decides per backend is in the tables below, each value with
its reason and where it was measured. Switch points inside one entry point
(for instance the width up to which a multiplication runs one instance per
thread) live in the Futhark modules. A new family (modular arithmetic, the
NTT, signed types) adds its entry points here.

>>> import numpy as np, futbig._backend as backends
>>> ctx = backends.context()
>>> rows = ctx.to_device(np.array([[2**63, 1, 0, 0], [5, 0, 0, 0]], dtype=np.uint64))
>>> ctx.to_host(exceeds(ctx, 64, rows)).tolist()
[1, 0]
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ._backend import Context

__all__ = [
    "DIV_LIMB_AUTO",
    "DIV_LIMB_LOOP",
    "DIV_LIMB_SCALARS",
    "DIV_LIMB_SCAN",
    "MOD_AUTO",
    "MOD_BATCH",
    "MOD_THREAD",
    "MUL_AUTO",
    "MUL_CLASSICAL",
    "MUL_NTT",
    "ON_CPU",
    "add",
    "add6",
    "bit_and",
    "bit_length",
    "bit_not",
    "bit_or",
    "bit_xor",
    "broadcast",
    "cmp",
    "concatenate",
    "count_flags",
    "divmod",
    "divmod_by",
    "divmod_limb",
    "exceeds",
    "from_mont",
    "gather",
    "gcd",
    "left_shift",
    "mod_add",
    "mod_mul",
    "mod_sub",
    "modinv",
    "mont_mul",
    "mul_full",
    "mul_limb",
    "mul_lo",
    "neg",
    "nonzero",
    "ntt_switches",
    "poly",
    "popcount",
    "powmod",
    "raise_on_flags",
    "resize",
    "right_shift",
    "sqr_full",
    "sqr_lo",
    "sub",
    "to_mont",
]

Device = Any  # an opaque array owned by the backend context

# --------------------------------------------------------------------------
# What the host decides, per backend

#: Whether the backend runs on the CPU: the switch points between algorithms
#: that differ between a GPU and a CPU (lib/github.com/futbig/futbig/thresholds.fut: where
#: ``divmod`` changes from long division to the reciprocal, whether it routes
#: batches of mixed divisor lengths through the reciprocal, whether it keeps
#: narrow divisions in registers) are chosen on the device from this flag,
#: which entry points that have such switch points take as ``cpu``.
ON_CPU: dict[str, bool] = {"cuda": False, "multicore": True, "c": True}

#: Whether a scalar divisor ``0 < k < 2**64`` divides through ``div_limb``
#: (True) or as a batch of copies of ``k`` through ``divmod`` (False).
DIV_LIMB_SCALARS: dict[str, bool] = {
    # NVIDIA H100, 2^32-bit batches, 2026-11-25 (bench/results/h100-scalar.json):
    # div_limb / divmod of a batch of copies, 512 bits 2058 / 6951 us, 4096
    # bits 1895 / 5555, 65536 bits 2132 / 6319, 262144 bits 18785 / 229883.
    "cuda": True,
    # 2-5x faster than divmod on a batch of copies at 512 and 4096 bits:
    # docs/api.md, the table of one-limb scalars.
    "multicore": True,
    "c": True,  # as multicore: the same code, one thread
}


# --------------------------------------------------------------------------
# Flags


def raise_on_flags(ctx: Context, flags: Device, error: Callable[[int, int], Exception]) -> None:
    """Raise ``error(first, count)`` if any flag of an ``[n]u8`` vector is set.

    The flags are summarised on the device (``flag_summary``): two scalars
    come back, not the vector (copying 2^24 flags from the H200 took 2.4 ms,
    docs/division.md).
    """
    first, count = ctx.call("flag_summary", flags)
    if count:
        raise error(int(first), int(count))


def count_flags(ctx: Context, flags: Device) -> int:
    """How many flags of an ``[n]u8`` vector are set (summarised on the device: two scalars come back)."""
    return int(ctx.call("flag_summary", flags)[1])


def exceeds(ctx: Context, bits: int, data: Device) -> Device:
    """``[n]u8`` flags of the rows that are ``>= 2**bits`` (any storage width)."""
    return ctx.call("exceeds", bits, data)


def nonzero(ctx: Context, limbs: Device) -> Device:
    """``[n]u8`` flags of the nonzero values of an ``[n]u64`` vector."""
    return ctx.call("exceeds", 0, ctx.call("limb_rows", 1, limbs))


# --------------------------------------------------------------------------
# Rows: indexing, broadcasting, joining, changing the width


def gather(ctx: Context, data: Device, idx: np.ndarray) -> Device:
    """Rows ``idx`` (in bounds) of a device array, in order; repeats broadcast a row."""
    return ctx.call("gather", data, np.ascontiguousarray(idx, dtype=np.int64))


def broadcast(ctx: Context, data: Device, n: int) -> Device:
    """The one row of ``data`` repeated ``n`` times, on the device."""
    return gather(ctx, data, np.zeros(n, dtype=np.int64))


def resize(ctx: Context, data: Device, m: int, bits: int) -> Device:
    """Rows zero-extended or truncated to ``m`` limbs and reduced modulo ``2**bits``."""
    return ctx.call("resize", bits, m, data)


def concatenate(ctx: Context, parts: Sequence[Device], lengths: Sequence[int], m: int) -> Device:
    """The rows of ``parts`` (``lengths[i]`` rows of ``m`` limbs each) end to end.

    Each row is copied once: two parts by ``concat``, more by placing each
    into one destination (``zero_rows``, then ``place`` per part).
    """
    kept = [(p, k) for p, k in zip(parts, lengths) if k] or [(parts[0], lengths[0])]
    if len(kept) == 1:
        return kept[0][0]
    if len(kept) == 2:
        return ctx.call("concat", kept[0][0], kept[1][0])
    joined = ctx.call("zero_rows", sum(lengths), m)
    offset = 0
    for part, k in kept:
        # `place` consumes `joined`: the old handle is only freed, never used again.
        joined = ctx.call("place", joined, offset, part)
        offset += k
    return joined


# --------------------------------------------------------------------------
# Arithmetic


def add(ctx: Context, bits: int, a: Device, b: Device) -> tuple[Device, Device]:
    """``(a + b mod 2**bits, carry [n]u8)``."""
    return ctx.call("add", ON_CPU[ctx.name], bits, a, b)


def sub(ctx: Context, bits: int, a: Device, b: Device) -> tuple[Device, Device]:
    """``(a - b mod 2**bits, borrow [n]u8)``."""
    return ctx.call("sub", ON_CPU[ctx.name], bits, a, b)


def neg(ctx: Context, bits: int, a: Device) -> Device:
    """``-a mod 2**bits``."""
    return ctx.call("neg", ON_CPU[ctx.name], bits, a)


#: ``method`` of the multiplications: the library's choice (the ladder of
#: lib/github.com/futbig/futbig/mul.fut, switch points in lib/github.com/futbig/futbig/thresholds.fut), classical
#: (one instance per thread, convmul or per-row code by width), the NTT.
MUL_AUTO, MUL_CLASSICAL, MUL_NTT = 0, 1, 2
#: Widest operands (limbs) the NTT multiplies, 2^27 bits (``ntt_max_limbs`` in lib/github.com/futbig/futbig/ntt.fut).
NTT_MAX_LIMBS = 2**21


def _served(ctx: Context, a: Device, method: int) -> None:
    """Refuse operands wider than the NTT serves (unless classical multiplication is
    forced): only classical per-row products would take them, which at those widths
    run for hours."""
    m = ctx.shape(a)[1]
    if m > NTT_MAX_LIMBS and method != MUL_CLASSICAL:
        raise ValueError(
            f"futbig multiplies operands of at most 2**27 bits ({NTT_MAX_LIMBS} limbs); these have {m} limbs "
            f"({64 * m} bits of storage): use a dtype of at most 2**27 bits, or split the values into parts"
        )


def mul_lo(ctx: Context, bits: int, a: Device, b: Device, method: int = MUL_AUTO) -> Device:
    """``a * b mod 2**bits`` by ``method`` (:data:`MUL_AUTO` and the others)."""
    _served(ctx, a, method)
    return ctx.call("mul_lo", ON_CPU[ctx.name], method, bits, a, b)


def sqr_lo(ctx: Context, bits: int, a: Device, method: int = MUL_AUTO) -> Device:
    """``a * a mod 2**bits``; the NTT squares with one forward transform fewer."""
    _served(ctx, a, method)
    return ctx.call("sqr_lo", ON_CPU[ctx.name], method, bits, a)


def mul_full(ctx: Context, a: Device, b: Device, method: int = MUL_AUTO) -> Device:
    """The exact products, ``2m`` limbs."""
    _served(ctx, a, method)
    return ctx.call("mul_full", ON_CPU[ctx.name], method, a, b)


def sqr_full(ctx: Context, a: Device, method: int = MUL_AUTO) -> Device:
    """The exact squares, ``2m`` limbs."""
    _served(ctx, a, method)
    return ctx.call("sqr_full", ON_CPU[ctx.name], method, a)


def ntt_switches(ctx: Context, cpu: bool | None = None) -> list[int]:
    """The widths (limbs) from which mul_lo, mul_full, sqr_lo and sqr_full use the NTT,
    with the switch points of ``cpu`` (default: the backend's own)."""
    cpu = ON_CPU[ctx.name] if cpu is None else cpu
    return [int(x) for x in ctx.to_host(ctx.call("ntt_switches", cpu))]


def add6(ctx: Context, bits: int, a: Device, b: Device) -> Device:
    """``6a + 10b mod 2**bits`` in one kernel (the fused example of the papers)."""
    return ctx.call("add6", bits, a, b)


def poly(ctx: Context, bits: int, a: Device, b: Device) -> Device:
    """``(a*a + b) * (b*b + b) + a*b mod 2**bits``, in one kernel up to 65536 bits."""
    return ctx.call("poly", ON_CPU[ctx.name], bits, a, b)


def mul_limb(ctx: Context, bits: int, a: Device, k: int) -> tuple[Device, Device]:
    """``(a * k mod 2**bits, floor(a * k / 2**bits) [n]u64)`` for one limb ``0 <= k < 2**64``."""
    n = ctx.shape(a)[0]
    return ctx.call("mul_limb", bits, a, ctx.call("splat_limb", n, k))


def divmod(ctx: Context, a: Device, b: Device) -> tuple[Device, Device, Device]:
    """``(a // b, a % b, zero [n]u8)``; zero flags ``b == 0`` (then both results are 0).

    Long division or the reciprocal, by the switch points of the backend's kind
    (:data:`ON_CPU`, lib/github.com/futbig/futbig/thresholds.fut).
    """
    return divmod_by(ctx, 0, a, b)


#: ``divmod_by`` methods: the library's choice, long division with one
#: instance per thread, Newton's reciprocal.
DIV_AUTO, DIV_LONG, DIV_NEWTON = 0, 1, 2


def divmod_by(ctx: Context, method: int, a: Device, b: Device) -> tuple[Device, Device, Device]:
    """``divmod`` by one ``method`` (:data:`DIV_AUTO`, :data:`DIV_LONG` or :data:`DIV_NEWTON`):
    tests and benchmarks reach each algorithm through it."""
    return ctx.call("divmod", ON_CPU[ctx.name], method, a, b)


#: ``method`` of ``div_limb``: the library's choice (a loop over the limbs per
#: instance, or a scan over all limbs for batches too small to fill a GPU:
#: lib/github.com/futbig/futbig/thresholds.fut), or one of them forced (tests and benchmarks).
DIV_LIMB_AUTO, DIV_LIMB_LOOP, DIV_LIMB_SCAN = 0, 1, 2


def divmod_limb(ctx: Context, a: Device, k: int, method: int = DIV_LIMB_AUTO) -> tuple[Device, Device]:
    """``(a // k, a % k)`` for one limb ``0 < k < 2**64``, both at ``a``'s storage width.

    Through ``div_limb`` (by ``method``), or where :data:`DIV_LIMB_SCALARS`
    says otherwise and ``method`` is the library's choice, through
    ``divmod`` on a batch of copies of ``k``.
    """
    n, m = ctx.shape(a)
    if DIV_LIMB_SCALARS[ctx.name] or method != DIV_LIMB_AUTO:
        q, r, _ = ctx.call("div_limb", ON_CPU[ctx.name], method, a, ctx.call("splat_limb", n, k))
        return q, ctx.call("limb_rows", m, r)
    row = np.zeros((1, m), dtype=np.uint64)
    row[0, 0] = k
    q, r, _ = divmod(ctx, a, broadcast(ctx, ctx.to_device(row), n))
    return q, r


def cmp(ctx: Context, a: Device, b: Device) -> np.ndarray:
    """``[n]`` int8 of -1, 0, 1 (the sign of ``a - b``), on the host."""
    return ctx.to_host(ctx.call("cmp", a, b))


# --------------------------------------------------------------------------
# Bits


def bit_and(ctx: Context, a: Device, b: Device) -> Device:
    """``a & b``."""
    return ctx.call("bit_and", a, b)


def bit_or(ctx: Context, a: Device, b: Device) -> Device:
    """``a | b``."""
    return ctx.call("bit_or", a, b)


def bit_xor(ctx: Context, a: Device, b: Device) -> Device:
    """``a ^ b``."""
    return ctx.call("bit_xor", a, b)


def bit_not(ctx: Context, bits: int, a: Device) -> Device:
    """``2**bits - 1 - a``."""
    return ctx.call("bit_not", bits, a)


def left_shift(ctx: Context, bits: int, counts: int | np.ndarray, a: Device) -> Device:
    """``a << counts mod 2**bits``: one count (an int) or an ``[n]`` int64 array of them."""
    if isinstance(counts, int):
        return ctx.call("shl", bits, counts, a)
    return ctx.call("shl_each", bits, counts, a)


def right_shift(ctx: Context, counts: int | np.ndarray, a: Device) -> Device:
    """``a >> counts`` (unsigned): one count (an int) or an ``[n]`` int64 array of them."""
    if isinstance(counts, int):
        return ctx.call("shr", counts, a)
    return ctx.call("shr_each", counts, a)


def bit_length(ctx: Context, a: Device) -> np.ndarray:
    """``[n]`` int64 on the host: the bit length of each (unsigned) row, 0 for zero."""
    return ctx.to_host(ctx.call("bit_length", a))


def popcount(ctx: Context, a: Device) -> np.ndarray:
    """``[n]`` int64 on the host: the number of set bits of each row."""
    return ctx.to_host(ctx.call("popcount", a))


# --------------------------------------------------------------------------
# Modular arithmetic (lib/github.com/futbig/futbig/modular.fut). ``mods`` has one row (one
# modulus for the batch) or one per instance; ``zero`` flags the instances
# whose modulus is 0 (their results are 0).


def mod_add(ctx: Context, a: Device, b: Device, mods: Device) -> tuple[Device, Device]:
    """``((a + b) mod p, zero [n]u8)``; inputs may be ``>= p``."""
    return ctx.call("mod_add", a, b, mods)


def mod_sub(ctx: Context, a: Device, b: Device, mods: Device) -> tuple[Device, Device]:
    """``((a - b) mod p, zero [n]u8)``; inputs may be ``>= p``."""
    return ctx.call("mod_sub", a, b, mods)


#: ``method`` of ``mod_mul``, ``powmod``, ``to_mont``, ``from_mont`` and ``mont_mul``
#: (odd moduli): the library's choice (kernels of constant width up to ``fixed_mont_limbs``,
#: batch-level products from ``mont_batch_limbs`` above, on the GPU only; both in
#: lib/github.com/futbig/futbig/thresholds.fut), one instance per thread, or batch-level
#: Montgomery products built from the multiplication ladder (forced by tests and benchmarks).
MOD_AUTO, MOD_THREAD, MOD_BATCH = 0, 1, 2


def mod_mul(ctx: Context, a: Device, b: Device, mods: Device, method: int = MOD_AUTO,
            one_odd: bool = False) -> tuple[Device, Device]:
    """``(a * b mod p, zero [n]u8)``: Montgomery for odd ``p`` (route by ``method``), long division for even ``p``.

    ``one_odd``: ``mods`` is known to be one odd modulus (a Python int), so the
    device does not check it (a read that would wait for the device)."""
    return ctx.call("mod_mul", ON_CPU[ctx.name], method, one_odd, a, b, mods)


def powmod(ctx: Context, a: Device, e: Device, mods: Device, method: int = MOD_AUTO,
           one_odd: bool = False) -> tuple[Device, Device]:
    """``(a ** e mod p, zero [n]u8)``; ``e`` has one row or one per instance, of any width; ``one_odd`` as for
    :func:`mod_mul`."""
    return ctx.call("powmod", ON_CPU[ctx.name], method, one_odd, a, e, mods)


def gcd(ctx: Context, a: Device, b: Device) -> Device:
    """``gcd(a, b)`` by the binary algorithm, ``gcd(0, 0) = 0``."""
    return ctx.call("gcd", a, b)


def modinv(ctx: Context, a: Device, mods: Device) -> tuple[Device, Device, Device]:
    """``(a ** -1 mod p, zero [n]u8, none [n]u8)``: ``none`` flags gcd(a, p) != 1 (result 0 there)."""
    return ctx.call("modinv", a, mods)


def to_mont(ctx: Context, a: Device, mods: Device, method: int = MOD_AUTO) -> Device:
    """Montgomery forms ``(a mod p) * 2**(64m) mod p`` (odd moduli)."""
    return ctx.call("to_mont", ON_CPU[ctx.name], method, a, mods)


def from_mont(ctx: Context, a: Device, mods: Device, method: int = MOD_AUTO) -> Device:
    """Values ``a * 2**(-64m) mod p`` of Montgomery forms ``a < p`` (odd moduli)."""
    return ctx.call("from_mont", ON_CPU[ctx.name], method, a, mods)


def mont_mul(ctx: Context, a: Device, b: Device, mods: Device, method: int = MOD_AUTO) -> Device:
    """Montgomery products ``a * b * 2**(-64m) mod p`` of forms ``a, b < p`` (odd moduli)."""
    return ctx.call("mont_mul", ON_CPU[ctx.name], method, a, b, mods)
