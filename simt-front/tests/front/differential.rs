//! The differential property: generated kernels run by the interpreter agree
//! with `simt_oracle`, a plain reference evaluator, on every output byte and
//! every counter both define.
//!
//! A kernel is built as IR first, in the generator's own register numbering
//! (`generate`), then printed as kernel text with about half of its registers
//! named, and that text goes through this crate's parser and checker to give
//! the kernel the interpreter runs. The oracle runs the original IR. So a front
//! end that compiles a kernel to something other than what was written shows
//! up as a difference too, not only an interpreter that runs it wrongly.
//!
//! Each kernel runs at wave32 and wave64, on 1, 2 and 7 threads, over one of
//! several grid and workgroup shapes (most with a partial last wave), under the
//! reference, NVIDIA or CDNA3 geometry and either schedule.

use crate::generate::{generate, generate_faulty, Generated, BUFFERS, SCALARS};
use crate::roundtrip::seeded;
use proc_macro2::TokenStream;
use proptest::prelude::*;
use simt_core::{Arg, Engine, LaunchConfig, MemoryModel, Schedule};
use simt_front as front;
use simt_lang::{Kernel, ParamKind, ScalarType};
use simt_oracle::{Geometry, Launch, Value};
use std::collections::BTreeSet;

/// Parses and checks `src` as the macro does; the errors as text.
pub(crate) fn compile(src: &str) -> Result<Kernel, String> {
    let tokens: TokenStream = src.parse().map_err(|e| format!("{e:?}"))?;
    let (parsed, errors) = front::parse(tokens);
    let mut messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    for p in &parsed {
        messages.extend(p.errors.iter().map(|e| e.to_string()));
    }
    match (parsed.as_slice(), messages.is_empty()) {
        ([p], true) => front::check(&p.kernel).map_err(|errors| {
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        }),
        _ => Err(messages.join("\n")),
    }
}

/// (grid, workgroup): most leave the last wave partial at one width or both.
pub(crate) const SHAPES: &[([u32; 3], [u32; 3])] = &[
    ([1, 1, 1], [48, 1, 1]),
    ([2, 1, 1], [20, 1, 1]),
    ([2, 2, 1], [8, 3, 2]),
    ([3, 1, 1], [64, 1, 1]),
    ([1, 1, 1], [100, 1, 1]),
    ([1, 2, 1], [1, 1, 1]),
    ([2, 1, 1], [40, 2, 1]),
];

const THREADS: &[usize] = &[1, 2, 7];

/// One launch of a kernel: where the choices fall.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Setup {
    pub(crate) shape: ([u32; 3], [u32; 3]),
    pub(crate) width: u32,
    pub(crate) model: &'static str,
    pub(crate) schedule: Schedule,
    pub(crate) seed: u64,
    /// The instruction budget of the launch.
    pub(crate) budget: u64,
}

pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The arguments of a launch: buffers of mostly random words with many small
/// ones (so that compare-exchanges both succeed and fail), and scalars.
fn inputs(seed: u64) -> Vec<Value> {
    let mut out = Vec::new();
    for (b, &(_, elem, _, len)) in BUFFERS.iter().enumerate() {
        let bytes = (len * elem.size()) as usize;
        let words = (0..bytes / 4).flat_map(|i| {
            let x = mix(seed ^ ((b as u64) << 40) ^ (i as u64).wrapping_mul(0x9e37_79b9));
            match x % 4 {
                0 => (x >> 8) as u32 % 4,
                1 => (((x >> 8) as u32 % 200) as f32 * 0.25).to_bits(),
                _ => (x >> 32) as u32,
            }
            .to_le_bytes()
        });
        out.push(Value::Buffer(words.collect()));
    }
    let x = mix(seed ^ 0x5ca1a);
    for &(_, ty) in SCALARS {
        out.push(Value::Scalar(match ty {
            ScalarType::U32 => (x % 9) as u32,
            ScalarType::I32 => (((x >> 8) % 9) as i32 - 4) as u32,
            ScalarType::F32 => (((x >> 16) % 16) as f32 - 7.5).to_bits(),
        }));
    }
    out
}

fn model(name: &str) -> MemoryModel {
    MemoryModel::preset(name).unwrap_or_default()
}

fn geometry(m: &MemoryModel) -> Geometry {
    Geometry {
        phase_lanes: m.phase_lanes,
        line_bytes: m.line_bytes,
        sector_bytes: m.sector_bytes,
        lds_banks: m.lds_banks,
        lds_bank_bytes: m.lds_bank_bytes,
    }
}

pub(crate) const BUDGET: u64 = 1 << 22;

/// How a launch both agree on ended.
pub(crate) enum Outcome {
    /// It ran to the end: the oracle's report.
    Ran(Box<simt_oracle::Report>),
    /// It faulted, the same way in both.
    Faulted(simt_oracle::FaultKind),
}

/// What the oracle makes of `g` under setup `s`: its report or fault, and the
/// arguments as it left them.
pub(crate) type Expected = (Result<simt_oracle::Report, simt_oracle::Fault>, Vec<Value>);

/// Runs `g`'s IR on the oracle under setup `s`.
pub(crate) fn expect(g: &Generated, s: Setup) -> Expected {
    let (grid, workgroup) = s.shape;
    let mm = model(s.model);
    let launch = Launch {
        grid,
        workgroup,
        wave_width: s.width,
        geometry: geometry(&mm),
        schedule: match s.schedule {
            Schedule::UntilBarrier => simt_oracle::Schedule::UntilBarrier,
            Schedule::RoundRobin => simt_oracle::Schedule::RoundRobin,
        },
        budget: s.budget,
    };
    let mut expected = inputs(s.seed);
    let report = simt_oracle::run(&g.program, &launch, &mut expected);
    (report, expected)
}

/// What a launch left: its statistics or error, and its arguments.
pub(crate) type Launched = (Result<simt_core::Stats, simt_core::Error>, Vec<Value>);

/// Launches `kernel` under setup `s` with `threads` on `engine`.
pub(crate) fn launch(kernel: &Kernel, s: Setup, threads: usize, engine: Engine) -> Launched {
    let (grid, workgroup) = s.shape;
    let mut actual = inputs(s.seed);
    let config = LaunchConfig::new(grid, workgroup)
        .wave_width(s.width)
        .model(model(s.model))
        .schedule(s.schedule)
        .instruction_budget(s.budget)
        .threads(threads)
        .engine(engine);
    let params = &kernel.program().params;
    let mut args: Vec<Arg<'_>> = actual
        .iter_mut()
        .zip(params.iter())
        .map(|(v, p)| match (v, p.kind) {
            (Value::Buffer(bytes), ParamKind::Buffer { elem, writable }) => {
                if writable {
                    Arg::BufferMut { elem, bytes }
                } else {
                    Arg::Buffer { elem, bytes }
                }
            }
            (Value::Scalar(x), ParamKind::Scalar(ScalarType::U32)) => Arg::U32(*x),
            (Value::Scalar(x), ParamKind::Scalar(ScalarType::I32)) => Arg::I32(*x as i32),
            (Value::Scalar(x), _) => Arg::F32(f32::from_bits(*x)),
            (Value::Buffer(_), _) => Arg::U32(0),
        })
        .collect();
    let stats = simt_core::launch(kernel, &config, &mut args);
    drop(args);
    (stats, actual)
}

/// Runs `kernel` (compiled from `g`'s text) on the interpreter with `threads`
/// and compares it with what the oracle made of `g`'s IR; describes the first
/// difference.
fn compare(
    g: &Generated,
    kernel: &Kernel,
    s: Setup,
    threads: usize,
    expected: &Expected,
) -> Result<Outcome, String> {
    let launched = launch(kernel, s, threads, Engine::Interpreter);
    judge(g, kernel, s, expected, launched)
}

/// Compares what a launch of `kernel` (compiled from `g`'s text) under setup
/// `s` left with what the oracle made of `g`'s IR; describes the first
/// difference.
pub(crate) fn judge(
    g: &Generated,
    kernel: &Kernel,
    s: Setup,
    (report, expected): &Expected,
    (stats, actual): Launched,
) -> Result<Outcome, String> {
    let mm = model(s.model);
    same_bytes(expected, &actual)?;
    let (report, stats) = match (report, stats) {
        (Ok(r), Ok(s)) => (r, s),
        (Err(f), Err(simt_core::Error::Fault(e))) => {
            same_fault(f, &e, s.schedule)?;
            return Ok(Outcome::Faulted(f.kind.clone()));
        }
        (Err(f), Ok(_)) => {
            return Err(format!(
                "the oracle faults, the interpreter does not: {f:?}"
            ))
        }
        (Ok(_), Err(e)) => {
            return Err(format!(
                "the interpreter fails where the oracle does not: {e}"
            ))
        }
        (Err(f), Err(e)) => return Err(format!("the oracle faults ({f:?}), the interpreter: {e}")),
    };
    if (stats.workgroups, stats.waves) != (report.workgroups, report.waves) {
        return Err(format!(
            "workgroups and waves: oracle {:?}, interpreter {:?}",
            (report.workgroups, report.waves),
            (stats.workgroups, stats.waves)
        ));
    }
    if stats.active_lanes_histogram != report.histogram {
        return Err(format!(
            "active-lane histogram: oracle {:?}, interpreter {:?}",
            report.histogram, stats.active_lanes_histogram
        ));
    }
    let named = |c: &simt_core::Counters| c.fields();
    for (k, (o, i)) in report
        .per_instruction
        .iter()
        .zip(&stats.per_instruction)
        .enumerate()
    {
        let theirs = named(i);
        for (name, mine) in o.fields() {
            let value = theirs
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(u64::MAX, |x| x.1);
            if value != mine {
                return Err(format!(
                    "instruction {k} (`{}`): {name} is {mine} by the oracle, {value} by the interpreter",
                    g.program.display_inst(&g.program.insts[k])
                ));
            }
        }
    }
    let totals = report.totals();
    let theirs = named(&stats.totals);
    for (name, mine) in totals.fields() {
        let value = theirs
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(u64::MAX, |x| x.1);
        if value != mine {
            return Err(format!("total {name}: oracle {mine}, interpreter {value}"));
        }
    }
    same_prints(report, kernel, g, &stats.prints)?;
    if mm.l1.is_none() {
        let cached = (
            stats.totals.l1_hit_sectors,
            stats.totals.l1_miss_sectors,
            stats.totals.dram_sectors,
        );
        if cached != (0, 0, 0) {
            return Err(format!("cache counters without a cache: {cached:?}"));
        }
    }
    Ok(Outcome::Ran(Box::new(report.clone())))
}

/// Whether the interpreter kept the first lines the oracle printed, in its
/// order, with the same text, and counted the rest.
fn same_prints(
    report: &simt_oracle::Report,
    kernel: &Kernel,
    g: &Generated,
    prints: &simt_core::Prints,
) -> Result<(), String> {
    let kept = report.prints.len().min(simt_lang::limits::MAX_PRINT_LINES);
    let dropped = (report.prints.len() - kept) as u64;
    if (prints.lines.len(), prints.dropped) != (kept, dropped) {
        return Err(format!(
            "print lines kept and dropped: oracle {:?}, interpreter {:?}",
            (kept, dropped),
            (prints.lines.len(), prints.dropped)
        ));
    }
    for (k, (o, i)) in report.prints.iter().zip(&prints.lines).enumerate() {
        let text = match g.program.insts[o.inst] {
            simt_lang::Inst::Print { format, .. } => {
                simt_lang::render(&g.program.formats[usize::from(format.index)], &o.values)
            }
            _ => return Err(format!("oracle print {k} from a non-print")),
        };
        let line = kernel.program().locs[o.inst].line;
        let want = (o.workgroup, o.wave as u32, o.lane as u32, line, text);
        let got = (i.workgroup, i.wave, i.lane, i.line, i.text.clone());
        if want != got {
            return Err(format!(
                "print line {k}: oracle {want:?}, interpreter {got:?}"
            ));
        }
    }
    Ok(())
}

/// The first byte where the buffers the oracle and the interpreter left differ.
fn same_bytes(expected: &[Value], actual: &[Value]) -> Result<(), String> {
    for (k, (e, a)) in expected.iter().zip(actual).enumerate() {
        if let (Value::Buffer(e), Value::Buffer(a)) = (e, a) {
            if let Some(at) = e.iter().zip(a).position(|(x, y)| x != y) {
                let word = |b: &[u8]| {
                    let w = at & !3;
                    u32::from_le_bytes([b[w], b[w + 1], b[w + 2], b[w + 3]])
                };
                return Err(format!(
                    "buffer {} byte {at}: oracle {:#04x}, interpreter {:#04x} (words {:#010x} and {:#010x})",
                    BUFFERS[k].0,
                    e[at],
                    a[at],
                    word(e),
                    word(a)
                ));
            }
        }
    }
    Ok(())
}

/// Whether the interpreter's fault is the oracle's: kind, instruction,
/// workgroup, wave and lane.
///
/// Except for one known difference: when the budget runs out under the
/// round-robin schedule, the oracle faults the wave whose turn comes next (the
/// instruction that would exceed the budget), the interpreter the wave that
/// issued the last instruction of the budget, at its next instruction. The
/// documentation does not say which; only the kind and the workgroup are
/// compared then.
fn same_fault(
    mine: &simt_oracle::Fault,
    theirs: &simt_core::Fault,
    schedule: Schedule,
) -> Result<(), String> {
    use simt_core::FaultKind as K;
    use simt_oracle::FaultKind as O;
    let kind = match theirs.kind {
        K::GlobalOutOfBounds { .. } | K::LdsOutOfBounds { .. } => O::OutOfBounds,
        K::GlobalMisaligned { .. } | K::LdsMisaligned { .. } => O::Misaligned,
        K::BarrierPartialMask { .. } => O::BarrierPartialMask,
        K::BarrierStranded { .. } => O::BarrierStranded,
        K::BudgetExceeded { .. } => O::BudgetExceeded,
    };
    let attributed = kind == O::BudgetExceeded && schedule == Schedule::RoundRobin;
    let same = kind == mine.kind
        && theirs.workgroup == mine.workgroup
        && (attributed
            || (theirs.inst as usize == mine.inst
                && theirs.wave as usize == mine.wave
                && theirs.lane == mine.lane));
    if same {
        Ok(())
    } else {
        Err(format!(
            "faults differ: oracle {mine:?}, interpreter {theirs:?}"
        ))
    }
}

/// (mnemonic, wave width) pairs issued with some lanes inactive.
#[derive(Default)]
struct Coverage {
    /// With exec short of the wave width (a partial wave, or divergence).
    masked: BTreeSet<(&'static str, u32)>,
    /// With exec other than the wave's launch mask: lanes masked by control
    /// flow.
    diverged: BTreeSet<(&'static str, u32)>,
    /// The rarer paths each launch took.
    paths: Vec<simt_oracle::Paths>,
}

/// Compiles `g` and compares it with the oracle at both widths and every
/// thread count, under setups drawn from `seed`. With `budgets`, a launch's
/// instruction budget is now and then small, and faults (the same in both)
/// are allowed; their kinds are returned.
fn check_kernel(
    g: &Generated,
    seed: u64,
    coverage: &mut Coverage,
    budgets: bool,
) -> Result<Vec<simt_oracle::FaultKind>, String> {
    let text = g.text();
    let kernel = compile(&text)
        .map_err(|e| format!("the front end rejects a generated kernel:\n{e}\n{text}"))?;
    let mut faults = Vec::new();
    for width in [32, 64] {
        let r = mix(seed ^ u64::from(width));
        let setup = Setup {
            shape: SHAPES[(r % SHAPES.len() as u64) as usize],
            width,
            model: MemoryModel::PRESETS[((r >> 8) % 3) as usize],
            schedule: if (r >> 16).is_multiple_of(4) {
                Schedule::RoundRobin
            } else {
                Schedule::UntilBarrier
            },
            seed: r,
            budget: if budgets && (r >> 20).is_multiple_of(3) {
                20 + (r >> 24) % 400
            } else {
                BUDGET
            },
        };
        let expected = expect(g, setup);
        for &threads in THREADS {
            let outcome = compare(g, &kernel, setup, threads, &expected).map_err(|e| {
                format!("{e}\nwith {setup:?} on {threads} threads, kernel:\n{text}")
            })?;
            match outcome {
                Outcome::Ran(report) => {
                    for (k, m) in g.spellings.iter().enumerate() {
                        if report.masked_issues[k] > 0 {
                            coverage.masked.insert((m.name, width));
                        }
                        if report.diverged_issues[k] > 0 {
                            coverage.diverged.insert((m.name, width));
                        }
                    }
                    coverage.paths.push(report.paths);
                }
                Outcome::Faulted(kind) if budgets => faults.push(kind),
                Outcome::Faulted(kind) => {
                    return Err(format!(
                        "a generated kernel faults ({kind:?}): a generator bug\n\
                         with {setup:?}, kernel:\n{text}"
                    ))
                }
            }
        }
    }
    Ok(faults)
}

/// The choices of case `seed` of the deterministic run: four `seeded` lists
/// from one far-away place in its stream (`seeded(s + 1)` is `seeded(s)`
/// shifted by one, so neighbouring seeds would give kernels made of the same
/// choices).
pub(crate) fn choices(seed: u64) -> Vec<u32> {
    let start = mix(seed.wrapping_add(0x5eed));
    (0..4)
        .flat_map(|k| seeded(start.wrapping_add(120 * k)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    #[test]
    fn generated_kernels_run_as_the_oracle_says(
        picks in prop::collection::vec(any::<u32>(), 0..480),
        seed in any::<u64>(),
    ) {
        let g = generate(&picks);
        check_kernel(&g, seed, &mut Coverage::default(), false).map_err(TestCaseError::fail)?;
    }
}

/// A fixed run of generated kernels that agree with the oracle and together
/// issue every mnemonic with some lanes of the wave inactive, at both widths:
/// in a partial wave or under divergence, and (all but `barrier`) under
/// divergence.
#[test]
fn every_mnemonic_runs_with_masked_lanes_at_both_widths() {
    const CASES: u64 = 4000;
    let mut coverage = Coverage::default();
    for seed in 0..CASES {
        let g = generate(&choices(seed));
        if let Err(e) = check_kernel(&g, seed, &mut coverage, false) {
            panic!("case {seed}: {e}");
        }
    }
    let pairs = || {
        simt_lang::isa::MNEMONICS
            .iter()
            .flat_map(|m| [(m.name, 32), (m.name, 64)])
    };
    let masked: Vec<(&str, u32)> = pairs().filter(|k| !coverage.masked.contains(k)).collect();
    assert!(
        masked.is_empty(),
        "never issued with masked lanes: {masked:?}"
    );
    // A barrier needs the launch mask (its exec differs from it only in a
    // fault); every other mnemonic also runs under divergent control flow.
    let diverged: Vec<(&str, u32)> = pairs()
        .filter(|k| k.0 != "barrier" && !coverage.diverged.contains(k))
        .collect();
    assert!(
        diverged.is_empty(),
        "never issued under divergence: {diverged:?}"
    );
    // The paths a hand-written suite misses (issue 21, section 6): each taken
    // in at least one launch in a hundred, so that a wrong result there would
    // have shown above.
    let launches = coverage.paths.len();
    let taken =
        |f: fn(&simt_oracle::Paths) -> u64| coverage.paths.iter().filter(|p| f(p) > 0).count();
    let paths = [
        (
            "shuffle from an inactive lane",
            taken(|p| p.shuffle_from_inactive),
        ),
        (
            "shuffle from outside the wave",
            taken(|p| p.shuffle_from_outside),
        ),
        (
            "readlane of an inactive lane",
            taken(|p| p.readlane_of_inactive),
        ),
        ("failing compare-exchange", taken(|p| p.cmpswap_failed)),
        (
            "succeeding compare-exchange",
            taken(|p| p.cmpswap_succeeded),
        ),
        (
            "ballot or count of a mask beyond exec",
            taken(|p| p.wave_op_mask_beyond_exec),
        ),
        (
            "signed min or max of a negative value",
            taken(|p| p.signed_min_max_negative),
        ),
        (
            "atomic contention of some of the lanes",
            taken(|p| p.partial_contention),
        ),
        ("LDS bank conflict", taken(|p| p.lds_conflicts)),
    ];
    println!("{launches} launches; paths taken: {paths:?}");
    for (what, n) in paths {
        assert!(n * 100 >= launches, "{what}: in {n} of {launches} launches");
    }
}

/// The register alias of issue 21, as the generator makes it: `v0` and `v1`
/// are written only in a wide load's list and `lo`, `hi` are named. A front end
/// that does not reserve the listed registers gives `lo` and `hi` the numbers 0
/// and 1, so the load overwrites them and the stores write the loaded words
/// instead of 111 and 222: the oracle, which runs this IR, disagrees.
#[test]
fn numbered_registers_only_in_a_wide_list_keep_their_numbers() {
    use simt_lang::{GlobalRef, Inst, Operand, ParamIdx, Reg, UnOp, VReg, Width};
    let (src, out) = (ParamIdx(3), ParamIdx(4));
    let imm = Operand::Imm;
    let insts = [
        Inst::VUnary {
            op: UnOp::Mov,
            dst: VReg(2),
            a: imm(111),
        },
        Inst::VUnary {
            op: UnOp::Mov,
            dst: VReg(3),
            a: imm(222),
        },
        Inst::GlobalLoadWide {
            width: Width::X2,
            dst: VReg(0),
            src: GlobalRef::element(src, imm(0)),
        },
        Inst::GlobalStore {
            ty: simt_lang::ElemType::U32,
            dst: GlobalRef::element(out, imm(0)),
            src: Operand::V(VReg(2)),
        },
        Inst::GlobalStore {
            ty: simt_lang::ElemType::U32,
            dst: GlobalRef::element(out, imm(1)),
            src: Operand::V(VReg(3)),
        },
    ];
    let g =
        crate::generate::from_insts(&insts, &[(Reg::V(VReg(2)), "lo"), (Reg::V(VReg(3)), "hi")]);
    let text = g.text();
    assert!(text.contains("vreg lo, hi;"), "{text}");
    assert!(text.contains("global_load_x2 [v0, v1], bu32[0]"), "{text}");
    if let Err(e) = check_kernel(&g, 21, &mut Coverage::default(), false) {
        panic!("{e}");
    }
}

/// Kernels whose memory indices are now and then left unmasked, launched now
/// and then with a small instruction budget: each launch faults in the
/// interpreter exactly where it does in the oracle (kind, instruction,
/// workgroup, wave and lane), leaving the same bytes in the buffers, or runs
/// to the end in both and agrees as above.
#[test]
fn faulting_kernels_fault_where_the_oracle_says() {
    use simt_oracle::FaultKind as K;
    const CASES: u64 = 400;
    let mut kinds = Vec::new();
    for seed in 0..CASES {
        let g = generate_faulty(&choices(seed ^ 0xfa17));
        match check_kernel(&g, seed, &mut Coverage::default(), true) {
            Ok(f) => kinds.extend(f),
            Err(e) => panic!("case {seed}: {e}"),
        }
    }
    let count = |k: K| kinds.iter().filter(|&x| *x == k).count();
    let (oob, misaligned, budget) = (
        count(K::OutOfBounds),
        count(K::Misaligned),
        count(K::BudgetExceeded),
    );
    println!("faults: {oob} out of bounds, {misaligned} misaligned, {budget} budget");
    assert!(
        oob >= 30 && misaligned >= 10 && budget >= 30,
        "{oob} {misaligned} {budget}"
    );
}
