"""Compiles futbig's backends from the C that Futhark generated, shipped in the sdist's gen/.

The metadata is in pyproject.toml. ``python3 build.py dist`` stages gen/
(``futbig.c``, ``.h``, ``.json`` per backend and the hash of the Futhark
sources they came from) and builds the sdist; installing it needs a C
compiler and Python's headers, never Futhark. The ``c`` and ``multicore``
backends are always compiled, ``cuda`` where the CUDA headers, NVRTC and
libcuda are found (``$CUDA_HOME``, else ``/usr/local/cuda``). Without gen/ (a
source checkout: ``pip install -e`` by build.py) no extension is built here:
build.py compiles them.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _build_py():
    """build.py as a module (loaded by path: a module named `build` is the PyPA build tool)."""
    spec = importlib.util.spec_from_file_location("futbig_build", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while it executes
    spec.loader.exec_module(module)
    return module


B = _build_py()


def _fail(error: Exception) -> SystemExit:
    return SystemExit(f"futbig: {error}")


class BuildExt(build_ext):
    """Each extension from gen/<backend>/futbig.c through futhark-ffi's cffi builder."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1  # the backends compile at once, minutes each

    def run(self) -> None:
        try:
            B.check_generated_c()
        except B.BuildError as e:
            raise _fail(e) from None
        self.cuda_flags = B.cuda_toolchain()
        if self.cuda_flags is None:
            print("futbig: the cuda backend is not built: no CUDA toolkit with cuda.h, nvrtc.h, libnvrtc and a "
                  "libcuda.so.1 driver was found (set CUDA_HOME to the toolkit and reinstall); "
                  "futbig runs on the CPU backends", file=sys.stderr)
            self.extensions = [e for e in self.extensions if not e.name.endswith("_cuda")]
        super().run()

    def build_extension(self, ext: Extension) -> None:
        from futhark_ffi.build import build  # a build requirement (pyproject.toml)

        backend = ext.name.rsplit("_", 1)[1]
        ffi = build(str(B.GEN_DIR / backend / "futbig"), f"futbig/_ext/futbig_{backend}")
        made = ffi.distutils_extension(tmpdir=os.path.join(self.build_temp, backend))
        cflags, ldflags = self.cuda_flags if backend == "cuda" else ([], [])
        ext.sources = made.sources
        ext.libraries = made.libraries
        ext.extra_compile_args = [*made.extra_compile_args, *B.C_FLAGS, *cflags]
        ext.extra_link_args = [*(["-pthread"] if backend == "multicore" else []), *ldflags]
        super().build_extension(ext)


class BdistWheel(bdist_wheel):
    """A wheel needs the generated C: refuse to make one without backends."""

    def run(self) -> None:
        if not B.GEN_DIR.is_dir():
            raise _fail(f"{B.GEN_DIR} is missing, so the wheel would hold no backend; build it from the sdist "
                        "that `python3 build.py dist` makes")
        super().run()


setup(
    ext_modules=[Extension(f"futbig._ext._futbig_{b}", sources=[]) for b in B.ALL_BACKENDS] if B.GEN_DIR.is_dir() else [],
    cmdclass={"build_ext": BuildExt, "bdist_wheel": BdistWheel},
)
