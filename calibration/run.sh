#!/usr/bin/env bash
# Times CUDA versions of simt's studies and reference kernels on this
# machine's NVIDIA GPU and collects Nsight Compute counters for the same
# launches, for comparison with simt's counters and timing model.
#
#   calibration/run.sh [OUTDIR]   needs an NVIDIA GPU and nvcc; ncu if present
#   calibration/run.sh --check    only checks that seeds.cu compiles as C++
#                                 (with shim.h standing in for CUDA)
#
# Writes OUTDIR/timings.csv (median of 15 event-timed launches after 3
# warm-ups, one row per launch shape, then the seeds' relations as `#` lines),
# OUTDIR/ncu.csv and OUTDIR/stalls.csv (one profiled launch per shape),
# OUTDIR/device.txt, and with cargo OUTDIR/beside.md (the measured relations
# beside the timing model's, beside.py) and OUTDIR/model-beside.md (every row
# beside the model's estimate on this part, and simt's counters beside ncu's:
# the `calibration` example of simt-kernels). Finishes within 10 minutes on an
# H200.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = --check ]; then
    exec "${CXX:-g++}" -std=c++17 -fsyntax-only -Wall -Wextra -Werror \
        -DSIMT_SHIM -I"$here" -x c++ "$here/seeds.cu"
fi

out=${1:-$here/out}
mkdir -p "$out"
{
    nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv
    nvcc --version | tail -n 2
} >"$out/device.txt" 2>&1
cat "$out/device.txt"

cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
nvcc -O3 -lineinfo -arch="sm_${cap:-90}" -o "$out/seeds" "$here/seeds.cu" || exit 1
timeout 180 "$out/seeds" | tee "$out/timings.csv" || exit 1

# The timing model's figures for the same claims, beside the measured ones
# (needs cargo; the time studies take seconds once built).
if command -v cargo >/dev/null; then
    studies=kway_time,predication_time,warp_split_time,l1_trio_time,atomics_time,conflict_time
    (cd "$here/.." && timeout 300 cargo run --release -q -p simt-kernels --bin report -- \
        --kernels vecadd_f32 --width 32 --launches 1 --studies "$studies" \
        --out "$out/model.json" >/dev/null)
    python3 "$here/beside.py" "$out/timings.csv" "$out/model.json" | tee "$out/beside.md"
fi

ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -z "$ncu" ]; then
    echo "ncu not found: no counters" | tee "$out/ncu.csv"
    exit 0
fi
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
timeout 150 "$ncu" --clock-control none --csv --metrics "$metrics" "$out/seeds" --once >"$out/ncu.csv" 2>&1
echo "ncu exit $?; $(wc -l <"$out/ncu.csv") lines"
stalls=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
timeout 100 "$ncu" --clock-control none --csv --metrics "$stalls" "$out/seeds" --once >"$out/stalls.csv" 2>&1
echo "ncu stalls exit $?; $(wc -l <"$out/stalls.csv") lines"

# Every row beside the timing model on this part, with simt's counters
# beside ncu's (the H200's fitted figures, checked on this GPU's rows).
if command -v cargo >/dev/null; then
    (cd "$here/.." && timeout 240 cargo run --release -q -p simt-kernels --example calibration -- \
        --dir "$out") | tee "$out/model-beside.md"
fi
