"""CUDA kernels from Python: nvcc's PTX of calibration/seeds.cu through
``simt.compile_ptx``, results against numpy, listings by CUDA line, 64-bit
scalars given whole, and ``simt.compile_cuda`` through nvcc where there is
one."""

import os
from pathlib import Path

import numpy as np
import pytest

import simt

CALIBRATION = Path(__file__).resolve().parents[2] / "calibration"
SEEDS_PTX = CALIBRATION / "seeds.ptx"

WORDS_CU = """\
// A 64-bit scalar's words, and a sum that needs both.
__global__ void words(unsigned long long v, long long s, unsigned* out) {
  out[0] = (unsigned)v;
  out[1] = (unsigned)(v >> 32);
  out[2] = (unsigned)(s >> 32);
  out[3] = (unsigned)((v + (unsigned long long)s) >> 32);
}
"""

# nvcc -arch=sm_90 -ptx -lineinfo of WORDS_CU, its .file made relative.
WORDS_PTX = """\
.version 9.5
.target sm_90
.address_size 64

.visible .entry _Z5wordsyxPj(
\t.param .u64 _Z5wordsyxPj_param_0,
\t.param .u64 _Z5wordsyxPj_param_1,
\t.param .u64 _Z5wordsyxPj_param_2
)
{
\t.reg .b64 \t%rd<9>;
\t.loc\t1 2 0
\tld.param.u64 \t%rd1, [_Z5wordsyxPj_param_0];
\tld.param.u64 \t%rd2, [_Z5wordsyxPj_param_1];
\tld.param.u64 \t%rd3, [_Z5wordsyxPj_param_2];
\t.loc\t1 3 3
\tcvta.to.global.u64 \t%rd4, %rd3;
\tst.global.u32 \t[%rd4], %rd1;
\t.loc\t1 4 3
\tshr.u64 \t%rd5, %rd1, 32;
\tst.global.u32 \t[%rd4+4], %rd5;
\t.loc\t1 5 3
\tshr.u64 \t%rd6, %rd2, 32;
\tst.global.u32 \t[%rd4+8], %rd6;
\t.loc\t1 6 3
\tadd.s64 \t%rd7, %rd2, %rd1;
\tshr.u64 \t%rd8, %rd7, 32;
\tst.global.u32 \t[%rd4+12], %rd8;
\t.loc\t1 7 1
\tret;
}

\t.file\t1 "words.cu"
"""


@pytest.fixture(scope="module")
def seeds():
    return simt.compile_ptx(SEEDS_PTX.read_text(), file=str(SEEDS_PTX))


def by_name(kernels, name):
    return next(k for k in kernels if k.name == name)


def test_every_kernel_of_the_ptx_in_entry_order(seeds):
    names = [k.name for k in seeds]
    assert len(names) == 18
    assert names[0] == "diverge"
    saxpy = by_name(seeds, "saxpy")
    assert saxpy.demangled == "saxpy(int, float, float const*, float*)"
    assert saxpy.mangled == "_Z5saxpyifPKfPf"
    assert saxpy.params == [
        ("_Z5saxpyifPKfPf_param_0", "u32"),
        ("_Z5saxpyifPKfPf_param_1", "f32"),
        ("_Z5saxpyifPKfPf_param_2", "&[f32]"),
        ("_Z5saxpyifPKfPf_param_3", "&mut [f32]"),
    ]
    # Kernels of simt's own language have no PTX names.
    own = simt.compile("kernel k(out: &mut [u32]) {\n global_store out[global_id], 1\n}")
    assert own.demangled is None and own.mangled is None


def test_saxpy_computes_and_lists_its_cuda_lines(seeds):
    saxpy = by_name(seeds, "saxpy")
    x = np.arange(128, dtype=np.float32)
    y = np.ones(128, dtype=np.float32)
    stats = saxpy.launch(
        2,
        64,
        {
            "_Z5saxpyifPKfPf_param_0": 100,
            "_Z5saxpyifPKfPf_param_1": 2.0,
            "_Z5saxpyifPKfPf_param_2": x,
            "_Z5saxpyifPKfPf_param_3": y,
        },
    )
    expected = np.where(np.arange(128) < 100, 2 * x + 1, 1).astype(np.float32)
    np.testing.assert_array_equal(y, expected)
    assert stats.counters.global_accesses == 12
    lines = {line["line"]: line for line in stats.to_dict()["rows"][0]["listing"]["lines"]}
    assert lines[159]["source"] == "if (i < n) y[i] = alpha * x[i] + y[i];"
    page = stats._repr_html_()
    assert '<th class="text">source</th>' in page
    assert "if (i &lt; n) y[i] = alpha * x[i] + y[i];" in page


def test_a_64_bit_scalar_is_one_int_or_its_two_words():
    (words,) = simt.compile_ptx(WORDS_PTX, file="words.ptx")
    assert [p for p, _ in words.params] == [
        "_Z5wordsyxPj_param_0",
        "_Z5wordsyxPj_param_0.hi",
        "_Z5wordsyxPj_param_1",
        "_Z5wordsyxPj_param_1.hi",
        "_Z5wordsyxPj_param_2",
    ]
    out = np.zeros(4, dtype=np.uint32)
    words.launch(1, 1, {"_Z5wordsyxPj_param_0": 2**32 + 2, "_Z5wordsyxPj_param_1": -1, "_Z5wordsyxPj_param_2": out})
    np.testing.assert_array_equal(out, [2, 1, 0xFFFFFFFF, 1])
    # The words given one by one, in order.
    out[:] = 0
    words.launch(1, 1, [7, 3, 0, 0x80000000, out])
    np.testing.assert_array_equal(out, [7, 3, 0x80000000, 0x80000003])
    with pytest.raises(TypeError, match="is a 64-bit integer"):
        words.launch(1, 1, {"_Z5wordsyxPj_param_0": 2.0, "_Z5wordsyxPj_param_1": 0, "_Z5wordsyxPj_param_2": out})
    with pytest.raises(TypeError, match="is a 64-bit integer"):
        words.launch(1, 1, {"_Z5wordsyxPj_param_0": 2**64, "_Z5wordsyxPj_param_1": 0, "_Z5wordsyxPj_param_2": out})


def test_malformed_ptx_is_a_compile_error_at_its_line():
    bad = WORDS_PTX.replace("shr.u64 \t%rd5", "frob.u64 \t%rd5")
    with pytest.raises(simt.CompileError) as e:
        simt.compile_ptx(bad, file="bad.ptx")
    assert "`frob.u64` is not an instruction simt runs" in str(e.value)
    assert "bad.ptx:20:2" in str(e.value)
    assert e.value.labels[0][:2] == (20, 2)


def test_dynamic_shared_memory_is_sized_at_compile(seeds):
    out = np.zeros(64, dtype=np.float32)
    args = {
        "_Z11copy_stridemPKfPf_param_0": 0,
        "_Z11copy_stridemPKfPf_param_1": np.zeros(64, dtype=np.float32),
        "_Z11copy_stridemPKfPf_param_2": out,
    }
    # n = 0: every thread stores into `extern __shared__ float pad[]`.
    with pytest.raises(simt.LaunchError) as e:
        by_name(seeds, "copy_stride").launch(1, 64, args)
    assert e.value.line == 171
    kernels = simt.compile_ptx(SEEDS_PTX.read_text(), file=str(SEEDS_PTX), shared_bytes=256)
    stats = by_name(kernels, "copy_stride").launch(1, 64, args)
    assert stats.counters.lds_accesses == 2


needs_nvcc = pytest.mark.skipif(simt.find_nvcc() is None, reason="no nvcc (pip install nvidia-cuda-nvcc ...)")


@needs_nvcc
def test_compile_cuda_takes_source_text_and_paths(tmp_path):
    (from_text,) = simt.compile_cuda(WORDS_CU)
    path = tmp_path / "words.cu"
    path.write_text(WORDS_CU)
    (from_path,) = simt.compile_cuda(path)
    (from_str,) = simt.compile_cuda(str(path))
    for words in (from_text, from_path, from_str):
        assert words.name == "words" and words.mangled == "_Z5wordsyxPj"
        out = np.zeros(4, dtype=np.uint32)
        stats = words.launch(1, 1, {"_Z5wordsyxPj_param_0": 2**32 + 2, "_Z5wordsyxPj_param_1": -1, "_Z5wordsyxPj_param_2": out})
        np.testing.assert_array_equal(out, [2, 1, 0xFFFFFFFF, 1])
        lines = {line["line"]: line for line in stats.to_dict()["rows"][0]["listing"]["lines"]}
        assert lines[4]["source"] == "out[1] = (unsigned)(v >> 32);"
    with pytest.raises(simt.CompileError, match='identifier "undeclared" is undefined'):
        simt.compile_cuda("__global__ void k(int* p) { p[0] = undeclared; }\n")
    with pytest.raises(FileNotFoundError, match="no CUDA file"):
        simt.compile_cuda(str(tmp_path / "missing.cu"))


def test_compile_cuda_without_nvcc_says_how_to_install_it(monkeypatch):
    monkeypatch.setenv("SIMT_NVCC", os.path.join(os.sep, "no", "such", "nvcc"))
    assert simt.find_nvcc() is None
    with pytest.raises(FileNotFoundError, match="SIMT_NVCC"):
        simt.compile_cuda(WORDS_CU)


def test_doubles_from_ptx_take_float64_and_uint64_arrays_and_a_float_scalar():
    ptx = Path(__file__).resolve().parents[2] / "simt-ptx" / "tests" / "ptx" / "corpus" / "doubles.ptx"
    kernels = {k.name: k for k in simt.compile_ptx(ptx.read_text(), file="doubles.ptx")}
    daxpy = kernels["daxpy"]
    assert [t for _, t in daxpy.params][-2:] == ["&[f64]", "&mut [f64]"]
    p = "_Z5daxpyidPKdPd_param_"
    # Multiples of 1/8 times -1.375: exact products, so the fused and the
    # separate multiply-add agree.
    x = np.arange(256, dtype=np.float64) / 8 - 16
    y = np.ones(256)
    daxpy.launch(4, 64, {p + "0": 200, p + "1": -1.375, p + "2": x, p + "3": y})
    np.testing.assert_array_equal(y, np.where(np.arange(256) < 200, -1.375 * x + 1, 1))
    with pytest.raises(TypeError, match="float64"):
        daxpy.launch(4, 64, {p + "0": 200, p + "1": 2.0, p + "2": x.astype(np.float32), p + "3": y})
    # A double takes an int as the double it is.
    y = np.ones(256)
    daxpy.launch(4, 64, {p + "0": 200, p + "1": 2, p + "2": x, p + "3": y})
    np.testing.assert_array_equal(y, np.where(np.arange(256) < 200, 2 * x + 1, 1))

    mix = kernels["mix_u64"]
    x = np.arange(64, dtype=np.uint64) * np.uint64(0x100000001)
    out = np.zeros(64, dtype=np.uint64)
    mix.launch(1, 64, [x, out, 64])
    z = x + np.uint64(0x9E3779B97F4A7C15) * (np.arange(64, dtype=np.uint64) + np.uint64(1))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    np.testing.assert_array_equal(out, z ^ (z >> np.uint64(31)))
