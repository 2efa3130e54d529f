"""2^18-bit products on cuda with the GPU's NTT thresholds (``cpu`` false: four-step, rows of
2^13 points) and the CPU's (``cpu`` true: one block of 2^14 points), through the library's
entries on a 2^32-bit batch: us per batch (min of 3 after a warm-up), 3 rows checked against
Python's integers. Run on the GPU machine after ``tools/gpu_run.sh`` built the extension:

    PYTHONPATH=/tmp/futbig-site:$PWD/python FUTBIG_BACKEND=cuda python3 tools/ntt_block_log_ab.py
"""
import time

import numpy as np

import futbig._backend as backends
from futbig._kernels import MUL_NTT


def to_int(row: np.ndarray) -> int:
    return int.from_bytes(row.astype("<u8").tobytes(), "little")


def main(bits: int = 262144) -> None:
    ctx = backends.context()
    m, n = bits // 64, (1 << 32) // bits
    rng = np.random.default_rng(bits)
    a = rng.integers(0, 2**64, size=(n, m), dtype=np.uint64)
    b = rng.integers(0, 2**64, size=(n, m), dtype=np.uint64)
    a[0, :] = b[0, :] = np.uint64(2**64 - 1)  # all-ones limbs: the longest carries
    da, db = ctx.to_device(a), ctx.to_device(b)
    for entry in ["mul_lo", "mul_full"]:
        for cpu in [False, True]:
            args = (cpu, MUL_NTT, bits, da, db) if entry == "mul_lo" else (cpu, MUL_NTT, da, db)
            ctx.call(entry, *args)
            ctx.sync()
            times = []
            for _ in range(3):
                start = time.perf_counter()
                out = ctx.call(entry, *args)
                ctx.sync()
                times.append(time.perf_counter() - start)
            host = ctx.to_host(out)
            ok = all(to_int(host[r]) == (to_int(a[r]) * to_int(b[r])) % (1 << bits if entry == "mul_lo" else 1 << 2 * bits)
                     for r in range(3))
            print(f"{entry} bits {bits} cpu thresholds {cpu}: {min(times) * 1e6:.0f} us, "
                  f"checked 3 rows: {'ok' if ok else 'WRONG'}", flush=True)


if __name__ == "__main__":
    main()
