"""Turn a `python -m futbig bench` results.json into a markdown table beside the H200 anchors.

    python bench/report.py bench/results/h200.json > table.md
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ANCHORS = json.loads((Path(__file__).parent / "anchors_h200.json").read_text())


def table(results: dict) -> str:
    rows = results["rows"]
    meta = results["meta"]
    out = [f"Backend `{meta['backend']}` on {meta.get('device', meta['host'])}, {meta['date']}, "
           f"2^{meta['total_bits'].bit_length() - 1} bits per operand per batch; microseconds per batch "
           "(futbig: best of the timed runs).", ""]
    for op in dict.fromkeys(r["op"] for r in rows):
        refs = ANCHORS.get(op, {})
        mul_us = {r["bits"]: r["us_per_batch"] for r in rows if r["op"] == "mul"}
        with_mul = op.startswith("divmod") and mul_us
        head = ["bits", "instances", "futbig us", *(["futbig mul us", "÷ mul"] if with_mul else []), *refs,
                "futbig GB/s", "gmpy2 inst/s", "vs gmpy2"]
        out += [f"### {op}", "", "| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
        for r in (r for r in rows if r["op"] == op):
            cells = [str(r["bits"]), str(r["instances"]), f"{r['us_per_batch']:.0f}"]
            if with_mul:
                mul = mul_us.get(r["bits"])
                cells += [f"{mul:.0f}", f"{r['us_per_batch'] / mul:.1f}x"] if mul else ["-", "-"]
            cells += [str(col.get(str(r["bits"]), "-")) for col in refs.values()]
            cells += [f"{r['gb_per_s']:.0f}", f"{r['gmpy2_instances_per_s']:.3g}", f"{r['speedup_vs_gmpy2']:.0f}x"]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(table(json.loads(Path(sys.argv[1]).read_text())))
