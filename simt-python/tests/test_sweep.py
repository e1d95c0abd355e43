"""Sweeps: every point launched once, in order, with the counters a single
launch gives; on a local Dask cluster of two workers, the same records."""

import numpy as np

import simt

STRIDED = """
kernel strided_copy(src: &[u32], out: &mut [u32], stride: u32) {
    vreg i, x;
    v_mul_u32 i, global_id, stride
    global_load x, src[i]
    global_store out[global_id], x
}"""

OVER = {"stride": [0, 1, 2, 16, 32], "wave_width": [32, 64], "model": ["reference", "nvidia"]}


def strided_args(point):
    return {
        "src": np.arange(64 * 32, dtype=np.uint32),
        "out": np.zeros(64, dtype=np.uint32),
        "stride": point["stride"],
    }


def test_points_vary_the_last_axis_fastest():
    assert simt.points({"a": [1, 2], "b": "xy"}) == [
        {"a": 1, "b": "x"},
        {"a": 1, "b": "y"},
        {"a": 2, "b": "x"},
        {"a": 2, "b": "y"},
    ]


def test_a_sweep_is_its_launches():
    records = simt.sweep(STRIDED, OVER, grid=1, block=64, args=strided_args, progress=False)
    assert [{k: r[k] for k in OVER} for r in records] == simt.points(OVER)
    kernel = simt.compile(STRIDED)
    for r in records:
        options = {"wave_width": r["wave_width"], "model": r["model"]}
        stats = kernel.launch(1, 64, strided_args(r), **options)
        assert r["global_transactions"] == stats.counters.global_transactions
        assert r["instructions"] == stats.counters.instructions
        assert r["waves"] == 64 // r["wave_width"]
    # Hand-computed under the reference model (64-byte lines): a wave32 load
    # at stride 1 takes 2 lines per wave, two waves; the stores the same.
    at = {(r["stride"], r["wave_width"], r["model"]): r for r in records}
    assert at[(1, 32, "reference")]["global_transactions"] == 2 * 2 + 2 * 2


def test_a_sweep_with_a_part_has_estimates():
    records = simt.sweep(
        STRIDED, {"stride": [1, 16], "part": ["h100-sxm/2"]}, grid=1, block=64, args=strided_args, progress=False
    )
    assert all(r["estimate_cycles"] > 0 for r in records)
    # The two waves of one workgroup keep no resource busy: latency limits them.
    assert [r["limited_by"] for r in records] == ["latency", "latency"]


def test_a_sweep_on_a_local_dask_cluster_gives_the_same_records():
    import sys

    import cloudpickle
    from dask import distributed

    # The workers cannot import this test module: its functions travel by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    local = simt.sweep(STRIDED, OVER, grid=1, block=64, args=strided_args, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        remote = simt.sweep(STRIDED, OVER, grid=1, block=64, args=strided_args, client=client, progress=False)
        workers = set(client.run(lambda: 1))
    assert remote == local
    assert len(workers) == 2


def test_simt_sweep_writes_the_records_python_gives(tmp_path):
    import json
    import subprocess
    from pathlib import Path

    # The `simt` command `cargo test --workspace` built (as `.ci/run` does
    # before this suite), or the one `SIMT_CLI` names.
    import os

    cli = os.environ.get("SIMT_CLI") or str(Path(__file__).resolve().parents[2] / "target" / "debug" / "simt")
    assert Path(cli).is_file(), f"build the simt command first (cargo build -p simt-cli): {cli}"
    (tmp_path / "strided.simt").write_text(STRIDED)
    over = {"wave_width": [32, 64], "model": ["reference", "nvidia"], "stride": [0, 1, 16]}
    common = ["--groups", "1", "--size", "64", "--buffer", "src=iota:2048", "--buffer", "out=zeros:64"]
    out = subprocess.run(
        [cli, "sweep", "strided.simt", *common, "--width", "32,64", "--model", "reference,nvidia", "--arg", "stride=0,1,16"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    records = simt.sweep(STRIDED, over, grid=1, block=64, args=strided_args, progress=False)
    assert len(lines) == len(records) == 12
    assert lines == records
    timed = subprocess.run(
        [cli, "sweep", "strided.simt", *common, "--part", "h100-sxm/2", "--arg", "stride=1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (line,) = [json.loads(line) for line in timed.splitlines()]
    (record,) = simt.sweep(STRIDED, {"part": ["h100-sxm/2"], "stride": [1]}, grid=1, block=64, args=strided_args, progress=False)
    assert line == record
    assert line["part"] == "h100-sxm/2" and line["model"] == "nvidia"
