"""Throughput of a sweep of 1,000 launches (one thread each): in this
process, on a local Dask cluster of one single-threaded worker process, and
on one of two. Prints launches per second and the ratios; run it by hand
(`python3 simt-python/benches/cluster.py [LAUNCHES]`), not in the test suite.
"""

import sys
import time

import numpy as np
from dask import distributed

import simt

SAXPY = """
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
}"""

N = 1 << 16


def args(point):
    return {"x": np.ones(N, np.float32), "y": np.ones(N, np.float32), "a": float(point["k"]), "n": N}


def run(launches, client=None):
    over = {"k": range(launches), "threads": [1]}
    start = time.perf_counter()
    records = simt.sweep(SAXPY, over, grid=N // 256, block=256, args=args, client=client, progress=False)
    return records, launches / (time.perf_counter() - start)


def main():
    launches = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    run(20)  # warm up: the compile, numpy's first allocations
    local, here = run(launches)
    print(f"in process:          {here:8.1f} launches/s")
    rates = {}
    for workers in (1, 2):
        with distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster, distributed.Client(cluster) as client:
            run(min(launches, 20), client)  # warm up: imports and the compile
            records, rates[workers] = run(launches, client)
            assert records == local, "the cluster's records differ from the local run's"
        print(f"{workers} worker{'s' if workers > 1 else ' '} (Dask):    {rates[workers]:8.1f} launches/s")
    print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x; 2 workers / in process: {rates[2] / here:.2f}x")


if __name__ == "__main__":
    main()
