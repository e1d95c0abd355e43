//! The static facts over generated kernels:
//!
//! - kernels whose LDS and global indices are affine in `lane_id`,
//!   `local_id.x/y` and `group_id.x`, run fully active under every preset
//!   model: every exact fact equals the measured cost of each phase and every
//!   range contains it (`simt_core::Prediction`);
//! - phased LDS programs (accesses at affine indices, some under
//!   `if local_id.x < k`, with or without barriers between them): a program
//!   whose pairs are all proved free gets no race finding from the sanitizer
//!   (nor a race proved at launch),
//!   and a program with a pair given a witness gets a race finding.

use proptest::prelude::*;
use simt_core::facts::{Degree, Verdict};
use simt_core::{
    facts, launch, predictions, Arg, Axis, BinOp, CmpOp, CmpType, ElemType, FindingKind, GlobalRef,
    Inst, InstIdx, Kernel, LaunchConfig, LdsRef, MReg, MemoryModel, Operand, ProgramBuilder,
    Special, VReg,
};

const LANE: Operand = Operand::Special(Special::LaneId);
const X: Operand = Operand::Special(Special::LocalId(Axis::X));
const Y: Operand = Operand::Special(Special::LocalId(Axis::Y));
const GROUP: Operand = Operand::Special(Special::GroupId(Axis::X));

/// An index `lane·a + x·b + y·c + group·d + e`, in elements.
#[derive(Clone, Copy, Debug)]
struct Index {
    lane: u32,
    x: u32,
    y: u32,
    group: u32,
    e: u32,
}

impl Index {
    fn at(&self, lane: u32, x: u32, y: u32, group: u32) -> u32 {
        self.lane * lane + self.x * x + self.y * y + self.group * group + self.e
    }

    /// Pushes the instructions computing the index into `v`.
    fn emit(&self, b: &mut ProgramBuilder, v: VReg) {
        let mad = |dst: VReg, a: Operand, k: u32, c: Operand| Inst::VTernary {
            op: simt_core::TernOp::MadU32,
            dst,
            a,
            b: Operand::Imm(k),
            c,
        };
        b.push(mad(v, LANE, self.lane, Operand::Imm(self.e)));
        b.push(mad(v, X, self.x, Operand::V(v)));
        b.push(mad(v, Y, self.y, Operand::V(v)));
        b.push(mad(v, GROUP, self.group, Operand::V(v)));
    }
}

fn index() -> impl Strategy<Value = Index> {
    let coef = prop_oneof![3 => 0u32..4, 2 => 0u32..34, 1 => Just(32u32), 1 => Just(33u32)];
    (coef.clone(), coef.clone(), coef.clone(), coef, 0u32..40).prop_map(|(lane, x, y, group, e)| {
        Index {
            lane,
            x,
            y,
            group,
            e,
        }
    })
}

fn elem() -> impl Strategy<Value = ElemType> {
    prop_oneof![Just(ElemType::U8), Just(ElemType::U16), Just(ElemType::U32)]
}

fn model() -> impl Strategy<Value = MemoryModel> {
    prop_oneof![
        Just(MemoryModel::reference()),
        Just(MemoryModel::nvidia()),
        Just(MemoryModel::cdna3())
    ]
}

/// A kernel storing to LDS at `lds_index` and loading global memory at
/// `global_index`, both of type `ty`, with no control flow: every phase of a
/// launch whose workgroups fill whole waves is fully active.
fn affine_kernel(lds_index: Index, global_index: Index, ty: ElemType, lds_len: u32) -> Kernel {
    let mut b = ProgramBuilder::new("affine");
    let input = match ty {
        ElemType::U8 => b.buffer::<u8>("input"),
        ElemType::U16 => b.buffer::<u16>("input"),
        _ => b.buffer::<u32>("input"),
    };
    let out = b.buffer_mut::<u32>("out");
    let tile = b.lds("tile", ty, lds_len);
    let (i, j, v) = (VReg(0), VReg(1), VReg(2));
    lds_index.emit(&mut b, i);
    global_index.emit(&mut b, j);
    b.push(Inst::GlobalLoad {
        ty,
        dst: v,
        src: GlobalRef::element(input, Operand::V(j)),
    });
    b.push(Inst::LdsStore {
        ty,
        dst: LdsRef::element(tile, Operand::V(i)),
        src: Operand::V(v),
    });
    b.push(Inst::LdsLoad {
        ty,
        dst: v,
        src: LdsRef::element(tile, Operand::V(i)),
    });
    b.push(Inst::GlobalStore {
        ty: ElemType::U32,
        dst: GlobalRef::element(out, Operand::Special(Special::GlobalId(Axis::X))),
        src: Operand::V(v),
    });
    b.build().expect("the generated kernel validates")
}

/// The largest index any work-item of the launch computes.
fn max_index(ix: &Index, shape: [u32; 2], groups: u32, width: u32) -> u32 {
    let mut m = 0;
    for g in 0..groups {
        for y in 0..shape[1] {
            for x in 0..shape[0] {
                let lane = (x + shape[0] * y) % width;
                m = m.max(ix.at(lane, x, y, g));
            }
        }
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// Exact facts equal, and ranges contain, the measured cost of each phase.
    #[test]
    fn facts_agree_with_measured_phases(
        lds_index in index(),
        global_index in index(),
        ty in elem(),
        model in model(),
        width in prop_oneof![Just(32u32), Just(64u32)],
        rows in 1u32..3,
        wide in any::<bool>(),
    ) {
        let shape = [if wide { 2 * width } else { width }, rows];
        let groups = 3;
        let lds_len = max_index(&lds_index, shape, groups, width) + 1;
        let lds_len = lds_len.max(1);
        prop_assume!(lds_len * ty.size() <= 60 * 1024);
        let kernel = affine_kernel(lds_index, global_index, ty, lds_len);
        let len = (max_index(&global_index, shape, groups, width) + 1) as usize;
        let items = (shape[0] * shape[1] * groups) as usize;
        let mut out = vec![0u32; items];
        let config = LaunchConfig::new(groups, shape)
            .wave_width(width)
            .model(model.clone())
            .record_worst_phases();
        let stats = match ty {
            ElemType::U8 => launch(&kernel, &config, &mut [Arg::buffer(&vec![0u8; len]), Arg::buffer_mut(&mut out)]),
            ElemType::U16 => launch(&kernel, &config, &mut [Arg::buffer(&vec![0u16; len]), Arg::buffer_mut(&mut out)]),
            _ => launch(&kernel, &config, &mut [Arg::buffer(&vec![0u32; len]), Arg::buffer_mut(&mut out)]),
        }
        .expect("the launch runs");
        let program = kernel.program();
        let f = facts(program, Some([shape[0], shape[1], 1]));
        let preds = predictions(program, &f, &stats, &model);
        // LDS store and load, global load (lines and sectors) and store.
        prop_assert_eq!(preds.len(), 2 + 2 * 2);
        for p in &preds {
            // Every index is affine and every phase full: each fact is stated
            // and compared.
            prop_assert!(
                matches!(p.fact.value, Degree::Exact(_) | Degree::Range(..)),
                "inst {} {:?}: {:?}", p.inst, p.what, p.fact
            );
            prop_assert_eq!(
                p.agrees(), Some(true),
                "inst {} {:?}: predicted {}, measured {} over {} phases (worst {:?})",
                p.inst, p.what, p.fact.value, p.total, p.phases, p.worst
            );
        }
    }
}

/// One LDS access of a phased program.
#[derive(Clone, Copy, Debug)]
struct Access {
    store: bool,
    /// `x·coef + e`, with `coef` in -1..=2.
    coef: i32,
    e: u32,
    /// `if local_id.x < k` around it.
    guard: Option<u32>,
}

fn access() -> impl Strategy<Value = Access> {
    (
        any::<bool>(),
        -1i32..3,
        0u32..140,
        prop::option::of(prop_oneof![
            Just(1u32),
            Just(16),
            Just(32),
            Just(64),
            1u32..128
        ]),
    )
        .prop_map(|(store, coef, e, guard)| Access {
            store,
            coef,
            e,
            guard,
        })
}

/// Phases of accesses; a barrier between two phases when its flag is set.
fn phased() -> impl Strategy<Value = Vec<(Vec<Access>, bool)>> {
    prop::collection::vec((prop::collection::vec(access(), 1..4), any::<bool>()), 1..4)
}

const GROUP_SIZE: u32 = 128;

/// The program, for rows of `row` work-items: every access `t[x·coef + e + 128]` (the 128 keeps a
/// coefficient of -1 in bounds) stores `x` or loads into a register.
fn phased_kernel(phases: &[(Vec<Access>, bool)], row: u32) -> Kernel {
    let mut b = ProgramBuilder::new("phased");
    let out = b.buffer_mut::<u32>("out");
    let t = b.lds("t", ElemType::U32, 5 * GROUP_SIZE);
    let (i, v, m) = (VReg(0), VReg(1), MReg(0));
    // Every word starts written, so that loads find no uninitialised word.
    // The work-item's linear id, `y·row + x`, numbers the words it starts.
    for k in 0..5 {
        b.push(Inst::VTernary {
            op: simt_core::TernOp::MadU32,
            dst: i,
            a: Y,
            b: Operand::Imm(row),
            c: X,
        });
        b.push(Inst::VBinary {
            op: BinOp::AddU32,
            dst: i,
            a: Operand::V(i),
            b: Operand::Imm(k * GROUP_SIZE),
        });
        b.push(Inst::LdsStore {
            ty: ElemType::U32,
            dst: LdsRef::element(t, Operand::V(i)),
            src: Operand::Imm(0),
        });
    }
    b.push(Inst::Barrier);
    for (accesses, barrier) in phases {
        for a in accesses {
            if let Some(k) = a.guard {
                b.push(Inst::VCmp {
                    op: CmpOp::Lt,
                    ty: CmpType::U32,
                    dst: m,
                    a: X,
                    b: Operand::Imm(k),
                });
                b.push(Inst::If {
                    mask: m,
                    next: InstIdx::UNLINKED,
                });
            }
            b.push(Inst::VTernary {
                op: simt_core::TernOp::MadU32,
                dst: i,
                a: X,
                b: Operand::Imm(a.coef as u32),
                c: Operand::Imm(a.e + 128),
            });
            let at = LdsRef::element(t, Operand::V(i));
            b.push(if a.store {
                Inst::LdsStore {
                    ty: ElemType::U32,
                    dst: at,
                    src: X,
                }
            } else {
                Inst::LdsLoad {
                    ty: ElemType::U32,
                    dst: v,
                    src: at,
                }
            });
            if a.guard.is_some() {
                b.push(Inst::EndIf);
            }
        }
        if *barrier {
            b.push(Inst::Barrier);
        }
    }
    b.push(Inst::GlobalStore {
        ty: ElemType::U32,
        dst: GlobalRef::element(out, Operand::Special(Special::GlobalId(Axis::X))),
        src: Operand::V(v),
    });
    b.build().expect("the phased program validates")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Proved free: no race at run time; a witness: the launch reports a
    /// race. Verdicts decided for the
    /// launch's shape (one to four rows of work-items), and for any shape
    /// (whose assumption of one row holds for the one-row launches).
    #[test]
    fn race_verdicts_agree_with_the_sanitizer(
        phases in phased(),
        width in prop_oneof![Just(32u32), Just(64u32)],
        rows in prop_oneof![Just(1u32), Just(2), Just(4)],
        any_shape in any::<bool>(),
    ) {
        let shape = [GROUP_SIZE / rows, rows];
        let kernel = phased_kernel(&phases, shape[0]);
        let program = kernel.program();
        let decided_for = if any_shape { None } else { Some([shape[0], shape[1], 1]) };
        prop_assume!(decided_for.is_some() || rows == 1);
        let f = facts(program, decided_for);
        let mut out = vec![0u32; GROUP_SIZE as usize];
        let config = LaunchConfig::new(1, shape).wave_width(width).sanitize(true);
        let stats = launch(&kernel, &config, &mut [Arg::buffer_mut(&mut out)]).expect("runs");
        let races: Vec<(u32, u32)> = stats
            .findings
            .list
            .iter()
            .filter(|f| matches!(f.kind, FindingKind::Race { .. } | FindingKind::LanesDisagree { .. }))
            .map(|f| {
                let other = f.other.map_or(f.at.inst, |o| o.inst);
                (f.at.inst.min(other), f.at.inst.max(other))
            })
            .collect();
        // What the launch proved before it ran, from the kernel's facts for
        // its own shape and width: each such race the run must show too (the
        // phased programs' guards are all decided by the launch).
        let proved = stats
            .findings
            .list
            .iter()
            .filter(|f| matches!(f.kind, FindingKind::ProvedRace { .. }))
            .count();
        if proved > 0 {
            prop_assert!(!races.is_empty(), "proved {} race(s), yet the run found none: {:?}", proved, stats.findings.list);
        }
        let all_free = f.pairs.iter().all(|p| matches!(p.verdict, Verdict::Free(_)));
        if all_free {
            prop_assert!(races.is_empty(), "proved free, yet {:?}", stats.findings.list);
            prop_assert_eq!(proved, 0, "proved free, yet {:?}", stats.findings.list);
        }
        for p in &f.pairs {
            let key = (p.a.min(p.b), p.a.max(p.b));
            match &p.verdict {
                Verdict::Free(_) => prop_assert!(
                    !races.contains(&key),
                    "pair {:?} proved free, yet the sanitizer found {:?}", key, stats.findings.list
                ),
                // The sanitizer keeps a word's last write and latest reads
                // only, so a later access of the word by the same wave can
                // hide the witness's pair behind another one: the launch
                // must report a race, not necessarily this pair.
                Verdict::Race(w) if w.width == width => {
                    prop_assert!(
                        !races.is_empty(),
                        "witness {:?} for {:?}, but the sanitizer found no race", w, key
                    );
                    // The launch searches the same pair under its shape and width.
                    prop_assert!(proved > 0, "witness {:?} for {:?}, but the launch proved no race", w, key);
                }
                _ => {}
            }
        }
    }
}

/// The values an atomic returns differ between lanes even where every lane
/// updates one address (each gets what the lanes before it left), so an
/// index made from them is not predicted as a broadcast.
#[test]
fn an_atomics_returned_values_are_not_taken_as_one_for_the_wave() {
    let kernel = simt_front::compile(
        "kernel slots(ctr: &mut [u32], src: &[u32], out: &mut [u32]) {
            vreg s, v;
            global_atomic_add_u32 s, ctr[0], 32
            global_load v, src[s]
            global_store out[local_id.x], v
        }",
    )
    .expect("compiles");
    let model = MemoryModel::nvidia();
    let config = LaunchConfig::new(1, 32).model(model.clone());
    let (mut ctr, src, mut out) = (vec![0u32; 1], vec![7u32; 32 * 32], vec![0u32; 32]);
    let stats = launch(
        &kernel,
        &config,
        &mut [
            Arg::buffer_mut(&mut ctr),
            Arg::buffer(&src),
            Arg::buffer_mut(&mut out),
        ],
    )
    .expect("the launch runs");
    // Lane l reads element 32 l: 32 lines, one sector each.
    assert_eq!(stats.per_instruction[1].global_transactions, 32);
    let program = kernel.program();
    let f = facts(program, Some([32, 1, 1]));
    for p in predictions(program, &f, &stats, &model) {
        assert_ne!(
            p.agrees(),
            Some(false),
            "inst {} {:?}: predicted {}, measured {}",
            p.inst,
            p.what,
            p.fact.value,
            p.total
        );
    }
}
