"""The Python package against the same hand-computed cases as the Rust tests
(`tests/simt/launch.rs`): results against numpy arithmetic, counters computed by
hand, faults that name their line, lane and wave, and bad input as Python
exceptions."""

import json

import numpy as np
import pytest

import simt

KERNELS = {
    "strided_copy": """
kernel strided_copy(src: &[u32], out: &mut [u32], stride: u32) {
    vreg i, x;
    v_mul_u32 i, global_id, stride
    global_load x, src[i]
    global_store out[global_id], x
}""",
    "lds_stride": """
kernel lds_stride(out: &mut [u32], stride: u32) {
    lds tile: [u32; 2048];
    vreg i, x;
    v_mul_u32 i, local_id, stride
    lds_store tile[i], i
    lds_load x, tile[i]
    global_store out[global_id], x
}""",
    "unchecked_fill": """
kernel unchecked_fill(out: &mut [u32]) {
    global_store out[global_id], 1
}""",
    "saxpy": """
kernel saxpy(x: &[f32], y: &mut [f32], a: f32, n: u32) {
    vreg i, xi, yi;
    mreg inside;
    v_mov        i, global_id
    v_cmp_lt_u32 inside, i, n
    if inside
        global_load  xi, x[i]
        global_load  yi, y[i]
        v_fma_f32    yi, a, xi, yi
        global_store y[i], yi
    endif
}""",
}


@pytest.fixture(scope="module")
def kernels():
    return {name: simt.compile(text) for name, text in KERNELS.items()}


# One wave of 32 lanes: 4-byte loads 4 * stride bytes apart, 64-byte lines,
# plus 2 transactions for the unit-stride store.
@pytest.mark.parametrize("stride,transactions", [(0, 1), (1, 2), (2, 4), (16, 32), (32, 32)])
def test_coalescing_follows_the_stride(kernels, stride, transactions):
    src = np.arange(32 * 32, dtype=np.uint32)
    out = np.zeros(32, dtype=np.uint32)
    stats = kernels["strided_copy"].launch(1, 32, {"src": src, "out": out, "stride": stride})
    assert (out == src[np.arange(32) * stride]).all()
    assert stats.counters.global_transactions == transactions + 2
    assert stats.counters.global_accesses == 2


# 32 banks of 4-byte words: the worst bank holds gcd(stride, 32) words.
@pytest.mark.parametrize("stride,cycles", [(0, 0), (1, 0), (2, 1), (4, 3), (32, 31), (33, 0)])
def test_lds_conflicts_follow_the_stride(kernels, stride, cycles):
    out = np.zeros(32, dtype=np.uint32)
    stats = kernels["lds_stride"].launch(1, 32, [out, stride])
    assert (out == np.arange(32, dtype=np.uint32) * stride).all()
    assert stats.counters.lds_accesses == 2
    assert stats.counters.lds_conflict_cycles == 2 * cycles


def test_facts_stand_beside_the_measurement(kernels):
    out = np.zeros(32, dtype=np.uint32)
    stats = kernels["lds_stride"].launch(1, 32, [out, 32])
    facts = {f.line: f.facts for f in stats.facts}
    # The LDS store and load (lines 6 and 7 of the text): all 32 lanes in one
    # bank; then what the facts say of races between them.
    for line in (6, 7):
        assert facts[line][0].startswith("LDS conflicts: predicted 32-way at stride = 32")
        assert facts[line][0].endswith("measured 32-way")
    assert any("line 7" in f for f in facts[6])
    # The store: one 128-byte wave over 64-byte lines.
    assert facts[8] == ["global: predicted 2 lines, 2 sectors; measured 2 lines, 2 sectors"]
    assert stats.facts[0].to_dict()["line"] == 6


def test_saxpy_updates_in_place_and_counts_the_divergent_wave(kernels):
    x = np.ones(100, dtype=np.float32)
    y = np.full(100, 2.0, dtype=np.float32)
    stats = kernels["saxpy"].launch(4, 32, {"x": x, "y": y, "a": 3.0, "n": 100})
    assert (y == 5.0).all()
    # Only the last wave (work-items 96..127) splits: its 4 instructions
    # inside the `if` run with 4 of 32 lanes.
    assert stats.counters.divergent_vector_instructions == 4
    assert stats.workgroups == 4
    assert x[0] == 1.0, "a read-only buffer is left alone"


def test_both_wave_widths_compute_the_same(kernels):
    ys = []
    for width in (32, 64):
        x = np.arange(128, dtype=np.float32)
        y = np.ones(128, dtype=np.float32)
        kernels["saxpy"].launch(2, 64, [x, y, 0.5, 128], wave_width=width)
        ys.append(y)
    assert (ys[0] == ys[1]).all()
    assert (ys[0] == np.arange(128, dtype=np.float32) * 0.5 + 1).all()


def test_a_fault_names_kernel_line_wave_lane_and_address(kernels):
    out = np.zeros(40, dtype=np.uint32)
    with pytest.raises(simt.LaunchError) as caught:
        kernels["unchecked_fill"].launch(2, 32, [out])
    e = caught.value
    assert e.kernel == "unchecked_fill"
    # The store is on line 3 of the text (line 1 is empty).
    assert e.line == 3
    assert e.workgroup == (1, 0, 0)
    assert (e.wave, e.lane) == (0, 8)
    assert e.address is not None
    assert "unchecked_fill" in str(e)


def test_compile_errors_carry_the_rendered_diagnostic_and_labels():
    with pytest.raises(simt.CompileError) as caught:
        simt.compile("kernel bad(out: &mut [u32]) {\n    v_frobnicate v0, v1\n}")
    e = caught.value
    assert "v_frobnicate" in str(e)
    assert e.labels, "at least one label"
    line, column, message = e.labels[0]
    assert line == 2 and column >= 5 and message


def test_to_dict_is_the_simt_commands_json(kernels):
    out = np.zeros(32, dtype=np.uint32)
    stats = kernels["strided_copy"].launch(1, 32, [np.arange(32, dtype=np.uint32), out, 1])
    d = stats.to_dict()
    assert d["version"] == simt.__version__
    assert set(d) >= {"version", "seed", "model", "rows"}
    row = d["rows"][0]
    assert row["kernel"] == "strided_copy"
    assert row["global_transactions"] == stats.counters.global_transactions
    assert json.loads(json.dumps(d)) == d
    # The listing's lines, as objects and as dicts.
    lines = stats.listing.lines
    assert lines[0].to_dict() == row["listing"]["lines"][0]
    counters = stats.counters.to_dict()
    assert counters["instructions"] > 0
    assert all(row[name] == value for name, value in counters.items())


def test_html(kernels, tmp_path):
    out = np.zeros(32, dtype=np.uint32)
    stats = kernels["strided_copy"].launch(1, 32, [np.arange(32, dtype=np.uint32), out, 1])
    page = tmp_path / "r.html"
    stats.html(str(page))
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "strided_copy" in text
    assert stats._repr_html_() == text


def test_timed_launch(kernels):
    x = np.ones(4096, dtype=np.float32)
    y = np.ones(4096, dtype=np.float32)
    stats = kernels["saxpy"].launch(16, 256, [x, y, 2.0, 4096], part="h100-sxm/2")
    assert stats.estimate.cycles > 0
    assert stats.estimate.part == "h100-sxm/2"
    limits = {"DRAM", "L2", "L1", "LDS", "issue", "atomics", "latency"}
    assert stats.limited_by in limits
    # The limiter is the busiest resource at 60% of its peak or more.
    shares = stats.estimate.utilization.to_dict()
    busiest = max(shares.values())
    assert (stats.limited_by == "latency") == (busiest < 0.6)
    plain = kernels["saxpy"].launch(16, 256, [x, y, 2.0, 4096])
    assert plain.limited_by is None


@pytest.mark.parametrize(
    "args,error,words",
    [
        ({"x": np.ones(4, np.float64), "y": np.ones(4, np.float32), "a": 1.0, "n": 4}, TypeError, "dtype float32"),
        ({"x": np.ones(4, np.float32), "y": np.ones(4, np.float32), "a": 1.0}, TypeError, "missing argument `n`"),
        ({"x": np.ones(4, np.float32), "y": np.ones(4, np.float32), "a": 1.0, "n": 4, "z": 1}, TypeError, "no parameter `z`"),
        ({"x": [1.0] * 4, "y": np.ones(4, np.float32), "a": 1.0, "n": 4}, TypeError, "numpy array"),
        ({"x": np.ones(4, np.float32), "y": np.ones(4, np.float32), "a": "1", "n": 4}, TypeError, "`a` must be a float"),
        ({"x": np.ones(4, np.float32), "y": np.ones(4, np.float32), "a": 1.0, "n": -1}, TypeError, "`n` must be an int"),
        ({"x": np.ones(8, np.float32)[::2], "y": np.ones(4, np.float32), "a": 1.0, "n": 4}, ValueError, "contiguous"),
        ([np.ones(4, np.float32)], TypeError, "takes 4 arguments"),
        ([np.ones(4, np.float32), np.ones((2, 2), np.float32, order="F"), 1.0, 4], ValueError, "C-contiguous"),
    ],
)
def test_bad_arguments_are_exceptions(kernels, args, error, words):
    with pytest.raises(error) as caught:
        kernels["saxpy"].launch(1, 32, args)
    assert words in str(caught.value)


def test_a_read_only_array_for_a_writable_buffer(kernels):
    y = np.ones(32, dtype=np.float32)
    y.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        kernels["saxpy"].launch(1, 32, [np.ones(32, np.float32), y, 1.0, 32])


def test_a_mapping_that_is_not_a_dict(kernels):
    from types import MappingProxyType

    y = np.ones(32, dtype=np.float32)
    args = MappingProxyType({"x": np.ones(32, np.float32), "y": y, "a": 2.0, "n": 32})
    kernels["saxpy"].launch(1, 32, args)
    assert (y == 3.0).all()


def test_a_huge_grid_is_an_exception(kernels):
    out = np.zeros(32, dtype=np.uint32)
    with pytest.raises(simt.LaunchError, match="exceeds 32-bit global ids") as caught:
        kernels["strided_copy"].launch((2**32 - 1, 2**32 - 1, 2**32 - 1), 1024, [out, out, 1])
    assert caught.value.kernel == "strided_copy" and caught.value.line is None
    with pytest.raises(TypeError, match="grid must be an int"):
        kernels["strided_copy"].launch(2**40, 32, [out, out, 1])


def test_unknown_model_part_and_keyword(kernels):
    out = np.zeros(32, dtype=np.uint32)
    with pytest.raises(TypeError, match="unexpected keyword argument `width`"):
        kernels["strided_copy"].launch(1, 32, [out, out, 1], width=64)
    with pytest.raises(TypeError):
        kernels["strided_copy"].launch(1, 32, [out, out, 1], wave_width="wide")
    with pytest.raises(ValueError, match="no memory model"):
        kernels["strided_copy"].launch(1, 32, [out, out, 1], model="nope")
    with pytest.raises(ValueError, match="no part"):
        kernels["strided_copy"].launch(1, 32, [out, out, 1], part="nope")


def test_the_module_docstring_example_runs():
    import doctest

    failed, tried = doctest.testmod(simt, verbose=False)
    assert tried > 0 and failed == 0


def test_launches_from_threads_agree(kernels):
    from concurrent.futures import ThreadPoolExecutor

    def one(stride):
        out = np.zeros(32, dtype=np.uint32)
        src = np.arange(32 * 32, dtype=np.uint32)
        stats = kernels["strided_copy"].launch(1, 32, [src, out, stride], threads=1)
        return stride, stats.counters.global_transactions, out

    with ThreadPoolExecutor(4) as pool:
        for stride, transactions, out in pool.map(one, [0, 1, 2, 16, 32] * 4):
            assert (out == np.arange(32) * stride).all()
            assert transactions == {0: 1, 1: 2, 2: 4, 16: 32, 32: 32}[stride] + 2


def test_the_books_python_examples_run(tmp_path, monkeypatch):
    from pathlib import Path

    chapter = Path(__file__).parents[2] / "docs" / "src" / "guide" / "python.md"
    text = chapter.read_text()
    examples = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
    assert len(examples) == 2, "the launch and the sweep"
    monkeypatch.chdir(tmp_path)
    scope = {}
    for example in examples:
        exec(compile(example, str(chapter), "exec"), scope)
    assert (tmp_path / "saxpy.html").read_text().startswith("<!DOCTYPE html>")


def test_numpy_scalars_are_numbers(kernels):
    x = np.ones(32, dtype=np.float32)
    y = np.ones(32, dtype=np.float32)
    kernels["saxpy"].launch(1, 32, [x, y, np.float32(2.0), np.uint32(32)])
    assert (y == 3.0).all()
