//! The timing model against figures computed by hand from the part's
//! figures: a dependent chain waits the ALU latency per instruction, more
//! waves per scheduler hide it, a streaming kernel runs at the DRAM
//! bandwidth (a load not queued behind write-backs), a conflicted LDS access
//! costs its conflict cycles, updates of
//! one atomic address serialize, a barrier waits for the slowest wave; and
//! its errors.

use simt_core::{
    launch, Arg, Bound, Error, LaunchConfig, LaunchErrorKind, MemoryModel, Part, Stats, Timing,
};

fn kernel(src: &str) -> simt_core::Kernel {
    simt_front::compile(src).unwrap_or_else(|e| panic!("{e}"))
}

fn timed(src: &str, grid: u32, size: u32, part: Part, args: &mut [Arg<'_>]) -> Timing {
    let k = kernel(src);
    let config = LaunchConfig::new([grid, 1, 1], [size, 1, 1]).timing(part);
    let stats: Stats = launch(&k, &config, args).unwrap_or_else(|e| panic!("{e}"));
    stats.timing.expect("a timed launch has a timing")
}

/// One SM of an H100: its per-SM figures, a 132th of its L2 and DRAM
/// bandwidth; without a launch's fixed cost or an operand limit, and with
/// written bytes as fast as read ones, so that each mechanism below is
/// seen alone (the tests at the end add them back).
fn sm() -> Part {
    let mut part = Part::h100_sxm().scaled(1);
    part.clocks.launch_cycles = 0;
    part.clocks.operand_reads_per_cycle = 0;
    part.clocks.dram_write_pct = part.clocks.dram_read_pct;
    part
}

const CHAIN: &str = "kernel chain(out: &mut [u32]) {
    vreg v;
    v_mov v, 0
    v_add_u32 v, v, 1
    v_add_u32 v, v, 1
    v_add_u32 v, v, 1
    v_add_u32 v, v, 1
    v_add_u32 v, v, 1
}";

#[test]
fn a_dependent_chain_waits_the_alu_latency_per_instruction() {
    let mut out = vec![0u32; 32];
    let t = timed(CHAIN, 1, 32, sm(), &mut [Arg::buffer_mut(&mut out)]);
    let latency = f64::from(sm().clocks.alu_latency);
    // `v_mov` issues at 0, each add `latency` after the one before (the
    // fifth at 5 * latency), `end` the cycle after it: 5 * latency + 2.
    assert_eq!(t.cycles, 5.0 * latency + 2.0);
    assert_eq!(t.stalls.issuing, 7.0);
    // Each add waited `latency - 1` cycles past its predecessor's issue.
    assert_eq!(t.stalls.dependency, 5.0 * (latency - 1.0));
    assert_eq!(t.stalls.not_selected, 0.0);
    assert_eq!(t.per_instruction[1].dependency, latency - 1.0);
    // One wave of the SM's 64 slots.
    assert_eq!(t.achieved_occupancy, 1.0 / 64.0);
    assert_eq!(t.bound(), Bound::Latency);
}

#[test]
fn waves_on_one_scheduler_hide_the_latency() {
    let latency = sm().clocks.alu_latency;
    assert_eq!(latency, 4, "the figures below take a latency of 4");
    // 16 waves over 4 schedulers: 4 each, and a chain instruction's result
    // is ready exactly when its wave's turn comes again. Each scheduler
    // issues its 4 x 7 instructions back to back.
    let mut out = vec![0u32; 512];
    let t = timed(CHAIN, 1, 512, sm(), &mut [Arg::buffer_mut(&mut out)]);
    assert_eq!(t.cycles, 28.0);
    assert_eq!(t.utilization.issue, 1.0);
    assert_eq!(t.bound(), Bound::Issue);
    // Two waves each: a wave's add is ready 4 cycles after the one before,
    // while the scheduler's two waves fill only two of them: the second
    // wave's last add issues at 4 * 5 + 1, the first wave's `end` at 22,
    // the second's at 23, done at 24.
    let t = timed(CHAIN, 1, 256, sm(), &mut [Arg::buffer_mut(&mut out)]);
    assert_eq!(t.cycles, 24.0);
    // 8 waves x 7 issues over 4 schedulers x 24 cycles.
    assert_eq!(t.utilization.issue, 56.0 / (4.0 * 24.0));
}

const COPY: &str = "kernel copy(src: &[f32], dst: &mut [f32]) {
    vreg v;
    global_load v, src[global_id]
    global_store dst[global_id], v
}";

#[test]
fn a_streaming_copy_runs_at_the_dram_bandwidth() {
    let n = 1 << 16;
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let part = sm();
    let t = timed(
        COPY,
        (n / 256) as u32,
        256,
        part.clone(),
        &mut [Arg::buffer(&src), Arg::buffer_mut(&mut dst)],
    );
    // Every byte read and written once crosses DRAM: 8 bytes per item at
    // 91% of 3,350 GB/s / 132 SMs / 1,980 MHz, 11.7 bytes per cycle.
    let floor = (8 * n) as f64 / part.clocks.dram_bytes_per_cycle();
    assert!(t.cycles >= floor, "{} < {floor}", t.cycles);
    assert!(t.cycles < 1.05 * floor, "{} vs {floor}", t.cycles);
    assert_eq!(t.bound(), Bound::Dram);
    assert!(t.utilization.dram > 0.95);
    // The waves wait on their loads, and at their end for their stores.
    let waiting = t.stalls.total() - t.stalls.issuing - t.stalls.not_selected;
    assert!(
        t.stalls.global + t.stalls.drain > 0.95 * waiting,
        "{:?}",
        t.stalls
    );
    // Twice the grid, twice the time.
    let n2 = 2 * n;
    let src = vec![1.0f32; n2];
    let mut dst = vec![0.0f32; n2];
    let t2 = timed(
        COPY,
        (n2 / 256) as u32,
        256,
        part,
        &mut [Arg::buffer(&src), Arg::buffer_mut(&mut dst)],
    );
    let ratio = t2.cycles / t.cycles;
    assert!((1.95..2.05).contains(&ratio), "{ratio}");
}

/// Each lane stores to LDS word `lane * stride`, eight times.
fn lds_stores(stride: u32) -> String {
    let store = "lds_store tile[v], local_id\n".repeat(8);
    format!(
        "kernel lds(out: &mut [u32]) {{
            lds tile: [u32; 1024];
            vreg v;
            v_mul_u32 v, local_id, {stride}
            {store}
        }}"
    )
}

#[test]
fn a_conflicted_lds_access_costs_its_conflict_cycles() {
    let mut out = vec![0u32; 32];
    let mut time = |stride| {
        let src = lds_stores(stride);
        let mut args = [Arg::buffer_mut(&mut out)];
        // Eight workgroups of one wave each on one SM: the SM's LDS serves
        // 64 stores.
        let k = kernel(&src);
        let config = LaunchConfig::new([8, 1, 1], [32, 1, 1]).timing(sm());
        launch(&k, &config, &mut args).unwrap().timing.unwrap()
    };
    let (plain, conflicted) = (time(1), time(32));
    // Stride 1: one cycle per store. Stride 32: every lane in bank 0, 32
    // cycles per store; 64 stores keep the LDS busy 2,048 cycles.
    assert_eq!(plain.utilization.lds * plain.cycles, 64.0);
    assert_eq!(conflicted.utilization.lds * conflicted.cycles, 64.0 * 32.0);
    assert!(conflicted.cycles >= 2048.0 && conflicted.cycles < 2048.0 + 100.0);
    assert_eq!(conflicted.bound(), Bound::Lds);
    assert!(conflicted.stalls.lds_throttle > 10.0 * plain.stalls.lds_throttle);
}

#[test]
fn updates_of_one_address_serialize() {
    let src = "kernel count(total: &mut [u32], spread: u32) {
        vreg at;
        v_mul_u32 at, global_id, spread
        global_atomic_add_u32 total[at], 1
    }";
    let run = |spread: u32| {
        let mut total = vec![0u32; 4096 * 32];
        let t = timed(
            src,
            16,
            256,
            sm(),
            &mut [Arg::buffer_mut(&mut total), Arg::U32(spread)],
        );
        (t, total.iter().sum::<u32>())
    };
    let (one, sum) = run(0);
    assert_eq!(sum, 4096);
    let (spread, _) = run(1);
    // 4,096 updates of one address at 2 cycles each.
    assert!(one.cycles >= 8192.0, "{}", one.cycles);
    assert_eq!(one.bound(), Bound::Atomics);
    assert!(
        one.cycles > 4.0 * spread.cycles,
        "{} vs {}",
        one.cycles,
        spread.cycles
    );
}

#[test]
fn a_barrier_waits_for_the_slowest_wave() {
    // Wave 0 runs a chain of five adds before the barrier, wave 1 nothing.
    let src = "kernel wait(out: &mut [u32]) {
        vreg v;
        mreg first;
        v_mov v, 0
        v_cmp_lt_u32 first, local_id, 32
        if first
            v_add_u32 v, v, 1
            v_add_u32 v, v, 1
            v_add_u32 v, v, 1
            v_add_u32 v, v, 1
            v_add_u32 v, v, 1
        endif
        barrier
    }";
    let mut out = vec![0u32; 64];
    let t = timed(src, 1, 64, sm(), &mut [Arg::buffer_mut(&mut out)]);
    // Both waves: `v_mov` at 0, `v_cmp` at 1, `if` at 5 (the mask is ready
    // 4 cycles after the compare). Wave 0: the adds at 6, 10, 14, 18, 22,
    // `endif` at 23, `barrier` at 24, arriving at 25. Wave 1: `endif` at 6,
    // `barrier` at 7, arriving at 8. The release comes at 25 plus the
    // barrier latency (20), both `end`s issue then, done a cycle later.
    let release = 25.0 + f64::from(sm().clocks.barrier_latency);
    assert_eq!(t.cycles, release + 1.0);
    assert_eq!(t.stalls.barrier, (release - 25.0) + (release - 8.0));
    // The barrier stalls are charged to the instruction after it.
    assert_eq!(t.per_instruction.last().unwrap().barrier, t.stalls.barrier);
}

#[test]
fn timing_is_the_same_on_any_thread_count_and_refuses_a_foreign_model() {
    let n = 1 << 12;
    let src = vec![1.0f32; n];
    let k = kernel(COPY);
    let config = LaunchConfig::new([(n / 256) as u32, 1, 1], [256, 1, 1]).timing(sm());
    let run = |config: &LaunchConfig| {
        let mut dst = vec![0.0f32; n];
        launch(
            &k,
            config,
            &mut [Arg::buffer(&src), Arg::buffer_mut(&mut dst)],
        )
    };
    let one = run(&config.clone().threads(1)).unwrap();
    let four = run(&config.clone().threads(4)).unwrap();
    assert_eq!(one.timing, four.timing);
    assert!(one.timing.is_some());
    let foreign = config.clone().model(MemoryModel::reference());
    match run(&foreign) {
        Err(Error::Launch(e)) => assert!(matches!(e.kind, LaunchErrorKind::Part { .. }), "{e}"),
        other => panic!("{other:?}"),
    }
    let mut broken = sm();
    broken.clocks.clock_mhz = 0;
    match run(&config.clone().timing(broken)) {
        Err(Error::Launch(e)) => {
            assert!(
                e.to_string().contains("clock_mhz must be at least 1"),
                "{e}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_timed_launch_faults_and_runs_out_of_budget_as_any_launch() {
    let k = kernel(
        "kernel past(out: &mut [u32]) {
            vreg at;
            v_add_u32 at, global_id.x, 1000
            global_store out[at], 1
        }",
    );
    let mut out = vec![0u32; 64];
    let config = LaunchConfig::new([2, 1, 1], [32, 1, 1]).timing(sm());
    match launch(&k, &config, &mut [Arg::buffer_mut(&mut out)]) {
        Err(Error::Fault(f)) => {
            assert_eq!((f.kernel.as_str(), f.wave), ("past", 0));
            assert!(matches!(
                f.kind,
                simt_core::FaultKind::GlobalOutOfBounds { .. }
            ));
        }
        other => panic!("{other:?}"),
    }
    let k = kernel(CHAIN);
    let config = config.instruction_budget(3);
    match launch(&k, &config, &mut [Arg::buffer_mut(&mut out)]) {
        Err(Error::Fault(f)) => {
            assert!(matches!(
                f.kind,
                simt_core::FaultKind::BudgetExceeded { .. }
            ))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_launch_costs_its_fixed_cycles_on_top() {
    let mut out = vec![0u32; 32];
    let mut part = sm();
    let bare = timed(CHAIN, 1, 32, part.clone(), &mut [Arg::buffer_mut(&mut out)]);
    part.clocks.launch_cycles = 1000;
    let t = timed(CHAIN, 1, 32, part, &mut [Arg::buffer_mut(&mut out)]);
    assert_eq!(t.cycles, bare.cycles + 1000.0);
    // The shares of the peaks are over the waves' time, as without it.
    assert_eq!(t.utilization.issue, bare.utilization.issue);
}

/// Five dependent multiply-adds reading three registers each (or, with
/// `imm`, two and an immediate).
fn fmas(imm: bool) -> String {
    let c = if imm { "2.0" } else { "c" };
    let body = format!("v_fma_f32 v, v, {c}, w\n").repeat(5);
    format!(
        "kernel fmas(out: &mut [u32]) {{
            vreg v, w, c;
            v_mov v, 1.0
            v_mov w, 0.5
            v_mov c, 2.0
            {body}
        }}"
    )
}

#[test]
fn an_instruction_reading_three_registers_issues_over_two_cycles() {
    let mut part = sm();
    part.clocks.operand_reads_per_cycle = 2;
    let mut out = vec![0u32; 512];
    // 16 waves, 4 per scheduler: issue-bound. Each scheduler issues its
    // waves' 3 moves (1 cycle), 5 FMAs (2 cycles with three registers at
    // two a cycle, 1 with two) and `end`: 4 x 14 or 4 x 9 cycles.
    let three = timed(
        &fmas(false),
        1,
        512,
        part.clone(),
        &mut [Arg::buffer_mut(&mut out)],
    );
    let two = timed(&fmas(true), 1, 512, part, &mut [Arg::buffer_mut(&mut out)]);
    assert_eq!(three.issue_cycles, 16.0 * 14.0);
    assert_eq!(two.issue_cycles, 16.0 * 9.0);
    assert!(
        three.cycles >= 4.0 * 14.0 && three.cycles < 4.0 * 14.0 + 8.0,
        "{}",
        three.cycles
    );
}

#[test]
fn written_bytes_take_the_write_share_of_the_bandwidth() {
    let n = 1 << 16;
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let mut part = sm();
    part.clocks.dram_write_pct = part.clocks.dram_read_pct / 2;
    let t = timed(
        COPY,
        (n / 256) as u32,
        256,
        part.clone(),
        &mut [Arg::buffer(&src), Arg::buffer_mut(&mut dst)],
    );
    // 4 bytes read per item, and 4 written at twice a read byte's time (the
    // last write-backs may end after the waves do: within 3%).
    let floor = (4 * n + 2 * 4 * n) as f64 / part.clocks.dram_bytes_per_cycle();
    assert!(t.cycles >= 0.97 * floor, "{} < {floor}", t.cycles);
    assert!(t.cycles < 1.05 * floor, "{} vs {floor}", t.cycles);
    assert!(t.utilization.dram > 0.95);
}

#[test]
fn a_read_does_not_queue_behind_write_backs() {
    // Eight waves store 64 rows of 256 words (64 KB to write back), then
    // each loads one word: the write-backs wait in the L2 while the loads
    // are served, and are written before the launch ends.
    let mut src = String::from(
        "kernel w(src: &[u32], dst: &mut [u32]) {
    vreg v, at;
",
    );
    for row in 0..64 {
        src.push_str(&format!(
            "    v_add_u32 at, global_id.x, {}\n    global_store dst[at], global_id.x\n",
            row * 256
        ));
    }
    src.push_str("    global_load v, src[global_id.x]\n    global_store dst[global_id.x], v\n}");
    let input = vec![1u32; 256];
    let mut out = vec![0u32; 64 * 256];
    let part = sm();
    let c = part.clocks.clone();
    let t = timed(
        &src,
        1,
        256,
        part.clone(),
        &mut [Arg::buffer(&input), Arg::buffer_mut(&mut out)],
    );
    // 64 KB written and 1 KB read at 11.7 bytes per cycle: 5,700 cycles of
    // bus time, which the launch takes.
    let bus = (64 * 1024 + 1024) as f64 / c.dram_bytes_per_cycle();
    assert!(t.cycles >= bus, "{} < {bus}", t.cycles);
    assert!(t.cycles < 1.1 * bus, "{} vs {bus}", t.cycles);
    // Each wave's load waited its latencies, the L2's queue (every store
    // passes it) and the 1 KB of reads, not the write-backs queued ahead of
    // it on the DRAM bus.
    let per_wave = t.stalls.global / 8.0;
    let bound = f64::from(c.l1_latency + c.l2_latency + c.dram_latency)
        + (64 * 1024 + 1024) as f64 / f64::from(c.l2_bytes_per_cycle)
        + 1024.0 / c.dram_bytes_per_cycle();
    assert!(per_wave < bound, "{per_wave} >= {bound}");
    assert!(
        bus > 1.5 * bound,
        "the test needs the write-backs to dominate"
    );
}
