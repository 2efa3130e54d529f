"""The main job: time futbig's operations over widths and check them against GMP.

``python -m futbig bench`` runs every operation at widths 2^9..2^18 bits for a
fixed total work per batch (``--total-bits`` bits per operand: small on a CPU,
the papers' 2^32 on a GPU), checks a sample of each result against gmpy2,
times gmpy2 on that sample, prints a table and writes JSON and a PNG plot.

The gmpy2 baseline of each operation is what a gmpy2 user would write for
the same result, in a Python loop on one core: ``x + y`` for ``add`` (futbig
wraps modulo 2^bits, gmpy2 keeps the carry: no reduction is charged to
gmpy2), ``(x * y) & mask`` for ``mul`` (the low half), ``x * y`` for
``mul_full`` (the whole product), ``divmod(x, y)`` for the divisions.
``powmod`` raises to exponents as wide as the modulus; ``powmod_e512`` to
exponents of 512 bits at every width, the shape of CGBN's ``powm_odd``
benchmark (``cgbn_exponent``).
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import gmpy2
import numpy as np

from . import _backend, _kernels
from ._convert import ints_to_limbs

DEFAULT_BITS = [2**k for k in range(9, 19)]
DEFAULT_OPS = ["add", "add6", "mul", "mul_full", "poly", "divmod", "divmod_mixed"]
#: ``--huge``: single integers (one instance per row) at these widths, these operations.
HUGE_BITS = [2**k for k in range(20, 28)]
HUGE_OPS = ["mul_full", "mul", "sqr", "divmod"]
#: The one-limb scalar of ``mul_scalar`` and the ``div_scalar`` rows: odd, every limb bit in play.
SCALAR = 0x9E3779B97F4A7C15


def modulus(bits: int) -> int:
    """The shared odd modulus of the modular rows: ``2**bits - 159``, as wide as the operands."""
    return (1 << bits) - 159
GPU_TOTAL_BITS = 2**32
CPU_TOTAL_BITS = 2**23


@dataclass
class Row:
    """One measured (operation, width) pair."""

    op: str
    bits: int
    instances: int
    us_per_batch: float
    gb_per_s: float
    instances_per_s: float
    gmpy2_instances_per_s: float
    speedup_vs_gmpy2: float
    checked: int
    baseline: str = ""  # the gmpy2 expression timed, per instance


@dataclass
class Op:
    """How to run, check and count one benchmarked operation."""

    name: str
    run: Callable  # (a, b) -> result arrays (device resident)
    oracle: Callable  # (x, y, bits) -> expected value(s) as ints
    pick: Callable  # (result, indices) -> the result at those instances (on the host as ints)
    operands: int  # number of [n][m] arrays read + written, for GB/s
    baseline: str  # what a gmpy2 user writes for the same result (x, y: mpz; mask = 2**bits - 1)
    divisor: str = ""  # "half": b of about half the width, odd; "mixed": b of every length


#: Bits of the exponents of CGBN's `powm_odd` benchmark (its perf_tests' xmp_test_powm.cu masks
#: every exponent to 512 bits and runs its window loop over all 512, at every width).
CGBN_EXPONENT_BITS = 512


def cgbn_exponent(y: int, bits: int) -> int:
    """The exponent of ``powmod_e512`` made from the ``bits``-wide operand ``y``: its copies side by
    side, cut to ``CGBN_EXPONENT_BITS`` bits, so that every width does CGBN's number of squarings.

    >>> cgbn_exponent(2**600 + 5, 1024), cgbn_exponent(3, 256) == 3 * 2**256 + 3
    (5, True)
    """
    e = 0
    for k in range(-(-CGBN_EXPONENT_BITS // bits)):
        e |= y << (k * bits)
    return e & ((1 << CGBN_EXPONENT_BITS) - 1)


def _ops() -> dict[str, Op]:
    import futbig as fb

    ctx = _backend.context
    mask = lambda bits: (1 << bits) - 1

    def fused(kernel):  # _kernels.add6 or _kernels.poly
        return lambda a, b: fb.uint(a.bits).from_device(kernel(ctx(), a.bits, a.device_array, b.device_array), len(a))

    def division(method):  # one algorithm of divmod (futbig._kernels.divmod_by)
        def run(a, b):
            q, r, _ = _kernels.divmod_by(ctx(), method, a.device_array, b.device_array)
            dtype = fb.uint(a.bits)
            return dtype.from_device(q, len(a)), dtype.from_device(r, len(a))
        return run

    def multiplication(kernel, method):  # one algorithm of the multiplication ladder (_kernels.MUL_*)
        def run(a, b):
            return fb.uint(a.bits).from_device(kernel(ctx(), a.bits, a.device_array, b.device_array, method), len(a))
        return run

    def full_product(method):
        def run(a, b):
            return fb.uint(2 * a.bits).from_device(_kernels.mul_full(ctx(), a.device_array, b.device_array, method), len(a))
        return run

    def square(method):
        def run(a, b):
            return fb.uint(a.bits).from_device(_kernels.sqr_lo(ctx(), a.bits, a.device_array, method), len(a))
        return run

    def scalar_division(method):  # div_limb by SCALAR with its method forced
        def run(a, b):
            q, r = _kernels.divmod_limb(ctx(), a.device_array, SCALAR, method)
            dtype = fb.uint(a.bits)
            return dtype.from_device(q, len(a)), dtype.from_device(r, len(a))
        return run

    def modular_route(kernel, method):  # one route of mod_mul or powmod (futbig._kernels.MOD_*), odd `modulus(bits)`
        def run(a, b):
            dtype = fb.uint(a.bits)
            mods = ctx().to_device(ints_to_limbs([modulus(a.bits)], a.bits, dtype.storage_limbs))
            return dtype.from_device(kernel(ctx(), a.device_array, b.device_array, mods, method)[0], len(a))
        return run

    def pick(result, idx):
        return result[idx].to_ints()

    def pick_pair(result, idx):
        return list(zip(result[0][idx].to_ints(), result[1][idx].to_ints()))

    def modular(f):  # one modulus for the batch (`modulus(bits)`), as fb.uint(bits)
        return lambda a, b: f(a, b, modulus(a.bits))

    def powmod_e512(a, b):  # CGBN's exponents: `cgbn_exponent` of each y, built on the device
        y = b.astype(fb.uint(CGBN_EXPONENT_BITS))
        e = y
        for k in range(1, -(-CGBN_EXPONENT_BITS // a.bits)):
            e = e | (y << (k * a.bits))
        return fb.powmod(a, e, modulus(a.bits))

    def inverse(x, p):
        try:
            return int(gmpy2.invert(x, p))
        except ZeroDivisionError:
            return 0

    product = lambda x, y, bits: x * y
    quotient = lambda x, y, bits: (x // y, x % y)
    return {
        "add": Op("add", lambda a, b: a + b, lambda x, y, bits: (x + y) & mask(bits), pick, 3, "x + y"),
        "add6": Op("add6", fused(_kernels.add6), lambda x, y, bits: (6 * x + 10 * y) & mask(bits), pick, 3, "6*x + 10*y"),
        "mul": Op("mul", lambda a, b: a * b, lambda x, y, bits: (x * y) & mask(bits), pick, 3, "(x * y) & mask"),
        "mul_full": Op("mul_full", fb.mul_full, product, pick, 4, "x * y"),
        "poly": Op("poly", fused(_kernels.poly), lambda x, y, bits: ((x * x + y) * (y * y + y) + x * y) & mask(bits), pick, 3,
                   "((x*x + y) * (y*y + y) + x*y) & mask"),
        # The algorithms of the multiplication ladder, forced (futbig._kernels.MUL_*).
        "mul_classical": Op("mul_classical", multiplication(_kernels.mul_lo, _kernels.MUL_CLASSICAL),
                            lambda x, y, bits: (x * y) & mask(bits), pick, 3, "(x * y) & mask"),
        "mul_ntt": Op("mul_ntt", multiplication(_kernels.mul_lo, _kernels.MUL_NTT),
                      lambda x, y, bits: (x * y) & mask(bits), pick, 3, "(x * y) & mask"),
        "mul_full_classical": Op("mul_full_classical", full_product(_kernels.MUL_CLASSICAL), product, pick, 4, "x * y"),
        "mul_full_ntt": Op("mul_full_ntt", full_product(_kernels.MUL_NTT), product, pick, 4, "x * y"),
        "sqr": Op("sqr", square(_kernels.MUL_AUTO), lambda x, y, bits: (x * x) & mask(bits), pick, 2, "(x * x) & mask"),
        "sqr_classical": Op("sqr_classical", square(_kernels.MUL_CLASSICAL), lambda x, y, bits: (x * x) & mask(bits),
                            pick, 2, "(x * x) & mask"),
        "sqr_ntt": Op("sqr_ntt", square(_kernels.MUL_NTT), lambda x, y, bits: (x * x) & mask(bits), pick, 2,
                      "(x * x) & mask"),
        "divmod": Op("divmod", lambda a, b: divmod(a, b), quotient, pick_pair, 4, "divmod(x, y)", divisor="half"),
        "divmod_mixed": Op("divmod_mixed", lambda a, b: divmod(a, b), quotient, pick_pair, 4, "divmod(x, y)",
                           divisor="mixed"),
        # One-limb scalars: the API's path (mul_limb, div_limb) and a batch of copies of the scalar.
        "mul_scalar": Op("mul_scalar", lambda a, b: a * SCALAR, lambda x, y, bits: (x * SCALAR) & mask(bits), pick, 2,
                         "(x * k) & mask"),
        "div_scalar": Op("div_scalar", lambda a, b: divmod(a, SCALAR), lambda x, y, bits: divmod(x, SCALAR), pick_pair, 3,
                         "divmod(x, k)"),
        "div_scalar_batch": Op("div_scalar_batch", lambda a, b: divmod(a, fb.full(len(a), SCALAR, a.dtype)),
                               lambda x, y, bits: divmod(x, SCALAR), pick_pair, 4, "divmod(x, k)"),
        "div_scalar_loop": Op("div_scalar_loop", scalar_division(_kernels.DIV_LIMB_LOOP),
                              lambda x, y, bits: divmod(x, SCALAR), pick_pair, 3, "divmod(x, k)"),
        "div_scalar_scan": Op("div_scalar_scan", scalar_division(_kernels.DIV_LIMB_SCAN),
                              lambda x, y, bits: divmod(x, SCALAR), pick_pair, 3, "divmod(x, k)"),
        # The two division algorithms that `divmod` chooses between by width.
        "divmod_thread": Op("divmod_thread", division(_kernels.DIV_LONG), quotient, pick_pair, 4, "divmod(x, y)", divisor="half"),
        "divmod_newton": Op("divmod_newton", division(_kernels.DIV_NEWTON), quotient, pick_pair, 4, "divmod(x, y)", divisor="half"),
        # Modular arithmetic with one odd modulus as wide as the operands; powmod with per-instance
        # exponents of that width.
        "mod_mul": Op("mod_mul", modular(fb.mod_mul), lambda x, y, bits: x * y % modulus(bits), pick, 3,
                      "x * y % p"),
        "powmod": Op("powmod", modular(fb.powmod), lambda x, y, bits: pow(x, y, modulus(bits)), pick, 3,
                     "gmpy2.powmod(x, y, p)"),
        # CGBN's perf_tests shape (`cgbn_exponent`): exponents of 512 bits at every width.
        "powmod_e512": Op("powmod_e512", powmod_e512, lambda x, y, bits: pow(x, cgbn_exponent(y, bits), modulus(bits)),
                          pick, 3, "gmpy2.powmod(x, cgbn_exponent(y), p)"),
        # The two routes of the Montgomery operations, forced: one instance per thread, batch-level products.
        "mod_mul_thread": Op("mod_mul_thread", modular_route(_kernels.mod_mul, _kernels.MOD_THREAD),
                             lambda x, y, bits: x * y % modulus(bits), pick, 3, "x * y % p"),
        "mod_mul_batch": Op("mod_mul_batch", modular_route(_kernels.mod_mul, _kernels.MOD_BATCH),
                            lambda x, y, bits: x * y % modulus(bits), pick, 3, "x * y % p"),
        "powmod_thread": Op("powmod_thread", modular_route(_kernels.powmod, _kernels.MOD_THREAD),
                            lambda x, y, bits: pow(x, y, modulus(bits)), pick, 3, "gmpy2.powmod(x, y, p)"),
        "powmod_batch": Op("powmod_batch", modular_route(_kernels.powmod, _kernels.MOD_BATCH),
                           lambda x, y, bits: pow(x, y, modulus(bits)), pick, 3, "gmpy2.powmod(x, y, p)"),
        "gcd": Op("gcd", fb.gcd, lambda x, y, bits: int(gmpy2.gcd(x, y)), pick, 3, "gmpy2.gcd(x, y)"),
        "modinv": Op("modinv", modular(lambda a, b, p: fb.modinv(a, p, errors="zero")),
                     lambda x, y, bits: inverse(x, modulus(bits)), pick, 2, "gmpy2.invert(x, p)"),
    }


#: Every operation ``bench`` knows.
OP_NAMES = ["add", "add6", "mul", "mul_full", "poly", "divmod", "divmod_mixed", "divmod_thread",
            "divmod_newton", "mul_classical", "mul_ntt", "mul_full_classical", "mul_full_ntt", "sqr",
            "sqr_classical", "sqr_ntt", "mul_scalar", "div_scalar", "div_scalar_batch", "div_scalar_loop",
            "div_scalar_scan", "mod_mul", "powmod", "powmod_e512", "gcd", "modinv", "mod_mul_thread", "mod_mul_batch", "powmod_thread",
            "powmod_batch"]


def _gmpy2_rate(op: str, xs: list, ys: list, bits: int) -> float:
    """Instances per second of GMP through gmpy2 on one core: a Python loop over the
    expression a gmpy2 user writes for the same result (``Op.baseline``)."""
    x = [gmpy2.mpz(v) for v in xs]
    y = [gmpy2.mpz(v) for v in ys]
    mask = (gmpy2.mpz(1) << bits) - 1
    loops = {
        "add": lambda: [p + q for p, q in zip(x, y)],
        "add6": lambda: [6 * p + 10 * q for p, q in zip(x, y)],
        "mul": lambda: [(p * q) & mask for p, q in zip(x, y)],
        "mul_full": lambda: [p * q for p, q in zip(x, y)],
        "poly": lambda: [((p * p + q) * (q * q + q) + p * q) & mask for p, q in zip(x, y)],
        "divmod": lambda: [divmod(p, q) for p, q in zip(x, y)],
        "mul_scalar": lambda: [(p * SCALAR) & mask for p in x],
        "div_scalar": lambda: [divmod(p, SCALAR) for p in x],
    }
    p = gmpy2.mpz(modulus(bits))

    def invert_all():
        out = []
        for q in x:
            try:
                out.append(gmpy2.invert(q, p))
            except ZeroDivisionError:
                out.append(0)
        return out

    loops["mod_mul"] = lambda: [q * r % p for q, r in zip(x, y)]
    loops["powmod"] = lambda: [gmpy2.powmod(q, r, p) for q, r in zip(x, y)]
    loops["powmod_e512"] = lambda: [gmpy2.powmod(q, cgbn_exponent(r, bits), p) for q, r in zip(x, y)]
    loops["gcd"] = lambda: [gmpy2.gcd(q, r) for q, r in zip(x, y)]
    loops["modinv"] = invert_all
    loops["mod_mul_thread"] = loops["mod_mul_batch"] = loops["mod_mul"]
    loops["powmod_thread"] = loops["powmod_batch"] = loops["powmod"]
    loops["div_scalar_batch"] = loops["div_scalar_loop"] = loops["div_scalar_scan"] = loops["div_scalar"]
    loops["divmod_mixed"] = loops["divmod_thread"] = loops["divmod_newton"] = loops["divmod"]
    loops["mul_classical"] = loops["mul_ntt"] = loops["mul"]
    loops["mul_full_classical"] = loops["mul_full_ntt"] = loops["mul_full"]
    loops["sqr"] = loops["sqr_classical"] = loops["sqr_ntt"] = lambda: [(p * p) & mask for p in x]
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        loops[op]()
        best = min(best, time.perf_counter() - t0)
    return len(x) / best


def _operands(rng: np.random.Generator, n: int, bits: int, divisor: str):
    import futbig as fb

    limbs = -(-bits // 64)
    a = rng.integers(0, 2**64, size=(n, limbs), dtype=np.uint64, endpoint=False)
    b = rng.integers(0, 2**64, size=(n, limbs), dtype=np.uint64, endpoint=False)
    if bits % 64:
        a[:, -1] &= np.uint64((1 << (bits % 64)) - 1)
        b[:, -1] &= np.uint64((1 << (bits % 64)) - 1)
    if divisor == "half":  # about half the width, odd, never zero
        b[:, max(1, limbs // 2):] = 0
        b[:, 0] |= np.uint64(1)
    elif divisor == "mixed":  # every length from one limb to the full width, in one batch
        lengths = rng.integers(1, limbs + 1, size=n)
        b[np.arange(limbs)[None, :] >= lengths[:, None]] = 0
        b[:, 0] |= np.uint64(1)
    dtype = fb.uint(bits)
    return dtype.from_limbs(a), dtype.from_limbs(b)


def measure(op: Op, bits: int, total_bits: int, repeat: int, check: int, rng: np.random.Generator) -> Row:
    """Time ``op`` on one batch of total_bits/bits instances; check a sample against GMP."""
    ctx = _backend.context()
    n = max(1, total_bits // bits)
    a, b = _operands(rng, n, bits, op.divisor)
    result = op.run(a, b)  # warm-up: kernels compiled and memory allocated
    ctx.sync()
    # Check instances spread over the whole batch: GPU errors can hide far from instance 0.
    k = min(check, n)
    sample = np.unique(np.concatenate([[0, n - 1], rng.choice(n, size=k, replace=False)]))[:k]
    k = len(sample)
    xs, ys = a[sample].to_ints(), b[sample].to_ints()
    got = op.pick(result, sample)
    # The oracle on mpz: Python's own product of 2^27-bit ints takes minutes.
    want = [op.oracle(gmpy2.mpz(x), gmpy2.mpz(y), bits) for x, y in zip(xs, ys)]
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if bad:
        raise AssertionError(f"{op.name} at {bits} bits differs from GMP at instance {bad[0]} ({len(bad)} of {k} wrong)")
    del result
    ctx.kernel_times()  # profiling: only the timed runs count
    times = []
    for _ in range(repeat):
        ctx.sync()
        t0 = time.perf_counter()
        result = op.run(a, b)
        ctx.sync()
        times.append(time.perf_counter() - t0)
        del result
    t = min(times)
    gmp_rate = _gmpy2_rate(op.name, xs[: min(k, 2000)], ys[: min(k, 2000)], bits)
    limbs = -(-bits // 64)
    return Row(op.name, bits, n, t * 1e6, op.operands * n * limbs * 8 / t / 1e9, n / t, gmp_rate, n / t / gmp_rate, k,
               op.baseline)


def _print_kernel_times(kernels: list[tuple[str, int, float]], repeat: int, top: int = 12) -> None:
    """The longest-running kernels of one row, per timed run."""
    total = sum(t for _, _, t in kernels) or 1.0
    print(f"    {'kernel':<60} {'launches':>8} {'us/run':>10} {'share':>6}", file=sys.stderr)
    for name, launches, t in kernels[:top]:
        print(f"    {name[:60]:<60} {launches // repeat:>8} {t / repeat:>10.1f} {100 * t / total:>5.1f}%", file=sys.stderr)
    print(f"    {'all ' + str(len(kernels)) + ' kernels':<60} {'':>8} {total / repeat:>10.1f}", file=sys.stderr, flush=True)


def _device_name(backend: str) -> str:
    """The GPU's name under cuda (from libcuda), else the CPU model."""
    if backend == "cuda":
        import ctypes

        libcuda = ctypes.CDLL("libcuda.so.1")
        dev, name = ctypes.c_int(), ctypes.create_string_buffer(256)
        if libcuda.cuInit(0) == 0 and libcuda.cuDeviceGet(ctypes.byref(dev), 0) == 0 \
                and libcuda.cuDeviceGetName(name, 256, dev) == 0:
            return name.value.decode()
        return "unknown CUDA device"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()} ({os.cpu_count()} threads)"
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _print_table(rows: list[Row], out=None) -> None:
    out = out or sys.stdout
    head = (f"{'op':>12} {'bits':>7} {'instances':>10} {'us/batch':>11} {'GB/s':>8} {'inst/s':>10} "
            f"{'gmpy2 inst/s':>13} {'speed-up':>9}  gmpy2 baseline")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        print(f"{r.op:>12} {r.bits:>7} {r.instances:>10} {r.us_per_batch:>11.1f} {r.gb_per_s:>8.1f} "
              f"{r.instances_per_s:>10.3g} {r.gmpy2_instances_per_s:>13.3g} {r.speedup_vs_gmpy2:>8.2f}x  {r.baseline}",
              file=out)


def _plot(rows: list[Row], path: Path, title: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot written (pip install futbig[plot])", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for op in dict.fromkeys(r.op for r in rows):
        pts = [(r.bits, r.us_per_batch) for r in rows if r.op == op]
        ax.plot(*zip(*pts), marker="o", label=op)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bits per integer")
    ax.set_ylabel("microseconds per batch")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def run(args) -> int:
    """``python -m futbig bench`` with parsed arguments (see futbig.cli); the backend is started."""
    backend = _backend.backend()
    huge = getattr(args, "huge", False)
    # --huge: a total of one bit per batch makes every row one instance (n = max(1, total // bits)).
    total = args.total_bits or (1 if huge else GPU_TOTAL_BITS if backend == "cuda" else CPU_TOTAL_BITS)
    ops = _ops()
    names = args.ops or (HUGE_OPS if huge else DEFAULT_OPS)
    widths = args.bits or (HUGE_BITS if huge else DEFAULT_BITS)
    plan = [(ops[o], b) for o in names for b in widths]
    rng = np.random.default_rng(args.seed)
    what = "one instance per row" if total == 1 else f"{total} bits per operand per batch"
    print(f"futbig bench: backend {backend}, {what}, {len(plan)} rows", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"backend": backend, "device": _device_name(backend), "total_bits": total, "repeat": args.repeat,
            "host": platform.node(), "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    rows = []
    for i, (op, bits) in enumerate(plan, 1):
        t0 = time.perf_counter()
        print(f"[{i}/{len(plan)}] {op.name} at {bits} bits ...", end=" ", file=sys.stderr, flush=True)
        rows.append(measure(op, bits, total, args.repeat, args.check, rng))
        print(f"{rows[-1].us_per_batch:.1f} us, checked {rows[-1].checked} vs GMP ({time.perf_counter() - t0:.1f} s)",
              file=sys.stderr, flush=True)
        if args.profile:
            _print_kernel_times(_backend.context().kernel_times(), args.repeat)
        # Written after every row, so a long run that is cut short keeps what it measured.
        (out / "results.json").write_text(json.dumps({"meta": meta, "rows": [asdict(r) for r in rows]}, indent=1))
    _print_table(rows)
    per = "one instance per row" if total == 1 else f"2^{total.bit_length() - 1} bits per operand"
    plotted = _plot(rows, out / "results.png", f"futbig on {backend}, {per}")
    print(f"wrote {out / 'results.json'}" + (f" and {out / 'results.png'}" if plotted else ""))
    return 0
