//! `print`: the lines of a launch, in the order and under the cap the
//! language reference states, worked out by hand; a `print` changes no
//! counter; the lines are the same on one thread or several and on either
//! engine.

use simt::core::{Engine, LaunchConfig, Prints, Schedule, Stats};
use simt::simt_kernel;

simt_kernel! {
    /// Two prints per lane: before and after the stores.
    kernel twice(out: &mut [u32], k: i32) {
        vreg i;
        v_mov i, global_id.x
        print "a {} {i}", i, k;
        global_store out[i], i
        print "b {x}", wave_id;
    }

    /// The stores of `twice` alone.
    kernel quiet(out: &mut [u32], k: i32) {
        vreg i;
        v_mov i, global_id.x
        global_store out[i], i
    }

    /// Lanes below 3 print under an `if`; a loop prints `n` times per lane.
    kernel divergent(n: u32) {
        vreg t, f;
        mreg low, more;
        v_cmp_lt_u32 low, lane_id, 3
        if low
            v_cvt_f32_u32 f, lane_id
            v_mul_f32 f, f, 0.5
            print "low {f} {{ok}}", f;
        endif
        v_mov t, 0
        loop
            print "t={}", t;
            v_add_u32 t, t, 1
            v_cmp_lt_u32 more, t, n
        endloop more
    }
}

fn texts(p: &Prints) -> Vec<String> {
    p.lines.iter().map(|l| l.text.clone()).collect()
}

/// `twice` over up to 64 workgroups of 40 work-items.
fn run_twice(config: &LaunchConfig) -> Stats {
    let mut out = vec![0u32; 64 * 40];
    twice::launch(config, &mut out, -7).unwrap()
}

/// Two workgroups of 40 work-items at wave32: waves of 32 and 8 lanes.
fn forty(schedule: Schedule) -> LaunchConfig {
    LaunchConfig::new([2, 1, 1], [40, 1, 1])
        .wave_width(32)
        .schedule(schedule)
}

#[test]
fn lines_follow_workgroups_then_issues_then_lanes() {
    let stats = run_twice(&forty(Schedule::UntilBarrier));
    let mut want = Vec::new();
    // Until a barrier (there is none), wave 0 runs to its end before wave 1.
    for g in 0..2u32 {
        for (w, lanes) in [(0u32, 32u32), (1, 8)] {
            for l in 0..lanes {
                let i = g * 40 + w * 32 + l;
                want.push(([g, 0, 0], w, l, format!("a {i} -7")));
            }
            for l in 0..lanes {
                want.push(([g, 0, 0], w, l, format!("b {w:#x}")));
            }
        }
    }
    let got: Vec<_> = stats
        .prints
        .lines
        .iter()
        .map(|p| (p.workgroup, p.wave, p.lane, p.text.clone()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(stats.prints.dropped, 0);
    // The second print is written two lines below the first.
    let lines: Vec<u32> = stats.prints.lines.iter().map(|p| p.line).collect();
    assert_eq!(lines[0], lines[31]);
    assert_eq!(lines[32], lines[0] + 2);
}

#[test]
fn round_robin_interleaves_the_waves_issues() {
    let stats = run_twice(&forty(Schedule::RoundRobin));
    // One instruction per turn: both waves print `a` before either prints `b`.
    let first: Vec<(u32, char)> = stats.prints.lines[..80]
        .iter()
        .map(|p| (p.wave, p.text.chars().next().unwrap()))
        .collect();
    let mut want = vec![(0, 'a'); 32];
    want.extend([(1, 'a'); 8]);
    want.extend([(0, 'b'); 32]);
    want.extend([(1, 'b'); 8]);
    assert_eq!(first, want);
}

#[test]
fn a_print_counts_in_no_counter() {
    let config = forty(Schedule::UntilBarrier);
    let printing = run_twice(&config);
    let mut out = vec![0u32; 80];
    let plain = quiet::launch(&config, &mut out, -7).unwrap();
    assert_eq!(printing.totals, plain.totals);
    assert_eq!(
        printing.active_lanes_histogram,
        plain.active_lanes_histogram
    );
    // The per-instruction counters of the prints are all zero.
    let program = &twice::PROGRAM;
    for (c, inst) in printing.per_instruction.iter().zip(program.insts.iter()) {
        if matches!(inst, simt::core::Inst::Print { .. }) {
            assert_eq!(*c, simt::core::Counters::default());
        }
    }
}

#[test]
fn only_active_lanes_print_and_a_loop_is_capped() {
    // One wave of 64: lanes 0..3 print once under the `if`; every lane prints
    // in each of 20 iterations: 3 + 64 * 20 = 1,283 lines, of which the first
    // 1,024 are kept.
    let config = LaunchConfig::new([1, 1, 1], [64, 1, 1]).wave_width(64);
    let stats = divergent::launch(&config, 20).unwrap();
    let p = &stats.prints;
    assert_eq!(p.lines.len(), simt::core::limits::MAX_PRINT_LINES);
    assert_eq!(p.dropped, 3 + 64 * 20 - 1024);
    assert_eq!(
        texts(p)[..3],
        ["low 0.0 {ok}", "low 0.5 {ok}", "low 1.0 {ok}"]
    );
    // Then 15 whole iterations of 64 lanes, and 61 lanes of the 16th.
    for (k, line) in p.lines[3..].iter().enumerate() {
        assert_eq!(line.text, format!("t={}", k / 64));
        assert_eq!(line.lane as usize, k % 64);
    }
    // A print takes a step of the budget: one too small for the loop faults.
    assert!(divergent::launch(&config.clone().instruction_budget(10), 20).is_err());
}

#[test]
fn lines_are_the_same_on_any_thread_count_and_engine() {
    let base = LaunchConfig::new([37, 1, 1], [40, 1, 1]).wave_width(32);
    let one = run_twice(&base.clone().threads(1));
    assert_eq!(one.prints.lines.len(), 1024);
    assert_eq!(one.prints.dropped, 37 * 80 - 1024);
    for config in [
        base.clone().threads(3),
        base.clone().threads(4),
        base.clone().engine(Engine::Interpreter),
        base.clone().engine(Engine::Interpreter).threads(3),
    ] {
        assert_eq!(run_twice(&config).prints, one.prints, "{config:?}");
    }
    let small = LaunchConfig::new([1, 1, 1], [8, 1, 1]);
    for threads in [1, 3] {
        let stats = divergent::launch(&small.clone().threads(threads), 2).unwrap();
        assert_eq!(stats.prints.lines.len(), 3 + 8 * 2);
    }
}

#[test]
fn prints_are_in_the_json_only_when_there_are_some() {
    let config = forty(Schedule::UntilBarrier);
    let json = serde_json::to_value(run_twice(&config)).unwrap();
    assert_eq!(json["prints"]["lines"][0]["text"], "a 0 -7");
    assert_eq!(json["prints"]["dropped"], 0);
    let mut out = vec![0u32; 80];
    let json = serde_json::to_value(quiet::launch(&config, &mut out, 0).unwrap()).unwrap();
    assert!(json.get("prints").is_none());
}
