"""The command line (python -m futbig): exit codes and messages, and a short slice of the fuzzer."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TEST_BACKENDS
from futbig import cli, fuzz

PYTHON_DIR = str(Path(__file__).resolve().parents[1] / "python")


def futbig(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m futbig ARGS`` in a fresh interpreter (this checkout's futbig first on the path)."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PYTHON_DIR, os.environ.get("PYTHONPATH")])))
    environ.pop("FUTBIG_BACKEND", None)
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "futbig", *args], capture_output=True, text=True, timeout=120,
                          env=environ)


@pytest.mark.parametrize("args, message", [
    (["bench", "--bits", "abc"], "argument --bits: 'abc' is not an integer"),
    (["bench", "--bits", "512,"], "an item is empty"),
    (["bench", "--bits", "-5"], "argument --bits: -5 is not positive"),
    (["bench", "--repeat", "0"], "argument --repeat: 0 is not positive"),
    (["bench", "--check", "0"], "argument --check: 0 is not positive"),
    (["bench", "--total-bits", "0"], "argument --total-bits: 0 is not positive"),
    (["bench", "--ops", "add,frobnicate"], "argument --ops: unknown 'frobnicate'; choose from add,"),
    (["bench", "--backend", "bogus"], "argument --backend: invalid choice: 'bogus'"),
    (["fuzz", "--cases", "x"], "argument --cases: 'x' is not an integer"),
    (["fuzz", "--seed", "-1"], "argument --seed: -1 is negative"),
    (["info", "--bogus"], "unrecognized arguments: --bogus"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    ([], "the following arguments are required"),
])
def test_usage_errors_exit_2_with_a_message(args, message, capsys):
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "usage: python -m futbig" in err, err
    assert "Traceback" not in err


def test_unknown_backend_in_the_environment():
    done = futbig("info", env={"FUTBIG_BACKEND": "bogus"})
    assert done.returncode == 2, done
    assert "error: FUTBIG_BACKEND='bogus' names no backend; set it to one of" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_help_and_version(capsys):
    for command in ([], ["bench"], ["fuzz"], ["info"]):
        assert cli.main([*command, "--help"]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"usage: python -m futbig{' ' + command[0] if command else ''}"), out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("futbig ")


def test_info(backend, capsys):
    assert cli.main(["info", "--backend", backend]) == 0
    out = capsys.readouterr().out
    assert f"in use: {backend}" in out and "built backends:" in out


def test_bench_runs_a_row_and_writes_json(backend, tmp_path, capsys):
    code = cli.main(["bench", "--backend", backend, "--ops", "add,mul_full,powmod_e512", "--bits", "256", "--total-bits", "65536",
                     "--repeat", "1", "--check", "8", "--out", str(tmp_path)])
    assert code == 0
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert [(r["op"], r["bits"], r["baseline"]) for r in rows] == [
        ("add", 256, "x + y"), ("mul_full", 256, "x * y"), ("powmod_e512", 256, "gmpy2.powmod(x, cgbn_exponent(y), p)")]
    assert "x + y" in capsys.readouterr().out


def test_fuzz_slice_finds_no_mismatch(backend, capsys):
    """A short slice of `python -m futbig fuzz` over every operation and the widths around its switches."""
    code = cli.main(["fuzz", "--backend", backend, "--cases", "300", "--seed", "17", "--quiet",
                     "--bits", "1,64,65,256,257,513,1025,1281,2049,4097"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"0 mismatches, seed 17, backend {backend}" in out


def test_fuzz_reports_a_mismatch_with_a_reproducer(backend, monkeypatch, capsys):
    """A result spoilt on purpose (one instance of one batch) must be caught and reported, exit code 1."""
    real_ops = fuzz._ops

    def spoilt_ops():
        ops = real_ops()
        honest = ops["xor"]

        def run(fb, ctx, bits, a, b, extra):
            (limbs,) = honest.run(fb, ctx, bits, a, b, extra)
            limbs = limbs.copy()
            limbs[3, 0] ^= 1  # instance 3 of each batch is one bit off
            return (limbs,)

        ops["xor"] = fuzz.FuzzOp("xor", run, honest.oracle)
        return ops

    monkeypatch.setattr(fuzz, "_ops", spoilt_ops)
    code = cli.main(["fuzz", "--backend", backend, "--cases", "40", "--seed", "5", "--ops", "and,xor", "--bits", "70"])
    out = capsys.readouterr().out
    assert code == 1
    assert "MISMATCH xor at 70 bits, instance 3: operands (0x" in out
    assert f"replay: python -m futbig fuzz --backend {backend} --seed 5 --ops xor --bits 70 --cases 40" in out
    assert "futbig fuzz: 80 cases, 1 mismatches, seed 5" in out


def test_fuzz_operands_cover_the_adversarial_patterns():
    """The generator yields zeros, all-ones, powers of two and 2^k - 1, and stays below 2**bits."""
    import numpy as np

    rng = np.random.default_rng(3)
    for bits in (1, 64, 65, 300):
        values = fuzz._to_mpz(fuzz.operands(rng, 2000, bits))
        top = 2**bits
        assert all(0 <= v < top for v in values)
        assert 0 in values and top - 1 in values
        assert any(v and v & (v - 1) == 0 and v > 1 for v in values) or bits == 1
        assert any(v > 1 and (v + 1) & v == 0 and v != top - 1 for v in values) or bits <= 2
    for bits in (64, 300, 4097):
        lengths = {-(-int(v).bit_length() // 64) for v in fuzz._to_mpz(fuzz.divisors_of_one_length(rng, 500, bits))}
        assert len(lengths) == 1 and 0 not in lengths  # one length, no zero: long division's batches
