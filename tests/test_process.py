"""Whole-process behaviour, each in a fresh interpreter: running out of memory, and exiting cleanly.

Out of memory on a CPU backend is provoked under an address-space limit
(RLIMIT_AS) a little above what the child already uses, so the test never
takes the machine's memory; on cuda, by a batch sized from the device's total
memory. A clean exit is checked with glibc's allocator set to poison freed
memory at once (no tcache, MALLOC_PERTURB_): a context freed before arrays
that still need it then shows every time (a hang or an abort), not 1 run in 8.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import TEST_BACKENDS

PYTHON_DIR = str(Path(__file__).resolve().parents[1] / "python")
# Freed memory is recycled at once and overwritten: use after free shows on every run.
POISON = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0", "MALLOC_PERTURB_": "1"}


def run_python(code: str, *args: str, timeout: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` with ``args`` in a fresh interpreter, this checkout's futbig first on the path."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PYTHON_DIR, os.environ.get("PYTHONPATH")])))
    environ.update(env or {})
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                              timeout=timeout, env=environ)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child did not exit within {timeout} s; its output so far:\n{e.stdout}\n{e.stderr}")


# --------------------------------------------------------------------------
# Out of memory

OUT_OF_MEMORY = """
    import re, resource, sys
    import futbig as fb
    from futbig import _backend

    backend, n, bits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fb.set_backend(backend)
    value = 2**(bits - 1) + 12345
    warm = fb.array(range(4096), bits=bits)
    (warm * warm + warm).to_ints()  # warm-up: every worker thread has run and made its malloc arena
    if backend != "cuda":
        # Room for 2.5 batches on top of what the process holds now: a and b = a + a fit,
        # c = b * b does not (nor, on the second attempt, a second b while the first is held).
        held = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read())[1]) * 1024
        limit = held + n * bits // 8 * 5 // 2
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    a = fb.full(n, value, bits=bits)
    for attempt in range(2):  # the second time proves nothing was left half-done
        try:
            b = a + a
            c = b * b
            print("no MemoryError", len(c))
        except MemoryError as e:
            print("MemoryError:", e)
    print("intact:", a[0] == value and a[n // 2] == value and a[n - 1] == value and len(a) == n)
    x = fb.array([3, 2**bits - 1], bits=bits)
    print("later:", (x * x + 1).to_ints() == [10, 2])
"""


def _unexpected(stderr: str) -> str:
    """``stderr`` without the one line Futhark 0.25.27 prints whenever a CUDA context starts on
    a GPU newer than it knows (docs/gpu.md), and futbig's notice before a cuda build's first
    NVRTC compile (a warning and its source line); anything else a clean exit must not print."""
    known = "Warning: device compute capability is"
    kept, after_notice = [], False
    for line in stderr.splitlines(keepends=True):
        skip = line.startswith(known) or "RuntimeWarning: futbig: first start of this cuda build" in line
        if not skip and not (after_notice and line.startswith(" ")):
            kept.append(line)
        after_notice = "first start of this cuda build" in line
    return "".join(kept).strip()


def _cuda_total_memory() -> int:
    import ctypes

    libcuda = ctypes.CDLL("libcuda.so.1")
    dev, total = ctypes.c_int(), ctypes.c_size_t()
    assert libcuda.cuInit(0) == 0 and libcuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert libcuda.cuDeviceTotalMem_v2(ctypes.byref(total), dev) == 0
    return total.value


@pytest.mark.parametrize("backend", TEST_BACKENDS)
def test_out_of_memory_is_a_memory_error_and_the_process_goes_on(backend):
    bits = 4096
    if backend == "cuda":
        n = int(_cuda_total_memory() * 0.6) // (bits // 8)  # one batch fits, two do not
    else:
        n = 2**18  # 128 MiB per batch, under a limit of 2.5 batches above what the child holds
    done = run_python(OUT_OF_MEMORY, backend, str(n), str(bits), timeout=300)
    assert done.returncode == 0, f"exit code {done.returncode}\n{done.stdout}\n{done.stderr}"
    lines = done.stdout.splitlines()
    errors = [line for line in lines if line.startswith("MemoryError:")]
    assert len(errors) == 2, done.stdout
    for line in errors:  # names the backend, the size asked for and what to do
        assert f"backend {backend!r} ran out of memory in entry point" in line, line
        assert re.search(r"could not allocate [1-9]\d* bytes \(\d+\.\d [KMG]iB\) in (host|device) memory", line), line
        assert "Free arrays you no longer need" in line, line
    assert "intact: True" in lines and "later: True" in lines, done.stdout


HUGE_OUT_OF_MEMORY = """
    import re, resource, sys
    import futbig as fb

    backend, bits = sys.argv[1], int(sys.argv[2])
    fb.set_backend(backend)
    warm = fb.array(range(4096), bits=4096)
    (warm * warm + warm).to_ints()  # warm-up, as above
    value = 2**bits - 1
    a = fb.array([value], bits=bits)
    # Room for a few copies of the operand, not for the NTT's tables and transforms.
    held = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read())[1]) * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (held + 4 * bits // 8, hard))
    try:
        print("no MemoryError", len(fb.mul_full(a, a)))
    except MemoryError as e:
        print("MemoryError:", e)
    # The backend keeps what it had got in its cache: the checks get room again.
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    print("intact:", a.to_ints() == [value])
    x = fb.array([3, 2**64 - 1], bits=64)
    print("later:", (x * x + 1).to_ints() == [10, 2])
"""


@pytest.mark.parametrize("backend", [b for b in TEST_BACKENDS if b != "cuda"])
def test_a_huge_product_out_of_memory_names_its_size(backend):
    """One 2^22-bit product under an address-space limit (CPU backends; on the GPU the
    batch test above covers running out)."""
    done = run_python(HUGE_OUT_OF_MEMORY, backend, str(2**22), timeout=300)
    assert done.returncode == 0, f"exit code {done.returncode}\n{done.stdout}\n{done.stderr}"
    lines = done.stdout.splitlines()
    errors = [line for line in lines if line.startswith("MemoryError:")]
    assert len(errors) == 1, done.stdout
    assert f"backend {backend!r} ran out of memory in entry point" in errors[0], errors[0]
    assert re.search(r"could not allocate [1-9]\d* bytes \(\d+\.\d [KMG]iB\) in host memory", errors[0]), errors[0]
    assert "intact: True" in lines and "later: True" in lines, done.stdout


# --------------------------------------------------------------------------
# Clean exit

# Arrays captured by closures, default arguments, containers and classes at
# module level, on every usable backend, with the context itself kept in a
# global: the interpreter finalizes them in an order of its own at exit.
KEEPS_ARRAYS = """
    import futbig as fb
    from futbig import _backend

    ctx = _backend.context()
    kept = {}
    for name in BACKENDS:
        fb.set_backend(name)
        def make(n, name=name):
            x = fb.array(list(range(n)), bits=256)
            y = x * x
            return lambda: (x + y, ctx, name)
        kept[name] = [make(n) for n in range(1, 12)]
        kept[name + " default"] = lambda a=fb.array([5], bits=64): a + 1
        class Holder:
            value = fb.array([7, 2**4000], bits=4096)
        kept[name + " class"] = Holder
    print(sum(len(f()[0]) for fs in kept.values() if isinstance(fs, list) for f in fs))
"""

# Many error paths (bad inputs, backends that are not built or do not
# exist, zero divisors, overflow), then more work.
ERROR_PATHS = """
    import numpy as np
    import futbig as fb

    results = []
    for name in BACKENDS + BACKENDS[:1]:
        fb.set_backend(name)
        a = fb.array([1, 2, 3], bits=256)
        for bad in ([-1], [2**300], [1.5], ["x"], np.zeros((2, 2), np.float64)):
            try:
                fb.array(bad, bits=256)
            except (TypeError, ValueError, OverflowError):
                pass
        for other in ("bogus", "cuda", "c"):
            try:
                fb.set_backend(other)
            except fb.BackendError:
                pass
        fb.set_backend(name)
        try:
            a // fb.array([1, 0, 1], bits=256)
        except ZeroDivisionError:
            pass
        try:
            fb.add(a, 2**256 - 1, overflow="raise")
        except OverflowError:
            pass
        results.append([a, a * a, divmod(a, 7), lambda: a + 1, fb.array(range(500), bits=4096) ** 3])
    print(len(results))
"""


def _clean_exit_script(body: str) -> str:
    return f"BACKENDS = {TEST_BACKENDS!r}\n" + textwrap.dedent(body)


@pytest.mark.parametrize("body", [KEEPS_ARRAYS, ERROR_PATHS], ids=["arrays kept at exit", "error paths"])
def test_exit_is_clean_whatever_the_order_of_finalization(body):
    done = run_python(_clean_exit_script(body), timeout=60, env=POISON)
    assert done.returncode == 0, f"exit code {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert _unexpected(done.stderr) == "", done.stderr  # no "Unreferencing block ..." read from a freed context


def test_many_runs_all_exit(tmp_path):
    """The error-path script, 30 times: each run must exit (a hang is the bug), cleanly.

    One interpreter imports numpy and futbig once and forks a child per run;
    each child starts its contexts, runs the script and exits through the
    interpreter's normal finalization, so a run costs a context start, not an
    interpreter start.
    """
    runs = 30
    launcher = f"""
        import os, runpy, signal, sys, time
        import numpy, futbig
        script, runs = sys.argv[1], int(sys.argv[2])
        failures = []
        for i in range(runs):
            pid = os.fork()
            if pid == 0:
                try:
                    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
                    kept = runpy.run_path(script, run_name="__main__")  # its globals live until exit
                except BaseException:
                    os._exit(3)
                sys.exit(0)  # the normal interpreter finalization: where the hang was
            deadline = time.monotonic() + 15
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    status = "hung"
                    break
                time.sleep(0.005)
            if status != 0:
                failures.append((i, status))
                break  # one is enough: a hung run costs its whole deadline
        print("failures:", failures)
    """
    script = tmp_path / "error_paths.py"
    script.write_text(_clean_exit_script(ERROR_PATHS))
    done = run_python(launcher, str(script), str(runs), timeout=300, env=POISON)
    assert done.returncode == 0, f"exit code {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "failures: []" in done.stdout, done.stdout + done.stderr
    assert _unexpected(done.stderr) == "", done.stderr
