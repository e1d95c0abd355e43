//! Properties of the validator over generated programs: it never panics, what it
//! accepts is safe to interpret, and its barrier check has neither false
//! positives on uniform programs nor misses on a divergent barrier.

use proptest::prelude::*;
use simt_core::{
    link, uniformity, validate, Addressing, Axis, BinOp, CmpOp, CmpType, ElemType, GlobalRef, Inst,
    InstIdx, LdsDecl, LdsIdx, LdsRef, MReg, MaskOp, Operand, Param, ParamIdx, ParamKind, Program,
    Reg, SReg, ScalarType, SourceLoc, Special, TernOp, UnOp, Uniformity, VReg,
    ValidationErrorKind as Kind,
};
use std::borrow::Cow;

// ---- arbitrary programs ----

fn small_or_any_u16() -> impl Strategy<Value = u16> {
    prop_oneof![4 => 0u16..6, 1 => any::<u16>()]
}

fn axis() -> impl Strategy<Value = Axis> {
    prop_oneof![Just(Axis::X), Just(Axis::Y), Just(Axis::Z)]
}

fn special() -> impl Strategy<Value = Special> {
    prop_oneof![
        Just(Special::LaneId),
        axis().prop_map(Special::LocalId),
        axis().prop_map(Special::GlobalId),
        axis().prop_map(Special::GroupId),
        axis().prop_map(Special::GroupSize),
        axis().prop_map(Special::NumGroups),
        Just(Special::WaveId),
        Just(Special::WaveWidth),
    ]
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        small_or_any_u16().prop_map(|r| Operand::V(VReg(r))),
        small_or_any_u16().prop_map(|r| Operand::S(SReg(r))),
        small_or_any_u16().prop_map(|p| Operand::Arg(ParamIdx(p))),
        any::<u32>().prop_map(Operand::Imm),
        special().prop_map(Operand::Special),
    ]
}

fn elem() -> impl Strategy<Value = ElemType> {
    prop_oneof![
        Just(ElemType::U8),
        Just(ElemType::I8),
        Just(ElemType::U16),
        Just(ElemType::I16),
        Just(ElemType::U32),
        Just(ElemType::I32),
        Just(ElemType::F32),
    ]
}

fn addressing() -> impl Strategy<Value = Addressing> {
    prop_oneof![Just(Addressing::Element), Just(Addressing::Byte)]
}

fn target() -> impl Strategy<Value = InstIdx> {
    prop_oneof![3 => (0u32..40).prop_map(InstIdx), 1 => any::<u32>().prop_map(InstIdx)]
}

fn binop() -> impl Strategy<Value = BinOp> {
    prop_oneof![
        Just(BinOp::AddU32),
        Just(BinOp::DivI32),
        Just(BinOp::Shl),
        Just(BinOp::MulF32)
    ]
}

fn cmp() -> impl Strategy<Value = (CmpOp, CmpType)> {
    (
        prop_oneof![Just(CmpOp::Lt), Just(CmpOp::Eq), Just(CmpOp::Ne)],
        prop_oneof![Just(CmpType::U32), Just(CmpType::I32), Just(CmpType::F32)],
    )
}

fn global_ref() -> impl Strategy<Value = GlobalRef> {
    (small_or_any_u16(), operand(), addressing()).prop_map(|(b, index, addressing)| GlobalRef {
        buffer: ParamIdx(b),
        index,
        offset: simt_core::Operand::Imm(0),
        addressing,
    })
}

fn lds_ref() -> impl Strategy<Value = LdsRef> {
    (small_or_any_u16(), operand(), addressing()).prop_map(|(l, index, addressing)| LdsRef {
        lds: LdsIdx(l),
        index,
        offset: simt_core::Operand::Imm(0),
        addressing,
    })
}

fn any_inst() -> impl Strategy<Value = Inst> {
    let v = || small_or_any_u16().prop_map(VReg);
    let s = || small_or_any_u16().prop_map(SReg);
    let m = || small_or_any_u16().prop_map(MReg);
    prop_oneof![
        1 => (binop(), v(), operand(), operand()).prop_map(|(op, dst, a, b)| Inst::VBinary {
            op,
            dst,
            a,
            b
        }),
        1 => (v(), operand()).prop_map(|(dst, a)| Inst::VUnary {
            op: UnOp::Mov,
            dst,
            a
        }),
        1 => (v(), operand(), operand(), operand()).prop_map(|(dst, a, b, c)| Inst::VTernary {
            op: TernOp::FmaF32,
            dst,
            a,
            b,
            c
        }),
        1 => (cmp(), m(), operand(), operand()).prop_map(|((op, ty), dst, a, b)| Inst::VCmp {
            op,
            ty,
            dst,
            a,
            b
        }),
        1 => (v(), m(), operand(), operand()).prop_map(|(dst, mask, on_true, on_false)| {
            Inst::VSelect {
                dst,
                mask,
                on_true,
                on_false,
            }
        }),
        1 => (binop(), s(), operand(), operand()).prop_map(|(op, dst, a, b)| Inst::SBinary {
            op,
            dst,
            a,
            b
        }),
        1 => (s(), operand()).prop_map(|(dst, a)| Inst::SUnary {
            op: UnOp::Not,
            dst,
            a
        }),
        1 => (cmp(), m(), operand(), operand()).prop_map(|((op, ty), dst, a, b)| Inst::SCmp {
            op,
            ty,
            dst,
            a,
            b
        }),
        1 => (m(), m(), m()).prop_map(|(dst, a, b)| Inst::MaskBinary {
            op: MaskOp::AndN,
            dst,
            a,
            b
        }),
        1 => (m(), m()).prop_map(|(dst, a)| Inst::MaskNot { dst, a }),
        1 => (elem(), v(), global_ref()).prop_map(|(ty, dst, src)| Inst::GlobalLoad { ty, dst, src }),
        1 => (elem(), global_ref(), operand()).prop_map(|(ty, dst, src)| Inst::GlobalStore {
            ty,
            dst,
            src
        }),
        1 => (elem(), v(), lds_ref()).prop_map(|(ty, dst, src)| Inst::LdsLoad { ty, dst, src }),
        1 => (elem(), lds_ref(), operand()).prop_map(|(ty, dst, src)| Inst::LdsStore { ty, dst, src }),
        3 => (m(), target()).prop_map(|(mask, next)| Inst::If { mask, next }),
        2 => target().prop_map(|end| Inst::Else { end }),
        3 => Just(Inst::EndIf),
        3 => target().prop_map(|end| Inst::Loop { end }),
        3 => (m(), target()).prop_map(|(mask, start)| Inst::EndLoop { mask, start }),
        1 => (m(), target()).prop_map(|(mask, end)| Inst::Break { mask, end }),
        1 => (m(), target()).prop_map(|(mask, end)| Inst::Continue { mask, end }),
        2 => Just(Inst::Barrier),
        1 => Just(Inst::End),
    ]
}

fn param_kind() -> impl Strategy<Value = ParamKind> {
    prop_oneof![
        (elem(), any::<bool>()).prop_map(|(elem, writable)| ParamKind::Buffer { elem, writable }),
        Just(ParamKind::Scalar(ScalarType::U32)),
        Just(ParamKind::Scalar(ScalarType::F32)),
    ]
}

fn lds_decl() -> impl Strategy<Value = LdsDecl> {
    (
        elem(),
        prop_oneof![0u32..64, any::<u32>()],
        prop_oneof![(0u32..64).prop_map(|o| o * 4), any::<u32>()],
    )
        .prop_map(|(elem, len, offset)| LdsDecl {
            name: Cow::Borrowed("t"),
            elem,
            len,
            offset,
        })
}

fn count() -> impl Strategy<Value = u16> {
    prop_oneof![4 => 0u16..8, 1 => any::<u16>()]
}

prop_compose! {
    fn any_program()(
        insts in prop::collection::vec(any_inst(), 0..40),
        end in any::<bool>(),
        locs_delta in prop_oneof![8 => Just(0i8), 1 => Just(-1i8), 1 => Just(1i8)],
        params in prop::collection::vec(param_kind(), 0..5),
        lds in prop::collection::vec(lds_decl(), 0..4),
        lds_bytes in prop_oneof![0u32..512, any::<u32>()],
        (vregs, sregs, mregs) in (count(), count(), count()),
    ) -> Program {
        let mut insts = insts;
        if end {
            insts.push(Inst::End);
        }
        let locs = (insts.len() as i64 + i64::from(locs_delta)).max(0) as usize;
        Program {
            name: Cow::Borrowed("p"),
            file: Cow::Borrowed(""),
            params: Cow::Owned(
                params
                    .into_iter()
                    .map(|kind| Param { name: Cow::Borrowed("x"), kind })
                    .collect(),
            ),
            lds: Cow::Owned(lds),
            insts: Cow::Owned(insts),
            locs: Cow::Owned(vec![SourceLoc::default(); locs]),
            vregs,
            sregs,
            mregs,
            lds_bytes,
            reg_names: std::borrow::Cow::Borrowed(&[]),
            workgroup_size: None,
            race_free: None,
            formats: Default::default(),
            scratch_words: 0,
        }
    }
}

/// What the interpreter may rely on once a program validates.
fn check_accepted(p: &Program) {
    let n = p.insts.len();
    assert_eq!(p.locs.len(), n);
    assert!(matches!(p.insts.last(), Some(Inst::End)));
    assert!(!p.insts[..n - 1].iter().any(|i| matches!(i, Inst::End)));
    let mut relinked = p.insts.to_vec();
    link(&mut relinked).unwrap();
    assert_eq!(relinked, p.insts.to_vec(), "targets are the linked ones");
    assert!(p.vregs <= simt_core::limits::MAX_VREGS);
    assert!(p.sregs <= simt_core::limits::MAX_SREGS);
    assert!(p.mregs <= simt_core::limits::MAX_MREGS);
    for inst in p.insts.iter() {
        let fields = inst.fields();
        let regs: Vec<Reg> = fields.read().chain(fields.written()).collect();
        for r in regs {
            match r {
                Reg::V(r) => assert!(r.0 < p.vregs),
                Reg::S(r) => assert!(r.0 < p.sregs),
                Reg::M(r) => assert!(r.0 < p.mregs),
            }
        }
        for (op, _) in fields.operands() {
            if let Operand::Arg(a) = op {
                assert!(matches!(
                    p.params.get(usize::from(a.0)).map(|p| p.kind),
                    Some(ParamKind::Scalar(_))
                ));
            }
        }
    }
    let u = uniformity(p).expect("nested");
    for (i, inst) in p.insts.iter().enumerate() {
        if matches!(inst, Inst::Barrier) {
            assert_eq!(u.control[i], Uniformity::Workgroup);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn validate_never_panics(p in any_program()) {
        let result = validate(&p);
        let _ = uniformity(&p);
        let mut insts = p.insts.to_vec();
        let _ = link(&mut insts);
        match result {
            Ok(()) => check_accepted(&p),
            Err(e) => {
                prop_assert!(!e.errors.is_empty());
                let at: Vec<_> = e.errors.iter().map(|e| e.inst).collect();
                let mut sorted = at.clone();
                sorted.sort();
                prop_assert_eq!(at, sorted);
                for err in &e.errors {
                    if let Some(i) = err.inst {
                        prop_assert!((i as usize) < p.insts.len());
                    }
                    for note in &err.notes {
                        prop_assert!((note.inst as usize) < p.insts.len());
                    }
                }
            }
        }
    }
}

// ---- structured programs ----

#[derive(Clone, Debug)]
enum Node {
    Op(Inst),
    Barrier,
    Break(u16),
    Continue(u16),
    If(u16, Vec<Node>, Option<Vec<Node>>),
    Loop(Vec<Node>, u16),
}

/// Scalar and construct masks use m0..m3; other masks m4..m7.
fn structured(uniform: bool) -> impl Strategy<Value = Vec<Node>> {
    let uniform_operand = prop_oneof![
        (0u16..4).prop_map(|r| Operand::S(SReg(r))),
        (0u32..8).prop_map(Operand::Imm),
        Just(Operand::Arg(ParamIdx(0))),
        Just(Operand::Special(Special::GroupId(Axis::X))),
        Just(Operand::Special(Special::WaveWidth)),
    ];
    let any_operand = prop_oneof![
        uniform_operand.clone(),
        (0u16..4).prop_map(|r| Operand::V(VReg(r))),
        Just(Operand::Special(Special::LaneId)),
        Just(Operand::Special(Special::WaveId)),
    ];
    // The operands that may feed construct masks and scalars.
    let mask_operand = if uniform {
        uniform_operand.clone().boxed()
    } else {
        any_operand.clone().boxed()
    };
    let scalar_operand = if uniform {
        uniform_operand.clone().boxed()
    } else {
        prop_oneof![
            uniform_operand.clone(),
            Just(Operand::Special(Special::WaveId))
        ]
        .boxed()
    };
    let leaf = prop_oneof![
        1 => (0u16..4, scalar_operand.clone(), scalar_operand.clone()).prop_map(|(d, a, b)| {
            Node::Op(Inst::SBinary {
                op: BinOp::AddU32,
                dst: SReg(d),
                a,
                b,
            })
        }),
        1 => (0u16..4, scalar_operand.clone(), scalar_operand).prop_map(|(d, a, b)| {
            Node::Op(Inst::SCmp {
                op: CmpOp::Lt,
                ty: CmpType::U32,
                dst: MReg(d),
                a,
                b,
            })
        }),
        1 => (0u16..4, mask_operand.clone(), mask_operand).prop_map(|(d, a, b)| {
            Node::Op(Inst::VCmp {
                op: CmpOp::Lt,
                ty: CmpType::U32,
                dst: MReg(d),
                a,
                b,
            })
        }),
        1 => (0u16..4, any_operand.clone(), any_operand.clone()).prop_map(|(d, a, b)| {
            Node::Op(Inst::VBinary {
                op: BinOp::AddU32,
                dst: VReg(d),
                a,
                b,
            })
        }),
        1 => (4u16..8, any_operand.clone(), any_operand).prop_map(|(d, a, b)| {
            Node::Op(Inst::VCmp {
                op: CmpOp::Eq,
                ty: CmpType::U32,
                dst: MReg(d),
                a,
                b,
            })
        }),
        1 => (0u16..4, 4u16..8).prop_map(|(d, m)| Node::Op(Inst::VSelect {
            dst: VReg(d),
            mask: MReg(m),
            on_true: Operand::V(VReg(d)),
            on_false: Operand::Imm(0),
        })),
        1 => (0u16..4, 0u16..4, 0u16..4).prop_map(|(d, a, b)| Node::Op(Inst::MaskBinary {
            op: MaskOp::Or,
            dst: MReg(d),
            a: MReg(a),
            b: MReg(b),
        })),
        2 => Just(Node::Barrier),
        1 => (0u16..4).prop_map(Node::Break),
        1 => (0u16..4).prop_map(Node::Continue),
    ];
    let leaf = leaf.boxed();
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            (
                0u16..4,
                prop::collection::vec(inner.clone(), 0..6),
                prop::option::of(prop::collection::vec(inner.clone(), 0..6))
            )
                .prop_map(|(m, t, e)| Node::If(m, t, e)),
            (prop::collection::vec(inner, 0..6), 0u16..4).prop_map(|(b, m)| Node::Loop(b, m)),
        ]
    })
    .prop_map(|n| vec![n])
    .prop_recursive(1, 8, 8, |inner| {
        prop::collection::vec(inner, 1..4).prop_map(|v| v.into_iter().flatten().collect())
    })
}

fn flatten(nodes: &[Node], in_loop: bool, out: &mut Vec<Inst>) {
    let unlinked = InstIdx::UNLINKED;
    for node in nodes {
        match node {
            Node::Op(i) => out.push(*i),
            Node::Barrier => out.push(Inst::Barrier),
            Node::Break(m) if in_loop => out.push(Inst::Break {
                mask: MReg(*m),
                end: unlinked,
            }),
            Node::Continue(m) if in_loop => out.push(Inst::Continue {
                mask: MReg(*m),
                end: unlinked,
            }),
            Node::Break(_) | Node::Continue(_) => {}
            Node::If(m, t, e) => {
                out.push(Inst::If {
                    mask: MReg(*m),
                    next: unlinked,
                });
                flatten(t, in_loop, out);
                if let Some(e) = e {
                    out.push(Inst::Else { end: unlinked });
                    flatten(e, in_loop, out);
                }
                out.push(Inst::EndIf);
            }
            Node::Loop(b, m) => {
                out.push(Inst::Loop { end: unlinked });
                flatten(b, true, out);
                out.push(Inst::EndLoop {
                    mask: MReg(*m),
                    start: unlinked,
                });
            }
        }
    }
}

fn build(insts: Vec<Inst>) -> Result<Program, simt_core::ValidationErrors> {
    let mut b = simt_core::ProgramBuilder::new("s");
    b.scalar("n", ScalarType::U32);
    b.extend(insts);
    b.build().map(|k| k.program().clone())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// No false positives: when every mask and scalar is computed from uniform
    /// values, every barrier is accepted wherever it sits.
    #[test]
    fn uniform_programs_are_accepted(nodes in structured(true)) {
        let mut insts = Vec::new();
        flatten(&nodes, false, &mut insts);
        let p = build(insts);
        prop_assert!(p.is_ok(), "{}", p.unwrap_err());
        check_accepted(&p.unwrap());
    }

    /// A barrier under an `if` on a lane-dependent mask is found wherever it is put,
    /// and only that barrier is blamed.
    #[test]
    fn a_divergent_barrier_is_found_anywhere(nodes in structured(true), at in any::<prop::sample::Index>()) {
        let mut insts = Vec::new();
        flatten(&nodes, false, &mut insts);
        let at = at.index(insts.len() + 1);
        let snippet = [
            Inst::VCmp {
                op: CmpOp::Lt,
                ty: CmpType::U32,
                dst: MReg(9),
                a: Operand::Special(Special::LaneId),
                b: Operand::Imm(3),
            },
            Inst::If { mask: MReg(9), next: InstIdx::UNLINKED },
            Inst::Barrier,
            Inst::EndIf,
        ];
        insts.splice(at..at, snippet);
        let errors = build(insts).unwrap_err().errors;
        prop_assert_eq!(errors.len(), 1, "{:#?}", errors);
        let e = &errors[0];
        prop_assert_eq!(e.inst, Some(at as u32 + 2));
        prop_assert_eq!(&e.kind, &Kind::BarrierUnderDivergentControl { level: Uniformity::Lane });
        let notes: Vec<u32> = e.notes.iter().map(|n| n.inst).collect();
        prop_assert_eq!(notes, vec![at as u32 + 1, at as u32]);
    }

    /// Arbitrary masks: the analysis terminates, only barriers are blamed, and every
    /// note points at a construct, a loop exit or a mask definition.
    #[test]
    fn barrier_errors_are_well_formed(nodes in structured(false)) {
        let mut insts = Vec::new();
        flatten(&nodes, false, &mut insts);
        match build(insts) {
            Ok(p) => check_accepted(&p),
            Err(e) => {
                for err in &e.errors {
                    prop_assert!(matches!(err.kind, Kind::BarrierUnderDivergentControl { .. }), "{}", err);
                    let i = err.inst.unwrap() as usize;
                    prop_assert!(!err.notes.is_empty());
                    // Rebuild to inspect the instructions the notes point at.
                    let mut linked = Vec::new();
                    flatten(&nodes, false, &mut linked);
                    prop_assert!(matches!(linked[i], Inst::Barrier));
                    for note in &err.notes {
                        let inst = linked[note.inst as usize];
                        prop_assert!(
                            matches!(
                                inst,
                                Inst::If { .. }
                                    | Inst::Loop { .. }
                                    | Inst::EndLoop { .. }
                                    | Inst::Break { .. }
                                    | Inst::Continue { .. }
                            ) || matches!(inst.fields().written().next(), Some(Reg::M(_))),
                            "{:?}", inst
                        );
                    }
                }
            }
        }
    }
}

/// A linked program from generated structured code, built without validation.
fn raw_program(insts: Vec<Inst>) -> Program {
    let mut insts = insts;
    insts.push(Inst::End);
    let _ = link(&mut insts);
    let (vregs, sregs, mregs) = simt_core::register_counts(&insts);
    Program {
        name: Cow::Borrowed("r"),
        file: Cow::Borrowed(""),
        params: Cow::Owned(vec![Param {
            name: Cow::Borrowed("n"),
            kind: ParamKind::Scalar(ScalarType::U32),
        }]),
        lds: Cow::Owned(Vec::new()),
        locs: Cow::Owned(vec![SourceLoc::default(); insts.len()]),
        insts: Cow::Owned(insts),
        vregs,
        sregs,
        mregs,
        lds_bytes: 0,
        reg_names: std::borrow::Cow::Borrowed(&[]),
        workgroup_size: None,
        race_free: None,
        formats: Default::default(),
        scratch_words: 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Structured programs with a few instructions or counts replaced by arbitrary
    /// ones: never a panic, and whatever is accepted is safe to interpret.
    #[test]
    fn corrupted_structured_programs(
        nodes in structured(false),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any_inst()), 0..3),
        counts in prop::option::of((count(), count(), count())),
    ) {
        let mut insts = Vec::new();
        flatten(&nodes, false, &mut insts);
        let mut p = raw_program(insts);
        let n = p.insts.len();
        for (at, inst) in edits {
            p.insts.to_mut()[at.index(n)] = inst;
        }
        if let Some((v, s, m)) = counts {
            (p.vregs, p.sregs, p.mregs) = (v, s, m);
        }
        let _ = uniformity(&p);
        if validate(&p).is_ok() {
            check_accepted(&p);
        }
    }
}
