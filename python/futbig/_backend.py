"""Loading the compiled Futhark backends and the per-process context.

Three backends can be built (see ``build.py``): ``cuda``, ``multicore`` and
``c``. Each is a cffi extension ``futbig._ext._futbig_<name>`` wrapped by
futhark-ffi. The context is created lazily, on first use, once per process:
``cuda`` when it is built and a CUDA device answers, else ``multicore``, else
``c``. The environment variable ``FUTBIG_BACKEND`` or :func:`set_backend`
chooses one explicitly.

Device arrays returned by :meth:`Context.call` stay where the backend keeps
them (GPU memory for ``cuda``) until :meth:`Context.to_host` copies them.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib
import importlib.util
import json
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["BACKENDS", "BackendError", "Context", "available_backends", "backend", "context", "set_backend"]

#: All backends futbig knows, in order of preference.
BACKENDS: tuple[str, ...] = ("cuda", "multicore", "c")

_lock = threading.Lock()
_contexts: dict[str, Context] = {}  # started backends, kept for the process's life
_current: str | None = None


class BackendError(RuntimeError):
    """A backend is not built, or could not be started."""


def _module_name(name: str) -> str:
    return f"futbig._ext._futbig_{name}"


def _is_built(name: str) -> bool:
    try:
        return importlib.util.find_spec(_module_name(name)) is not None
    except ModuleNotFoundError:
        return False


def _cuda_device_answers() -> bool:
    """True when libcuda loads and reports at least one device (cheap, no kernels compiled)."""
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return libcuda.cuInit(0) == 0 and libcuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def available_backends() -> list[str]:
    """The backends built into this installation, best first.

    >>> set(available_backends()) <= {"cuda", "multicore", "c"}
    True
    """
    return [name for name in BACKENDS if _is_built(name)]


def _default_backend() -> str:
    requested = os.environ.get("FUTBIG_BACKEND")
    if requested:
        return requested
    built = available_backends()
    if not built:
        raise BackendError("no futbig backend is built; run `python3 build.py build` in the source tree")
    if built[0] == "cuda" and not _cuda_device_answers():
        built = built[1:]
    if not built:
        raise BackendError("only the cuda backend is built and no CUDA device answers; build the CPU backends")
    return built[0]


def _cache_file(name: str, module: Any) -> str | None:
    """Where NVRTC's compiled kernels are cached, keyed by the extension file's hash."""
    if name != "cuda":
        return None
    so = Path(module.__file__)
    digest = hashlib.sha256(so.read_bytes()).hexdigest()[:16]
    cache_dir = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "futbig"
    cache_dir.mkdir(parents=True, exist_ok=True)
    return str(cache_dir / f"cuda-{digest}.kernels")


class Context:
    """One started backend: its futhark-ffi wrapper and helpers to move data.

    Entry points are called by name with :meth:`call`; numpy arguments are
    copied to the device, device arrays are passed as they are, and results
    come back as device arrays (or Python scalars).
    """

    def __init__(self, name: str) -> None:
        if name not in BACKENDS:
            raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
        if not _is_built(name):
            raise BackendError(
                f"backend {name!r} is not built (built: {', '.join(available_backends()) or 'none'}); "
                "run `python3 build.py build`, or on the GPU machine `python3 build.py gpu-ext`"
            )
        if name == "cuda" and not _cuda_device_answers():
            raise BackendError("backend 'cuda' is built but no CUDA device answers")
        from futhark_ffi import Futhark

        module = importlib.import_module(_module_name(name))
        self.name = name
        # FUTBIG_PROFILE=1 makes the backend time every kernel (see kernel_times).
        self.profiling = os.environ.get("FUTBIG_PROFILE", "") not in ("", "0")
        try:
            self.fut = Futhark(module, profiling=self.profiling, cache_file_path=_cache_file(name, module))
        except ValueError as e:
            raise BackendError(f"backend {name!r} failed to start: {e}") from e
        self._ffi = self.fut.ffi
        self._entries = {e: getattr(self.fut, e) for e in self._entry_names()}

    def _entry_names(self) -> list[str]:
        prefix = "futhark_entry_"
        return [fn[len(prefix):] for fn in dir(self.fut.lib) if fn.startswith(prefix)]

    def call(self, entry: str, *args: Any) -> Any:
        """Call entry point ``entry``; returns a device array, a scalar or a tuple of them."""
        try:
            fn = self._entries[entry]
        except KeyError:
            raise BackendError(f"backend {self.name!r} has no entry point {entry!r}; rebuild with `python3 build.py build`") from None
        return fn(*args)

    def _array_type(self, dtype: np.dtype, rank: int) -> Any:
        dtype = np.dtype(dtype)
        # Futhark names element types u64, i8, ...; numpy uint64, int8, ...
        fut_name = ("u" if dtype.kind == "u" else "i") + str(8 * dtype.itemsize)
        try:
            return self.fut.types[self._ffi.typeof(f"struct futhark_{fut_name}_{rank}d *")]
        except (KeyError, self._ffi.error):
            raise BackendError(f"the compiled program has no {rank}-d {dtype.name} arrays") from None

    def kernel_times(self) -> list[tuple[str, int, float]]:
        """Time per kernel since the last call, as ``(name, launches, microseconds)``, longest first.

        Only with ``FUTBIG_PROFILE=1`` in the environment when the backend
        started (otherwise the list is empty): Futhark's profiling report,
        summed by kernel.
        """
        if not self.profiling:
            return []
        self.sync()
        report = self._ffi.string(self.fut.lib.futhark_context_report(self.fut.ctx)).decode()
        totals: dict[str, list] = {}
        for event in json.loads(report).get("events", []):
            entry = totals.setdefault(event["name"], [0, 0.0])
            entry[0] += 1
            entry[1] += float(event["duration"])
        return sorted(((k, n, t) for k, (n, t) in totals.items()), key=lambda e: -e[2])

    def to_device(self, array: np.ndarray) -> Any:
        """Copy a numpy array to the backend (C order is enforced first)."""
        array = np.ascontiguousarray(array)
        return self.fut.to_futhark(self._array_type(array.dtype, array.ndim), array)

    def to_host(self, device_array: Any) -> np.ndarray:
        """Copy a device array back into a new numpy array."""
        return self.fut.from_futhark(device_array)

    def holds(self, device_array: Any) -> bool:
        """Whether ``device_array`` is an array of this backend's program (not a host array, not another backend's)."""
        try:
            return self._ffi.typeof(device_array) in self.fut.types
        except TypeError:
            return False

    def shape(self, device_array: Any) -> tuple[int, ...]:
        """The shape of a device array, without copying it."""
        fut_type = self.fut.types[self._ffi.typeof(device_array)]
        cshape = fut_type.shape(self.fut.ctx, device_array)
        return tuple(int(cshape[i]) for i in range(fut_type.rank))

    def sync(self) -> None:
        """Wait for all queued device work (for timing)."""
        self.fut._errorcheck(self.fut.lib.futhark_context_sync(self.fut.ctx))


def _started(name: str) -> Context:
    """The context of backend ``name``, started on first use (call with _lock held)."""
    if name not in _contexts:
        _contexts[name] = Context(name)
    return _contexts[name]


def context() -> Context:
    """The process's current backend context, created on first use."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                name = _default_backend()
                _started(name)
                _current = name
    return _contexts[_current]


def backend() -> str:
    """The name of the backend in use (starting it if needed).

    >>> backend() in available_backends()
    True
    """
    return context().name


def set_backend(name: str) -> None:
    """Use backend ``name`` (``"cuda"``, ``"multicore"`` or ``"c"``) from now on.

    Each backend is started once per process and kept, so switching back and
    forth is cheap; arrays belong to the backend that made them and cannot be
    mixed with arrays of another.

    >>> before = backend()
    >>> last = available_backends()[-1]
    >>> set_backend(last); backend() == last
    True
    >>> set_backend(before)
    """
    global _current
    with _lock:
        _started(name)
        _current = name
