"""Differential testing against GMP at scale: ``python -m futbig fuzz``.

Every operation runs on batches of random and adversarial operands at every
width given (by default both sides of every algorithm switch of the Futhark
code, from 1 bit to 2^18 + 1 bits), and every instance is compared with what
gmpy2 computes. The operands mix uniform limbs with zeros, all-ones, powers
of two, 2^k - 1 and 2^k + small (carries across the whole width), one-limb
values, values of random bit length (divisors of every length), sparse and
dense bit patterns, and pairs made to collide: b = a, b = ~a, a + b = 2^bits,
a = q*b + (b - 1) (the largest remainder). Shift counts include 0, 63, 64,
bits - 1, bits and far beyond; exponents 0 to 40. ``divmod`` batches hold
divisors of every length (which the kernels divide through the reciprocal
above 16 limbs), ``divmod_one_length`` batches divisors of one length with
top limbs 1, 2^63, all ones or random (long division), ``divmod_newton``
forces the reciprocal at every width. The ``int_*`` operations read the
operands as ``fb.int(bits)`` (two's complement: every pattern is a signed
value, the extremes included) and check the signed compositions.

Cases are spread over the widths in inverse proportion to the square root
of their limbs (to their limbs for products, divisions, power and poly), at
least 32 at each. Each batch draws from its own generator, seeded by (seed,
operation, width, batch), so ``--ops OP --bits W --cases N`` with the printed
seed and count replays a failing width. A mismatch prints the operation,
width, index and operands, and the run exits with code 1.
"""
from __future__ import annotations

import sys
import time
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import gmpy2
import numpy as np

from . import _backend, _kernels

#: Bits per operand per batch: the number of instances of a batch is this over the width.
BATCH_BITS = 2**22
#: Fewest cases at any width.
MIN_CASES = 32

# Widths (bits) on both sides of every switch: storage limbs m = 4, 8, ... (the
# kernels' quads), one-instance-per-thread multiplication up to 20 limbs,
# long division's 8/16/32/64-limb variants, poly's block kernel up to 1024
# limbs, block kernels up to 4096 limbs (2^18 bits) and per-row code above,
# mul_full's halves above 2048 limbs; and odd widths inside a limb.
DEFAULT_BITS = [1, 2, 63, 64, 65, 127, 128, 200, 255, 256, 257, 511, 512, 513, 768, 769, 1024, 1025, 1280, 1281,
                1536, 2048, 2049, 4096, 4097, 8192, 16383, 65536, 65537, 131072, 131073, 262144, 262145]
# The multiplication ladder's switches to the NTT (lib/github.com/futbig/futbig/thresholds.fut, GPU and CPU): one storage step
# (4 limbs) below, at, and just above each.
NTT_SWITCH_LIMBS = [216, 272, 408, 448, 480, 848, 1792, 2048]
DEFAULT_BITS = sorted(set(DEFAULT_BITS + [b for s in NTT_SWITCH_LIMBS for b in (64 * (s - 4), 64 * s, 64 * s + 1)]))

Case = tuple  # the operands and extras of one instance, as ints


def _mask_below(lengths: np.ndarray, limbs: int) -> np.ndarray:
    """(n, limbs) uint64: row i has its lowest ``lengths[i]`` bits set."""
    j = np.arange(limbs, dtype=np.int64)[None, :] * 64
    ln = lengths.astype(np.int64)[:, None]
    full = ln >= j + 64
    part = (ln > j) & ~full
    shift = np.clip(ln - j, 0, 63).astype(np.uint64)
    out = np.where(full, np.uint64(2**64 - 1), np.uint64(0))
    out[part] = (np.uint64(1) << shift[part]) - np.uint64(1)
    return out


def _bit(positions: np.ndarray, limbs: int) -> np.ndarray:
    """(n, limbs) uint64: row i is 2**positions[i]."""
    out = np.zeros((len(positions), limbs), dtype=np.uint64)
    out[np.arange(len(positions)), positions // 64] = np.uint64(1) << (positions % 64).astype(np.uint64)
    return out


def operands(rng: np.random.Generator, n: int, bits: int) -> np.ndarray:
    """``n`` values below 2**bits as (n, ceil(bits/64)) uint64 limbs, from a mix of patterns."""
    limbs = -(-bits // 64)
    x = rng.integers(0, 2**64, size=(n, limbs), dtype=np.uint64, endpoint=False)
    kind = rng.integers(0, 12, size=n)
    pos = rng.integers(0, bits, size=n)
    lengths = rng.integers(1, bits + 1, size=n)
    ones = np.uint64(2**64 - 1)

    def where(k: int) -> np.ndarray:
        return np.flatnonzero(kind == k)

    rows = where(1)  # random bit length
    x[rows] &= _mask_below(lengths[rows], limbs)
    x[where(2)] = 0
    x[where(3)] = ones
    rows = where(4)  # a power of two
    x[rows] = _bit(pos[rows], limbs)
    rows = where(5)  # 2^k - 1: carries and borrows across k bits
    x[rows] = _mask_below(pos[rows], limbs)
    rows = where(6)  # all ones above a random low limb
    x[rows, 1:] = ones
    rows = where(7)  # one limb
    x[rows, 1:] = 0
    rows = where(8)  # sparse
    x[rows] &= rng.integers(0, 2**64, size=(len(rows), limbs), dtype=np.uint64) \
        & rng.integers(0, 2**64, size=(len(rows), limbs), dtype=np.uint64)
    rows = where(9)  # dense
    x[rows] |= rng.integers(0, 2**64, size=(len(rows), limbs), dtype=np.uint64) \
        | rng.integers(0, 2**64, size=(len(rows), limbs), dtype=np.uint64)
    rows = where(10)  # the top bit and a small value
    x[rows, 1:] = 0
    x[rows] |= _bit(np.full(len(rows), bits - 1), limbs)
    rows = where(11)  # 2^k + a small value
    x[rows, 1:] = 0
    x[rows] |= _bit(pos[rows], limbs)
    if bits % 64:
        x[:, -1] &= np.uint64((1 << (bits % 64)) - 1)
    return x


def _to_mpz(limbs: np.ndarray) -> list:
    """The rows of little-endian uint64 limbs as mpz (one import and one gmpy2.unpack: no Python loop)."""
    n, k = limbs.shape
    whole = gmpy2.mpz.from_bytes(np.ascontiguousarray(limbs, dtype="<u8").tobytes(), "little")
    values = gmpy2.unpack(whole, 64 * k) if n else []
    return values + [gmpy2.mpz(0)] * (n - len(values))


def _to_limbs(values: list, k: int) -> np.ndarray:
    """Non-negative integers below 2**(64*k) as (n, k) uint64 limbs (gmpy2.pack; TypeError otherwise)."""
    n = len(values)
    return np.frombuffer(gmpy2.pack(values, 64 * k).to_bytes(8 * n * k, "little"), dtype="<u8").reshape(n, k)


def divisors_of_one_length(rng: np.random.Generator, n: int, bits: int) -> np.ndarray:
    """``n`` divisors of one random length in limbs (as (n, limbs) uint64), their top limbs nonzero:
    a batch that long division takes (the kernels send batches whose divisor lengths spread widely
    through the reciprocal)."""
    limbs = -(-bits // 64)
    length = int(rng.integers(1, limbs + 1))
    y = operands(rng, n, bits)
    y[:, length:] = 0
    top_bits = 64 if length < limbs or bits % 64 == 0 else bits % 64
    top = y[:, length - 1]
    patterns = np.array([1, 2**(top_bits - 1), 2**top_bits - 1], dtype=np.uint64)
    empty = top == 0
    top[empty] = patterns[rng.integers(0, 3, size=int(empty.sum()))]
    return y


def _pairs(rng: np.random.Generator, n: int, bits: int, divisor: str = "") -> tuple[list, list]:
    """Two operand lists (mpz); some pairs are made to collide (for a division: a = q*b + r, r = 0 or b - 1)."""
    xs = _to_mpz(operands(rng, n, bits))
    ys = _to_mpz(divisors_of_one_length(rng, n, bits) if divisor == "one length" else operands(rng, n, bits))
    mask = (gmpy2.mpz(1) << bits) - 1
    top = gmpy2.mpz(1) << bits
    how = rng.integers(0, 16, size=n)  # 0-3: a relation; else independent
    for i in np.flatnonzero(how < 4).tolist():
        x, y = xs[i], ys[i]
        h = how[i]
        if divisor and y:
            # a = q*y + r with the largest remainder, or none: the quotient-digit edge cases
            q = x // y
            r = y - 1 if h & 1 else 0
            xs[i] = q * y + r if q * y + r <= mask else q * y
        elif h == 0:
            ys[i] = x
        elif h == 1:
            ys[i] = x ^ mask
        elif h == 2:
            ys[i] = (top - x) & mask
        else:
            ys[i] = (x + 1) & mask
    return xs, ys


# --------------------------------------------------------------------------
# Operations: each runs one batch on the device and gives its outputs as host
# columns (numpy: (n, k) uint64 limbs or a vector per instance); the oracle
# gives GMP's as lists, column by column.


@dataclass(frozen=True)
class FuzzOp:
    """One operation under test."""

    name: str
    run: Callable[..., tuple]  # (fb, ctx, bits, a, b, extra) -> output columns (numpy)
    oracle: Callable[..., tuple]  # (xs, ys, extra, bits) -> expected columns (lists of ints)
    binary: bool = True
    divisor: str = ""  # "any": zeros included; "nonzero": b != 0 (the API raises); "one length": see below
    extra: str = ""  # "count", "counts", "exponent", "limb": what else each batch draws
    quadratic: bool = False  # cost grows with the square of the width: fewer cases at wide widths
    signed: bool = False  # runs on the operands read as fb.int(bits): widths of 2 bits and more
    max_bits: int = 0  # widest width checked (0: all): one instance per thread makes wide ones slow


def _mask(bits: int) -> Any:
    return (gmpy2.mpz(1) << bits) - 1


def _lo_hi(values: list, bits: int) -> tuple[list, list]:
    """Each value's low ``bits`` bits and the rest."""
    m = _mask(bits)
    return [v & m for v in values], [v >> bits for v in values]


def _low(values: list, bits: int) -> tuple[list]:
    m = _mask(bits)
    return ([v & m for v in values],)


def _signed(values: list, bits: int) -> list:
    """The values (below ``2**bits``) read as ``bits``-bit two's complement."""
    top, half = gmpy2.mpz(1) << bits, gmpy2.mpz(1) << (bits - 1)
    return [v - top if v >= half else v for v in values]


def _divmod(xs: list, ys: list) -> tuple[list, list, list]:
    """GMP's floor quotients and remainders, and the zero flags; (0, 0) for a zero divisor, as the kernels give."""
    qr = [gmpy2.f_divmod(x, y) if y else (0, 0) for x, y in zip(xs, ys)]
    return [q for q, _ in qr], [r for _, r in qr], [int(y == 0) for y in ys]


def _ops() -> dict[str, FuzzOp]:
    def entry(name, first=None):
        """Run entry point ``name``: leading scalars from ``first(bits, ctx)``, then the operands (and the
        per-instance u64 of mul_limb/div_limb); every output comes back to the host."""
        def run(fb, ctx, bits, a, b, extra):
            args = [] if first is None else first(bits, ctx)
            args += [a.device_array] + ([b.device_array] if b is not None else [])
            if isinstance(extra, np.ndarray):
                args.append(extra)
            result = ctx.call(name, *args)
            return tuple(ctx.to_host(r) for r in (result if isinstance(result, tuple) else (result,)))
        return run

    def batch_route(kernel):
        """Run ``kernel`` (``_kernels.mod_mul`` or ``powmod``) on ``a``, ``~a`` and the moduli ``b`` with
        batch-level Montgomery products forced (``_kernels.MOD_BATCH``), whatever the width and backend."""
        def run(fb, ctx, bits, a, b, extra):
            result, _ = kernel(ctx, a.device_array, (~a).device_array, b.device_array, _kernels.MOD_BATCH)
            return (ctx.to_host(result),)
        return run

    def api(f):
        """Run ``f(fb, a, b, extra)`` through the Python API; its result's limbs come back."""
        return lambda fb, ctx, bits, a, b, extra: (f(fb, a, b, extra).to_limbs(),)

    def signed(f):
        """Run ``f(fb, a, b, extra)`` on the operands read as ``fb.int(bits)``; the result's two's
        complement bits come back (a numpy result, such as a comparison, as it is)."""
        def run(fb, ctx, bits, a, b, extra):
            t = fb.int(bits)
            result = f(fb, a.astype(t), None if b is None else b.astype(t), extra)
            return (result if isinstance(result, np.ndarray) else result.astype(fb.uint(result.bits)).to_limbs(),)
        return run

    def signed_oracle(f, wide=1):
        """GMP's ``f(sxs, sys, extra, bits)`` on the signed values, as ``wide * bits``-bit two's complement."""
        return lambda xs, ys, e, bits: tuple(
            _low(col, wide * bits)[0] if wide else col
            for col in f(_signed(xs, bits), _signed(ys, bits), e, bits))

    width = lambda bits, ctx: [bits]
    # The leading scalars of add and sub: the backend's layout (futbig._kernels.ON_CPU) and the width.
    layout = lambda bits, ctx: [_kernels.ON_CPU[ctx.name], bits]
    # The divmod entry's leading scalars: the backend's switch points and one method (futbig._kernels).
    division = lambda method: lambda bits, ctx: [_kernels.ON_CPU[ctx.name], method]
    # The leading scalars of the multiplication entries: the backend's switch points, one method (and the width).
    ladder = lambda method, with_bits: lambda bits, ctx: [_kernels.ON_CPU[ctx.name], method] + ([bits] if with_bits else [])
    count = lambda k, bits: min(int(k), bits)  # shifting by bits or more gives 0 on both sides
    ops = [
        FuzzOp("add", entry("add", layout), lambda xs, ys, e, bits: _lo_hi([x + y for x, y in zip(xs, ys)], bits)),
        FuzzOp("sub", entry("sub", layout),
               lambda xs, ys, e, bits: (_low([x - y for x, y in zip(xs, ys)], bits)[0],
                                        [int(x < y) for x, y in zip(xs, ys)])),
        FuzzOp("mul", api(lambda fb, a, b, e: a * b),
               lambda xs, ys, e, bits: _low([x * y for x, y in zip(xs, ys)], bits), quadratic=True),
        FuzzOp("square", api(lambda fb, a, b, e: a * a),
               lambda xs, ys, e, bits: _low([x * x for x in xs], bits), binary=False, quadratic=True),
        FuzzOp("mul_full", api(lambda fb, a, b, e: fb.mul_full(a, b)),
               lambda xs, ys, e, bits: ([x * y for x, y in zip(xs, ys)],), quadratic=True),
        FuzzOp("sqr_full", api(lambda fb, a, b, e: fb.mul_full(a, a)),
               lambda xs, ys, e, bits: ([x * x for x in xs],), binary=False, quadratic=True),
        # The algorithms of the multiplication ladder, forced at every width.
        FuzzOp("mul_classical", entry("mul_lo", ladder(_kernels.MUL_CLASSICAL, True)),
               lambda xs, ys, e, bits: _low([x * y for x, y in zip(xs, ys)], bits), quadratic=True),
        FuzzOp("mul_ntt", entry("mul_lo", ladder(_kernels.MUL_NTT, True)),
               lambda xs, ys, e, bits: _low([x * y for x, y in zip(xs, ys)], bits)),
        FuzzOp("mul_full_ntt", entry("mul_full", ladder(_kernels.MUL_NTT, False)),
               lambda xs, ys, e, bits: ([x * y for x, y in zip(xs, ys)],)),
        FuzzOp("sqr_ntt", entry("sqr_lo", ladder(_kernels.MUL_NTT, True)),
               lambda xs, ys, e, bits: _low([x * x for x in xs], bits), binary=False),
        FuzzOp("mul_limb", entry("mul_limb", width),
               lambda xs, ys, d, bits: _lo_hi([x * k for x, k in zip(xs, d.tolist())], bits),
               binary=False, extra="limb"),
        FuzzOp("divmod", entry("divmod", division(_kernels.DIV_AUTO)),
               lambda xs, ys, e, bits: _divmod(xs, ys), divisor="any", quadratic=True),
        FuzzOp("divmod_long", entry("divmod", division(_kernels.DIV_LONG)),
               lambda xs, ys, e, bits: _divmod(xs, ys), divisor="any", quadratic=True),
        FuzzOp("divmod_newton", entry("divmod", division(_kernels.DIV_NEWTON)),
               lambda xs, ys, e, bits: _divmod(xs, ys), divisor="any", quadratic=True),
        FuzzOp("divmod_one_length", entry("divmod", division(_kernels.DIV_AUTO)),
               lambda xs, ys, e, bits: _divmod(xs, ys), divisor="one length", quadratic=True),
        FuzzOp("floordiv", api(lambda fb, a, b, e: a // b),
               lambda xs, ys, e, bits: ([x // y for x, y in zip(xs, ys)],), divisor="nonzero", quadratic=True),
        FuzzOp("mod", api(lambda fb, a, b, e: a % b),
               lambda xs, ys, e, bits: ([x % y for x, y in zip(xs, ys)],), divisor="nonzero", quadratic=True),
        FuzzOp("div_limb", entry("div_limb", division(_kernels.DIV_LIMB_AUTO)), lambda xs, ys, d, bits: _divmod(xs, d.tolist()),
               binary=False, extra="limb"),
        FuzzOp("shl", api(lambda fb, a, b, k: a << k),
               lambda xs, ys, k, bits: _low([x << count(k, bits) for x in xs], bits), binary=False, extra="count"),
        FuzzOp("shr", api(lambda fb, a, b, k: a >> k),
               lambda xs, ys, k, bits: ([x >> count(k, bits) for x in xs],), binary=False, extra="count"),
        FuzzOp("shl_each", api(lambda fb, a, b, ks: a << ks),
               lambda xs, ys, ks, bits: _low([x << count(k, bits) for x, k in zip(xs, ks.tolist())], bits),
               binary=False, extra="counts"),
        FuzzOp("shr_each", api(lambda fb, a, b, ks: a >> ks),
               lambda xs, ys, ks, bits: ([x >> count(k, bits) for x, k in zip(xs, ks.tolist())],),
               binary=False, extra="counts"),
        FuzzOp("and", api(lambda fb, a, b, e: a & b), lambda xs, ys, e, bits: ([x & y for x, y in zip(xs, ys)],)),
        FuzzOp("or", api(lambda fb, a, b, e: a | b), lambda xs, ys, e, bits: ([x | y for x, y in zip(xs, ys)],)),
        FuzzOp("xor", api(lambda fb, a, b, e: a ^ b), lambda xs, ys, e, bits: ([x ^ y for x, y in zip(xs, ys)],)),
        FuzzOp("not", api(lambda fb, a, b, e: ~a), lambda xs, ys, e, bits: _low([~x for x in xs], bits),
               binary=False),
        FuzzOp("neg", api(lambda fb, a, b, e: -a), lambda xs, ys, e, bits: _low([-x for x in xs], bits),
               binary=False),
        FuzzOp("compare", lambda fb, ctx, bits, a, b, e: (fb.compare(a, b),),
               lambda xs, ys, e, bits: ([(x > y) - (x < y) for x, y in zip(xs, ys)],)),
        FuzzOp("power", api(lambda fb, a, b, k: a ** k),
               lambda xs, ys, k, bits: ([gmpy2.powmod(x, k, _mask(bits) + 1) for x in xs],),
               binary=False, extra="exponent", quadratic=True),
        FuzzOp("add6", entry("add6", width),
               lambda xs, ys, e, bits: _low([6 * x + 10 * y for x, y in zip(xs, ys)], bits)),
        FuzzOp("poly", entry("poly", lambda bits, ctx: [_kernels.ON_CPU[ctx.name], bits]),
               lambda xs, ys, e, bits: _low([(x * x + y) * (y * y + y) + x * y for x, y in zip(xs, ys)], bits),
               quadratic=True),
        FuzzOp("int_mul_full", signed(lambda fb, a, b, e: fb.mul_full(a, b)),
               signed_oracle(lambda xs, ys, e, bits: ([x * y for x, y in zip(xs, ys)],), wide=2),
               quadratic=True, signed=True),
        FuzzOp("int_floordiv", signed(lambda fb, a, b, e: a // b),
               signed_oracle(lambda xs, ys, e, bits: ([x // y for x, y in zip(xs, ys)],)),
               divisor="nonzero", quadratic=True, signed=True),
        FuzzOp("int_mod", signed(lambda fb, a, b, e: a % b),
               signed_oracle(lambda xs, ys, e, bits: ([x % y for x, y in zip(xs, ys)],)),
               divisor="nonzero", quadratic=True, signed=True),
        FuzzOp("int_shr_each", signed(lambda fb, a, b, ks: a >> ks),
               signed_oracle(lambda xs, ys, ks, bits: ([x >> count(k, bits) for x, k in zip(xs, ks.tolist())],)),
               binary=False, extra="counts", signed=True),
        FuzzOp("int_compare", signed(lambda fb, a, b, e: fb.compare(a, b)),
               signed_oracle(lambda xs, ys, e, bits: ([(x > y) - (x < y) for x, y in zip(xs, ys)],), wide=0),
               signed=True),
        # Modular arithmetic, b the per-instance modulus (nonzero), ~a the second operand and the
        # exponent (as wide as the modulus; inputs >= the modulus included).
        FuzzOp("mod_add", api(lambda fb, a, b, e: fb.mod_add(a, ~a, b)),
               lambda xs, ys, e, bits: ([(x + (x ^ _mask(bits))) % y for x, y in zip(xs, ys)],), divisor="nonzero"),
        FuzzOp("mod_sub", api(lambda fb, a, b, e: fb.mod_sub(a, ~a, b)),
               lambda xs, ys, e, bits: ([(x - (x ^ _mask(bits))) % y for x, y in zip(xs, ys)],), divisor="nonzero"),
        FuzzOp("mod_mul", api(lambda fb, a, b, e: fb.mod_mul(a, ~a, b)),
               lambda xs, ys, e, bits: ([x * (x ^ _mask(bits)) % y for x, y in zip(xs, ys)],), divisor="nonzero",
               quadratic=True, max_bits=65537),
        FuzzOp("powmod", api(lambda fb, a, b, e: fb.powmod(a, ~a, b)),
               lambda xs, ys, e, bits: ([gmpy2.powmod(x, x ^ _mask(bits), y) for x, y in zip(xs, ys)],),
               divisor="nonzero", quadratic=True, max_bits=4097),
        # The batch-level Montgomery route forced (odd moduli; even ones are recomputed per thread).
        FuzzOp("mod_mul_batch", batch_route(_kernels.mod_mul),
               lambda xs, ys, e, bits: ([x * (x ^ _mask(bits)) % y for x, y in zip(xs, ys)],), divisor="nonzero",
               quadratic=True, max_bits=65537),
        FuzzOp("powmod_batch", batch_route(_kernels.powmod),
               lambda xs, ys, e, bits: ([gmpy2.powmod(x, x ^ _mask(bits), y) for x, y in zip(xs, ys)],),
               divisor="nonzero", quadratic=True, max_bits=1025),
        FuzzOp("gcd", api(lambda fb, a, b, e: fb.gcd(a, b)),
               lambda xs, ys, e, bits: ([gmpy2.gcd(x, y) for x, y in zip(xs, ys)],), divisor="any", quadratic=True,
               max_bits=16384),
        FuzzOp("modinv", api(lambda fb, a, b, e: fb.modinv(a, b, errors="zero")),
               lambda xs, ys, e, bits: ([_invert(x, y) for x, y in zip(xs, ys)],), divisor="nonzero",
               quadratic=True, max_bits=16384),
    ]
    return {op.name: op for op in ops}


def _invert(x: Any, p: Any) -> Any:
    """GMP's inverse of x modulo p, 0 where there is none (fb.modinv's errors="zero")."""
    try:
        return gmpy2.invert(x, p)
    except ZeroDivisionError:
        return 0


#: Every operation ``fuzz`` checks.
OP_NAMES = ["add", "sub", "mul", "square", "mul_full", "sqr_full", "mul_classical", "mul_ntt", "mul_full_ntt",
            "sqr_ntt", "mul_limb", "divmod", "divmod_long",
            "divmod_newton", "divmod_one_length", "floordiv", "mod", "div_limb", "shl", "shr", "shl_each", "shr_each", "and", "or", "xor",
            "not", "neg", "compare", "power", "add6", "poly", "int_mul_full", "int_floordiv", "int_mod",
            "int_shr_each", "int_compare", "mod_add", "mod_sub", "mod_mul", "powmod", "mod_mul_batch", "powmod_batch",
            "gcd", "modinv"]


def _extra(rng: np.random.Generator, op: FuzzOp, n: int, bits: int) -> Any:
    """What a batch of ``op`` draws besides its operands: a shift count, counts, an exponent or limbs."""
    special = [0, 1, 63, 64, 65, bits - 1, bits, bits + 1, 2 * bits, 2**40]
    if op.extra == "count":
        return int(rng.choice(special)) if rng.random() < 0.5 else int(rng.integers(0, bits + 65))
    if op.extra == "counts":
        ks = rng.integers(0, bits + 65, size=n, dtype=np.int64)
        pick = rng.random(n) < 0.3
        ks[pick] = rng.choice(special, size=int(pick.sum()))
        return ks
    if op.extra == "exponent":
        return int(rng.integers(0, 41))
    if op.extra == "limb":
        d = operands(rng, n, 64)[:, 0]
        d[rng.random(n) < 0.02] = 0
        return d
    return None


def _allocation(widths: list[int], cases: int, quadratic: bool) -> list[int]:
    """Cases per width: in inverse proportion to the square root of its limbs (to its limbs for quadratic
    operations), at least MIN_CASES."""
    weights = [1.0 / (-(-w // 64)) ** (1 if quadratic else 0.5) for w in widths]
    total = sum(weights)
    return [max(MIN_CASES, round(cases * w / total)) for w in weights]


@dataclass
class Mismatch:
    """One instance where futbig and GMP differ: all it takes to reproduce it."""

    op: str
    bits: int
    index: int
    operands: tuple
    extra: Any
    got: tuple
    want: tuple

    def describe(self, seed: int, backend: str, cases: int, batch_bits: int = BATCH_BITS) -> str:
        hexed = ", ".join(hex(int(v)) for v in self.operands)
        extra = "" if self.extra is None else f", extra {self.extra}"
        return (f"MISMATCH {self.op} at {self.bits} bits, instance {self.index}: operands ({hexed}){extra}\n"
                f"  futbig: {tuple(hex(int(v)) for v in self.got)}\n"
                f"  gmpy2:  {tuple(hex(int(v)) for v in self.want)}\n"
                f"  replay: python -m futbig fuzz --backend {backend} --seed {seed} --ops {self.op} --bits {self.bits} "
                f"--cases {cases} --batch-bits {batch_bits}")


def _column_value(column: np.ndarray, i: int) -> int:
    """Instance ``i`` of an output column as an int."""
    if column.ndim == 1:
        return int(column[i])
    return int.from_bytes(np.ascontiguousarray(column[i], dtype="<u8").tobytes(), "little")


def _differs(got: np.ndarray, want: list) -> np.ndarray:
    """Per instance: does the output column ``got`` differ from GMP's values ``want``?"""
    n = len(want)
    if got.shape[0] != n:
        return np.ones(max(n, got.shape[0]), dtype=bool)
    if got.dtype != np.uint64:  # flags, -1/0/1: small ints
        return got.astype(np.int64) != np.fromiter(map(int, want), dtype=np.int64, count=n)
    limbs = got.reshape(n, -1)
    try:
        return np.any(limbs != _to_limbs(want, limbs.shape[1]), axis=1)
    except TypeError:  # a wanted value does not fit the column (or is negative): compare one by one
        return np.array([_column_value(limbs, i) != w for i, w in enumerate(want)], dtype=bool)


def check_batch(fb: Any, ctx: Any, op: FuzzOp, bits: int, n: int, rng: np.random.Generator) -> list[Mismatch]:
    """Run one batch of ``n`` cases of ``op`` at ``bits`` bits; the instances that differ from GMP."""
    dtype = fb.uint(bits)
    xs, ys = _pairs(rng, n, bits, op.divisor)
    if op.divisor == "nonzero":
        ys = [y or gmpy2.mpz(1) for y in ys]
    extra = _extra(rng, op, n, bits)
    k = -(-bits // 64)
    a = dtype.from_limbs(_to_limbs(xs, k))
    b = dtype.from_limbs(_to_limbs(ys, k)) if op.binary else None
    got = op.run(fb, ctx, bits, a, b, extra)
    want = op.oracle(xs, ys, extra, bits)
    bad = np.zeros(n, dtype=bool)
    for g, w in zip(got, want):
        bad |= _differs(g, w)[:n]
    found = []
    for i in np.flatnonzero(bad)[:3].tolist():
        case_extra = extra[i] if isinstance(extra, np.ndarray) else extra
        found.append(Mismatch(op.name, bits, i, (xs[i], ys[i]) if op.binary else (xs[i],),
                              None if case_extra is None else int(case_extra),
                              tuple(_column_value(g, i) for g in got), tuple(int(w[i]) for w in want)))
    return found


def _seed_of(seed: int, op: str, bits: int, batch: int) -> list[int]:
    return [seed, zlib.crc32(op.encode()), bits, batch]


def fuzz(op_names: list[str], widths: list[int], cases: int, seed: int, batch_bits: int = BATCH_BITS,
         progress: Callable[[str], None] | None = None) -> tuple[dict[str, dict], list[tuple[Mismatch, int]]]:
    """Check ``cases`` cases of each operation over ``widths`` on the current backend.

    Returns per-operation counts ``{op: {"cases", "seconds", "mismatches"}}`` and
    the mismatches found, each with the case count that replays its width.

    >>> counts, bad = fuzz(["add", "xor"], [64, 300], cases=200, seed=7)
    >>> bad, {op: c["cases"] for op, c in counts.items()}
    ([], {'add': 200, 'xor': 200})
    """
    import futbig as fb

    ctx = _backend.context()
    ops = _ops()
    counts: dict[str, dict] = {}
    found: list[tuple[Mismatch, int]] = []
    for name in op_names:
        op = ops[name]
        t0 = said = time.perf_counter()
        done = 0
        op_widths = [w for w in widths if w >= 2] if op.signed else widths
        op_widths = [w for w in op_widths if not op.max_bits or w <= op.max_bits]
        per_width = _allocation(op_widths, cases, op.quadratic)
        for bits, count in zip(op_widths, per_width):
            size = max(1, min(count, batch_bits // (64 * -(-bits // 64))))
            for batch, start in enumerate(range(0, count, size)):
                rng = np.random.default_rng(_seed_of(seed, name, bits, batch))
                bad = check_batch(fb, ctx, op, bits, min(size, count - start), rng)
                for m in bad:
                    m.index += start
                found += [(m, count) for m in bad[:3]]
                done += min(size, count - start)
            if progress and time.perf_counter() - said >= 5:
                said = time.perf_counter()
                progress(f"  {name}: {done} cases, up to {bits} bits, {said - t0:.0f} s")
        counts[name] = {"cases": done, "seconds": time.perf_counter() - t0,
                        "mismatches": sum(1 for m, _ in found if m.op == name)}
    return counts, found


def run(args) -> int:
    """``python -m futbig fuzz`` with parsed arguments (see futbig.cli); the backend is started."""
    backend = _backend.backend()
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**32)
    say = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    print(f"futbig fuzz: backend {backend}, seed {seed}, {args.cases} cases per operation over "
          f"{len(args.bits)} widths, {len(args.ops)} operations", flush=True)
    t0 = time.perf_counter()
    total_cases = 0
    mismatches = 0
    for name in args.ops:
        counts, found = fuzz([name], args.bits, args.cases, seed, args.batch_bits, progress=say)
        c = counts[name]
        total_cases += c["cases"]
        mismatches += c["mismatches"]
        for m, cases in found:
            print(m.describe(seed, backend, cases, args.batch_bits), flush=True)
        print(f"{name:>14}: {c['cases']:>9} cases, {c['mismatches']} mismatches, {c['seconds']:.1f} s", flush=True)
    print(f"futbig fuzz: {total_cases} cases, {mismatches} mismatches, seed {seed}, backend {backend}, "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    return 1 if mismatches else 0
