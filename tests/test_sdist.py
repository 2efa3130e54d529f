"""The sdist that `python3 build.py install-test` made (FUTBIG_SDIST): the generated C of every
backend, checked against the Futhark sources beside it, and no build artefacts.

Marked ``packaging``: deselected by default, run by ``python3 build.py install-test``.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import tarfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.packaging

BACKENDS = ("c", "multicore", "cuda")
# Files a build leaves behind, which an sdist must not carry.
ARTEFACT = re.compile(r"(\.(so|o|pyc|pyd|dylib|whl|actual|expected)$|(^|/)(__pycache__|\.build|\.venv|\.futhark[^/]*|\.gpu"
                      r"|dist|build|_ext/_futbig_[^/]*)(/|$))")


@pytest.fixture(scope="module")
def sdist() -> tarfile.TarFile:
    path = os.environ.get("FUTBIG_SDIST")
    if not path:
        raise RuntimeError("FUTBIG_SDIST names no sdist: run these tests with `python3 build.py install-test`")
    with tarfile.open(path) as tar:
        yield tar


@pytest.fixture(scope="module")
def names(sdist) -> list[str]:
    """Member names without the top folder (futbig-<version>/)."""
    return [m.name.partition("/")[2] for m in sdist.getmembers() if m.isfile()]


def _build_py(root: Path):
    spec = importlib.util.spec_from_file_location(f"futbig_build_{id(root)}", root / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_c_of_every_backend(sdist, names, backend):
    for ext in ("c", "h", "json"):
        assert f"gen/{backend}/futbig.{ext}" in names
    top = sdist.getnames()[0].split("/")[0]
    manifest = json.load(sdist.extractfile(f"{top}/gen/{backend}/futbig.json"))
    assert manifest["backend"] == backend
    source = sdist.extractfile(f"{top}/gen/{backend}/futbig.c").read()
    assert b"futhark_entry_add" in source and b"futbig: report the failure" in source  # entries, C_PATCHES


def test_no_build_artefacts(names):
    assert [n for n in names if ARTEFACT.search(n)] == []
    assert sorted(n for n in names if n.startswith("gen/")) == sorted(
        ["gen/SOURCES.sha256"] + [f"gen/{b}/futbig.{e}" for b in BACKENDS for e in ("c", "h", "json")])


def test_the_c_matches_the_futhark_sources_and_a_change_is_caught(sdist, tmp_path):
    sdist.extractall(tmp_path, filter="data")
    root = next(tmp_path.iterdir())
    build = _build_py(root)
    sources = build.futhark_sources()
    assert sources and all(p.is_file() for p in sources)
    build.check_generated_c()  # what setup.py checks before compiling
    edited = sources[len(sources) // 2]
    edited.write_text(edited.read_text() + "\n-- edited after the C was generated\n")
    with pytest.raises(build.BuildError, match="stale kernels"):
        build.check_generated_c()
