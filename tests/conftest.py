"""Fixtures every test module shares: the backends, the oracle, seeded randomness."""
from __future__ import annotations

import os
import random

import pytest

import futbig._backend as backends
from bigints import GMP


def _test_backends() -> list[str]:
    """Built backends that can start here; FUTBIG_TEST_BACKENDS (comma list) narrows them."""
    built = backends.available_backends()
    if "cuda" in built and not backends._cuda_device_answers():
        built.remove("cuda")
    wanted = os.environ.get("FUTBIG_TEST_BACKENDS")
    if wanted:
        names = [w.strip() for w in wanted.split(",") if w.strip()]
        missing = [w for w in names if w not in built]
        if missing:
            raise RuntimeError(f"FUTBIG_TEST_BACKENDS asks for {missing}, but only {built} are built and usable")
        built = names
    if not built:
        raise RuntimeError("no futbig backend is built: run `python3 build.py build`")
    return built


TEST_BACKENDS = _test_backends()


@pytest.fixture(params=TEST_BACKENDS)
def backend(request) -> str:
    """Runs the test once per usable backend, with that backend selected."""
    backends.set_backend(request.param)
    return request.param


@pytest.fixture
def ctx(backend) -> backends.Context:
    """The started context of the backend under test (raw entry points)."""
    return backends.context()


@pytest.fixture
def rng(request) -> random.Random:
    """A random generator seeded from the test's name: reproducible, different per test."""
    return random.Random(request.node.nodeid)


@pytest.fixture
def gmp() -> type[GMP]:
    """The GMP oracle."""
    return GMP


@pytest.fixture
def entries(ctx, monkeypatch) -> list[str]:
    """The names of the entry points called from now on, in order (to check routes)."""
    called: list[str] = []
    real_call = ctx.call

    def recording_call(entry, *args):
        called.append(entry)
        return real_call(entry, *args)

    monkeypatch.setattr(ctx, "call", recording_call)
    return called


@pytest.fixture
def host_copies(ctx, monkeypatch) -> list[tuple[int, ...]]:
    """The shapes of the device arrays copied to the host from now on."""
    copied: list[tuple[int, ...]] = []
    real_to_host = ctx.to_host

    def recording_to_host(device_array):
        host = real_to_host(device_array)
        copied.append(host.shape)
        return host

    monkeypatch.setattr(ctx, "to_host", recording_to_host)
    return copied
