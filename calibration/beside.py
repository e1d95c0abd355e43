#!/usr/bin/env python3
"""Sets the GPU's measured relations (timings.csv from seeds.cu) beside the
timing model's (the report's JSON with the time studies), one row per claim.

    calibration/beside.py OUTDIR/timings.csv OUTDIR/model.json
"""
import csv
import json
import sys

# (claim, measured row as (study, kernel, param) whose `extra` is the ratio,
#  model study and the start of its relation's `what`)
CLAIMS = [
    ("T(32)/T(1)", ("divergence", "diverge", "k=32"), ("kway_time", "T(32) / T(1)")),
    ("predicated / one path", ("divergence", "predicated", "k=2"),
     ("predication_time", "time, predicated / one path")),
    ("split by warps / inside warps", ("branch_split", "split", "by_warps"),
     ("warp_split_time", "time, by warps / in warps")),
    ("l1 trio b) / a)", ("l1_trio", "thread_contiguous", "b"),
     ("l1_trio_time", "time, thread_contiguous / warp_strided")),
    ("l1 trio c) / a)", ("l1_trio", "strided", "c"),
     ("l1_trio_time", "time, strided / warp_strided")),
    ("one counter / per-block sums, 4,096", ("atomics", "one_counter", "n=4096"),
     ("atomics_time", "time, one counter / partial sums")),
    ("conflicted / padded, re-read", ("transpose", "conflicted", "rep=16"),
     ("conflict_time", "time, conflicted / padded")),
]


def main(timings, model):
    measured = {}
    with open(timings) as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            if len(row) == 6 and row[0] != "study":
                measured[tuple(row[:3])] = float(row[5])
    relations = {}
    for study in json.load(open(model)).get("studies", []):
        if study["width"] != 32:
            continue
        for r in study["relations"]:
            relations[(study["study"], r["what"])] = r["measured"]
    print("| claim | measured | model | model / measured |")
    print("|---|---:|---:|---:|")
    for claim, key, (study, what) in CLAIMS:
        m = measured.get(key)
        p = relations.get((study, what))
        cell = lambda v: "-" if v is None else f"{v:.3g}"
        ratio = "-" if m in (None, 0) or p is None else f"{p / m:.2f}"
        print(f"| {claim} | {cell(m)} | {cell(p)} | {ratio} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
