"""Every reference kernel of the report, compiled from the text of its Rust
source and launched from Python on the report's inputs (seed 42, made here
by an independent SplitMix64): the same counters, at both widths, as the Rust
report's committed results (`results/results.json`), and the same outputs as
numpy's arithmetic where it is exact."""

import json
from pathlib import Path

import numpy as np
import pytest

import simt

ROOT = Path(__file__).parents[2]
KERNELS = ROOT / "simt-kernels" / "src" / "kernels"
RESULTS = json.loads((ROOT / "results" / "results.json").read_text())
N, GROUP, MATRIX, STRIDE = 4096, 256, 64, 16
MASK = (1 << 64) - 1


class SplitMix64:
    """The report's generator (`simt-report/src/rng.rs`), rewritten."""

    def __init__(self, seed):
        self.state = seed

    def u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def i32_in(self, lo, hi):
        return lo + ((self.u64() * (hi - lo + 1)) >> 64)

    def f32_in(self, lo, hi):
        unit = np.float32(self.u64() >> 40) / np.float32(1 << 24)
        return np.float32(lo) + unit * (np.float32(hi) - np.float32(lo))

    def i32_vec(self, n, lo, hi):
        return np.array([self.i32_in(lo, hi) for _ in range(n)], dtype=np.int32)

    def f32_vec(self, n, lo, hi):
        return np.array([self.f32_in(lo, hi) for _ in range(n)], dtype=np.float32)


def vecadd_i32(r):
    a, b = r.i32_vec(N, -10**6, 10**6), r.i32_vec(N, -10**6, 10**6)
    return [a, b, np.zeros(N, np.int32), N], (2, a + b)


def vecadd_f32(r):
    a, b = r.f32_vec(N, -1, 1), r.f32_vec(N, -1, 1)
    return [a, b, np.zeros(N, np.float32), N], (2, a + b)


def saxpy_f32(r):
    a = r.f32_in(-2, 2)
    x, y = r.f32_vec(N, -1, 1), r.f32_vec(N, -1, 1)
    return [x, y, float(a), N], None


def copy_coalesced_f32(r):
    src = r.f32_vec(N, -1, 1)
    return [src, np.zeros(N, np.float32), N], (1, src)


def copy_strided_f32(r):
    src = r.f32_vec(N * STRIDE, -1, 1)
    return [src, np.zeros(N, np.float32), N, STRIDE], (1, src[::STRIDE])


def divergent_collatz_i32(r):
    v = r.i32_vec(N, 1, 10**6)
    return [v, np.zeros(N, np.int32), N], (1, np.where(v % 2 == 1, 3 * v + 1, v >> 1))


def lds_conflict_heavy_i32(r):
    scale, offset = r.i32_in(-1000, 1000), r.i32_in(-10**6, 10**6)
    return [np.zeros(N, np.int32), scale, offset], None


def matmul(r):
    a, b = r.f32_vec(MATRIX * MATRIX, -1, 1), r.f32_vec(MATRIX * MATRIX, -1, 1)
    return [a, b, np.zeros(MATRIX * MATRIX, np.float32), MATRIX], None


def reduce_i32(r):
    v = r.i32_vec(N, -10**6, 10**6)
    sums = v.reshape(-1, GROUP).sum(axis=1, dtype=np.int64).astype(np.int32)
    return [v, np.zeros(N // GROUP, np.int32), N], (1, sums)


def reduce_f32(r):
    return [r.f32_vec(N, -1, 1), np.zeros(N // GROUP, np.float32), N], None


CASES = {
    "vecadd_i32": ("elementwise.rs", N // GROUP, vecadd_i32),
    "vecadd_f32": ("elementwise.rs", N // GROUP, vecadd_f32),
    "saxpy_f32": ("elementwise.rs", N // GROUP, saxpy_f32),
    "copy_coalesced_f32": ("elementwise.rs", N // GROUP, copy_coalesced_f32),
    "copy_strided_f32": ("elementwise.rs", N // GROUP, copy_strided_f32),
    "divergent_collatz_i32": ("branch.rs", N // GROUP, divergent_collatz_i32),
    "lds_conflict_heavy_i32": ("lds.rs", N // GROUP, lds_conflict_heavy_i32),
    "matmul_naive_f32": ("matmul.rs", MATRIX * MATRIX // GROUP, matmul),
    "matmul_tiled_f32": ("matmul.rs", (MATRIX // 16) ** 2, matmul),
    "reduce_i32": ("reduce.rs", N // GROUP, reduce_i32),
    "reduce_f32": ("reduce.rs", N // GROUP, reduce_f32),
}


def test_every_row_of_the_report_has_a_case():
    assert {row["kernel"] for row in RESULTS["rows"]} == set(CASES)
    assert (RESULTS["seed"], RESULTS["model"]["name"]) == (42, "reference")


def test_the_generator_is_splitmix64():
    r = SplitMix64(0)
    assert [r.u64() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_reference_kernel_from_python_counts_as_the_report(name, width):
    file, groups, prepare = CASES[name]
    kernels = {k.name: k for k in simt.compile_rust((KERNELS / file).read_text(), str(file))}
    args, check = prepare(SplitMix64(RESULTS["seed"]))
    stats = kernels[name].launch(groups, GROUP, args, wave_width=width, model="reference")
    row = next(r for r in RESULTS["rows"] if r["kernel"] == name and r["wave_width"] == width)
    counters = stats.counters.to_dict()
    assert {k: row[k] for k in counters} == counters
    assert (stats.workgroups, stats.waves) == (row["workgroups"], row["waves"])
    if check is not None:
        position, expected = check
        assert (args[position] == expected).all()
