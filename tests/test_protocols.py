"""Protocols: pickling across processes, DLPack, the CUDA array interface, numpy conversion."""
from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import futbig as fb
import futbig._backend as backends
from bigints import mask, random_values
from conftest import TEST_BACKENDS

DTYPES = [fb.uint(1), fb.uint(65), fb.int(2), fb.int(64), fb.int(1000)]


def sample(rng, dtype, n=9):
    values = random_values(rng, n, dtype.bits)
    if dtype.signed:
        values = [v - (1 << dtype.bits) if v >> (dtype.bits - 1) else v for v in values] + [dtype.min, -1]
    return values + [0, dtype.max]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_pickle_round_trip_in_another_process(backend, rng, dtype):
    """Pickled here, unpickled by a fresh interpreter on every backend (its own current one)."""
    values = sample(rng, dtype)
    a = fb.array(values, dtype)
    data = pickle.dumps([a, a[2:5], dtype])
    assert pickle.loads(data)[0].to_ints() == values
    script = (
        "import pickle, sys; import futbig as fb\n"
        "a, part, t = pickle.loads(sys.stdin.buffer.read())\n"
        "print(repr((a.to_ints(), part.to_ints(), str(a.dtype), t == a.dtype, a.device)))\n"
    )
    python = Path(__file__).resolve().parent.parent / "python"
    for name in TEST_BACKENDS:
        env = dict(os.environ, FUTBIG_BACKEND=name,
                   PYTHONPATH=os.pathsep.join(filter(None, [str(python), os.environ.get("PYTHONPATH")])))
        out = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, env=env, check=True)
        got = eval(out.stdout.decode())  # noqa: S307  (our own repr of ints and strings)
        assert got == (values, values[2:5], str(dtype), True, name)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_numpy_conversions(backend, rng, dtype):
    values = sample(rng, dtype)
    a = fb.array(values, dtype)
    host = np.asarray(a)
    assert host.dtype == object and host.tolist() == values
    assert fb.array(host, dtype).to_ints() == values


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_dlpack_on_the_cpu_is_a_read_only_view(backend, rng, dtype):
    if backend == "cuda":
        pytest.skip("the CUDA export is checked by test_cuda_export_with_cupy")
    values = sample(rng, dtype)
    a = fb.array(values, dtype)
    assert a.__dlpack_device__() == (1, 0)
    assert not hasattr(a, "__cuda_array_interface__")
    view = np.from_dlpack(a)
    ctx = backends.context()
    assert view.shape == ctx.shape(a.device_array) and view.dtype == np.uint64
    assert view.ctypes.data == ctx.raw_address(a.device_array)  # zero-copy
    assert not view.flags.writeable
    want = [v & mask(dtype.bits) for v in values]  # the stored bits
    assert [int.from_bytes(row.tobytes(), "little") for row in view] == want
    # The view keeps the array's memory alive.
    del a
    gc.collect()
    fb.array(random_values(rng, 50, dtype.bits), bits=dtype.bits) + 1  # reuse freed memory, if any
    assert [int.from_bytes(row.tobytes(), "little") for row in view] == want
    # A legacy (unversioned) capsule, and one that nobody takes, are freed.
    b = fb.array(values, dtype)
    before = sys.getrefcount(b)

    class Legacy:
        def __dlpack__(self, **kwargs):
            return b.__dlpack__()

        def __dlpack_device__(self):
            return b.__dlpack_device__()

    legacy = np.from_dlpack(Legacy())
    assert [int.from_bytes(row.tobytes(), "little") for row in legacy] == want
    assert sys.getrefcount(b) == before + 1
    del legacy
    gc.collect()
    capsule = b.__dlpack__(max_version=(1, 0))
    assert sys.getrefcount(b) == before + 1
    del capsule
    assert sys.getrefcount(b) == before
    with pytest.raises(BufferError, match="to_limbs"):
        b.__dlpack__(copy=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_from_dlpack(backend, rng, dtype):
    values = sample(rng, dtype)
    a = fb.array(values, dtype)
    if backend != "cuda":
        assert fb.from_dlpack(np.from_dlpack(a), dtype).to_ints() == values
    stored = [v & mask(dtype.bits) for v in values]
    k = -(-dtype.bits // 64)
    limbs = np.array([[(v >> (64 * i)) & mask(64) for i in range(k)] for v in stored], dtype=np.uint64)
    assert fb.from_dlpack(limbs, dtype).to_ints() == values
    assert fb.from_dlpack(limbs).dtype == fb.uint(64 * k)
    assert fb.from_dlpack(limbs.view(np.uint32), dtype).to_ints() == values
    assert fb.from_dlpack(a).to_ints() == values
    if dtype.bits % 64:
        bad = limbs.copy()
        bad[1, k - 1] |= np.uint64(1 << 63)
        with pytest.raises(OverflowError, match="element 1"):
            fb.from_dlpack(bad, dtype)


def test_cuda_export_with_cupy():
    """Zero-copy limbs on the GPU: run on a machine with the cuda backend and CuPy
    (FUTBIG_TEST_BACKENDS=cuda pytest tests/test_protocols.py -k cuda)."""
    if "cuda" not in TEST_BACKENDS:
        pytest.skip("needs the cuda backend and a GPU")
    cupy = pytest.importorskip("cupy")
    fb.set_backend("cuda")
    ctx = backends.context()
    for dtype in (fb.uint(64), fb.uint(1000), fb.int(65), fb.int(4096)):
        values = [dtype.min, dtype.max, 0, 1, dtype.max // 3] + ([-1, -12345] if dtype.signed else [])
        a = fb.array(values, dtype)
        m = ctx.shape(a.device_array)[1]
        address = ctx.raw_address(a.device_array)
        assert a.__dlpack_device__()[0] == 2
        interface = a.__cuda_array_interface__
        assert interface["shape"] == (len(a), m) and interface["data"][0] == address
        for view in (cupy.asarray(a), cupy.from_dlpack(a)):
            assert view.data.ptr == address and view.shape == (len(a), m) and view.dtype == cupy.uint64
            stored = [v & mask(dtype.bits) for v in values]
            host = cupy.asnumpy(view)  # read through CuPy's own context and stream
            assert [int.from_bytes(row.tobytes(), "little") for row in host] == stored
            assert int(view.sum(dtype=cupy.uint64)) == int(host.sum(dtype=np.uint64))  # a CuPy kernel reads it
            copied = fb.from_dlpack(cupy.ascontiguousarray(view), dtype)
            assert copied.to_ints() == values and copied.device == "cuda"
        # An array made by CuPy's kernels, taken after they finish.
        made = cupy.arange(3 * m, dtype=cupy.uint64).reshape(3, m) * cupy.uint64(3)
        want = [int.from_bytes(row.tobytes(), "little") & mask(64 * m) for row in cupy.asnumpy(made)]
        assert fb.from_dlpack(made, fb.uint(64 * m)).to_ints() == want


def test_cuda_code_paths_on_host_memory(backend, rng, monkeypatch):
    """The cuda export and import code, run by a CPU backend on host memory standing in
    for device memory (the CPU backends read raw host pointers as cuda reads device ones)."""
    if backend == "cuda":
        pytest.skip("the real thing is test_cuda_export_with_cupy")
    ctx = backends.context()
    dtype = fb.int(130)
    values = [dtype.min, -1, 0, 1, dtype.max] + [v >> 3 for v in random_values(rng, 5, 127)]
    a = fb.array(values, dtype)
    monkeypatch.setattr(ctx, "name", "cuda")
    interface = a.__cuda_array_interface__
    m = ctx.shape(a.device_array)[1]
    assert interface["shape"] == (len(a), m) and interface["data"] == (ctx.raw_address(a.device_array), True)
    assert interface["typestr"] == "<u8" and interface["stream"] is None

    class Producer:
        def __init__(self, host, **extra):
            self.host = host
            self.__cuda_array_interface__ = dict(
                shape=host.shape, typestr=host.dtype.str, data=(host.ctypes.data, False), version=3,
                strides=None, **extra)

    stored = np.array([[(v & mask(130)) >> (64 * i) & mask(64) for i in range(3)] for v in values], dtype=np.uint64)
    got = fb.from_dlpack(Producer(stored), dtype)
    assert got.to_ints() == values and got.dtype == dtype
    assert fb.from_dlpack(Producer(stored)).to_ints() == [v & mask(130) for v in values]
    wide = np.concatenate([stored, np.zeros((len(values), 2), dtype=np.uint64)], axis=1)
    assert fb.from_dlpack(Producer(wide), dtype).to_ints() == values
    wide[3, 2] |= np.uint64(1 << 2)
    with pytest.raises(OverflowError, match="element 3 has bits set from bit 130"):
        fb.from_dlpack(Producer(wide), dtype)
    with pytest.raises(ValueError, match="C-contiguous"):
        fb.from_dlpack(Producer(stored.astype(np.uint32)), dtype)
    assert fb.from_dlpack(Producer(np.zeros((3, 0), dtype=np.uint64)), dtype).to_ints() == [0, 0, 0]
    monkeypatch.undo()
    with pytest.raises(ValueError, match="cuda backend only"):
        fb.from_dlpack(Producer(stored), dtype)
