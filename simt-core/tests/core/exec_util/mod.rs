//! Shorthands shared by the interpreter's tests.
#![allow(dead_code)]

use simt_core::{
    Addressing, Arg, Axis, BinOp, CmpOp, CmpType, ElemType, GlobalRef, Inst, InstIdx, Kernel,
    LaunchConfig, LdsIdx, LdsRef, MReg, MaskOp, Operand, ParamIdx, SReg, Special, Stats, TernOp,
    UnOp, VReg,
};

pub fn v(i: u16) -> Operand {
    Operand::V(VReg(i))
}
pub fn s(i: u16) -> Operand {
    Operand::S(SReg(i))
}
pub fn imm(x: u32) -> Operand {
    Operand::Imm(x)
}
pub fn immf(x: f32) -> Operand {
    Operand::Imm(x.to_bits())
}
pub fn arg(p: ParamIdx) -> Operand {
    Operand::Arg(p)
}
pub fn lane() -> Operand {
    Operand::Special(Special::LaneId)
}
pub fn gid() -> Operand {
    Operand::Special(Special::GlobalId(Axis::X))
}
pub fn lid() -> Operand {
    Operand::Special(Special::LocalId(Axis::X))
}
pub fn wave_id() -> Operand {
    Operand::Special(Special::WaveId)
}

pub fn bin(op: BinOp, d: u16, a: Operand, b: Operand) -> Inst {
    Inst::VBinary {
        op,
        dst: VReg(d),
        a,
        b,
    }
}
pub fn un(op: UnOp, d: u16, a: Operand) -> Inst {
    Inst::VUnary {
        op,
        dst: VReg(d),
        a,
    }
}
pub fn mov(d: u16, a: Operand) -> Inst {
    un(UnOp::Mov, d, a)
}
pub fn add(d: u16, a: Operand, b: Operand) -> Inst {
    bin(BinOp::AddU32, d, a, b)
}
pub fn tern(op: TernOp, d: u16, a: Operand, b: Operand, c: Operand) -> Inst {
    Inst::VTernary {
        op,
        dst: VReg(d),
        a,
        b,
        c,
    }
}
pub fn cmp(op: CmpOp, ty: CmpType, m: u16, a: Operand, b: Operand) -> Inst {
    Inst::VCmp {
        op,
        ty,
        dst: MReg(m),
        a,
        b,
    }
}
/// `m = a < b` (u32).
pub fn lt(m: u16, a: Operand, b: Operand) -> Inst {
    cmp(CmpOp::Lt, CmpType::U32, m, a, b)
}
/// `m = a == b` (u32).
pub fn eq(m: u16, a: Operand, b: Operand) -> Inst {
    cmp(CmpOp::Eq, CmpType::U32, m, a, b)
}
pub fn scmp(op: CmpOp, ty: CmpType, m: u16, a: Operand, b: Operand) -> Inst {
    Inst::SCmp {
        op,
        ty,
        dst: MReg(m),
        a,
        b,
    }
}
pub fn sbin(op: BinOp, d: u16, a: Operand, b: Operand) -> Inst {
    Inst::SBinary {
        op,
        dst: SReg(d),
        a,
        b,
    }
}
pub fn sun(op: UnOp, d: u16, a: Operand) -> Inst {
    Inst::SUnary {
        op,
        dst: SReg(d),
        a,
    }
}
pub fn mask(op: MaskOp, d: u16, a: u16, b: u16) -> Inst {
    Inst::MaskBinary {
        op,
        dst: MReg(d),
        a: MReg(a),
        b: MReg(b),
    }
}
pub fn select(d: u16, m: u16, t: Operand, f: Operand) -> Inst {
    Inst::VSelect {
        dst: VReg(d),
        mask: MReg(m),
        on_true: t,
        on_false: f,
    }
}
pub fn if_(m: u16) -> Inst {
    Inst::If {
        mask: MReg(m),
        next: InstIdx::UNLINKED,
    }
}
pub fn else_() -> Inst {
    Inst::Else {
        end: InstIdx::UNLINKED,
    }
}
pub fn endif() -> Inst {
    Inst::EndIf
}
pub fn loop_() -> Inst {
    Inst::Loop {
        end: InstIdx::UNLINKED,
    }
}
pub fn endloop(m: u16) -> Inst {
    Inst::EndLoop {
        mask: MReg(m),
        start: InstIdx::UNLINKED,
    }
}
pub fn break_(m: u16) -> Inst {
    Inst::Break {
        mask: MReg(m),
        end: InstIdx::UNLINKED,
    }
}
pub fn continue_(m: u16) -> Inst {
    Inst::Continue {
        mask: MReg(m),
        end: InstIdx::UNLINKED,
    }
}

pub fn gref(buffer: ParamIdx, index: Operand) -> GlobalRef {
    GlobalRef {
        buffer,
        index,
        offset: simt_core::Operand::Imm(0),
        addressing: Addressing::Element,
    }
}
pub fn gbytes(buffer: ParamIdx, index: Operand) -> GlobalRef {
    GlobalRef {
        buffer,
        index,
        offset: simt_core::Operand::Imm(0),
        addressing: Addressing::Byte,
    }
}
pub fn load(ty: ElemType, d: u16, src: GlobalRef) -> Inst {
    Inst::GlobalLoad {
        ty,
        dst: VReg(d),
        src,
    }
}
pub fn store(ty: ElemType, dst: GlobalRef, src: Operand) -> Inst {
    Inst::GlobalStore { ty, dst, src }
}
pub fn lref(lds: LdsIdx, index: Operand) -> LdsRef {
    LdsRef {
        lds,
        index,
        offset: simt_core::Operand::Imm(0),
        addressing: Addressing::Element,
    }
}
pub fn lbytes(lds: LdsIdx, index: Operand) -> LdsRef {
    LdsRef {
        lds,
        index,
        offset: simt_core::Operand::Imm(0),
        addressing: Addressing::Byte,
    }
}
pub fn lds_load(ty: ElemType, d: u16, src: LdsRef) -> Inst {
    Inst::LdsLoad {
        ty,
        dst: VReg(d),
        src,
    }
}
pub fn lds_store(ty: ElemType, dst: LdsRef, src: Operand) -> Inst {
    Inst::LdsStore { ty, dst, src }
}

/// Launches `program` and unwraps the statistics.
pub fn run(program: &Kernel, config: &LaunchConfig, args: &mut [Arg<'_>]) -> Stats {
    match simt_core::launch(program, config, args) {
        Ok(stats) => stats,
        Err(e) => panic!("launch of `{}` failed: {e}", program.name),
    }
}

/// A wave-width launch of `groups` workgroups of `size` work-items.
pub fn cfg(groups: u32, size: u32, width: u32) -> LaunchConfig {
    LaunchConfig::new(groups, size).wave_width(width)
}

/// What a launch of a kernel over `(data, out, out2)` left: both outputs
/// and the statistics, or the error.
pub type Outcome = Result<(Vec<u32>, Vec<u32>, Stats), String>;

/// Launches `program` over `data` (read) and two zeroed outputs of `lens`
/// words (written).
pub fn launch_over(
    program: &Kernel,
    data: &[u32],
    lens: (usize, usize),
    config: &LaunchConfig,
) -> Outcome {
    let (mut out, mut out2) = (vec![0u32; lens.0], vec![0u32; lens.1]);
    let stats = simt_core::launch(
        program,
        config,
        &mut [
            Arg::buffer(data),
            Arg::buffer_mut(&mut out),
            Arg::buffer_mut(&mut out2),
        ],
    )
    .map_err(|e| e.to_string())?;
    Ok((out, out2, stats))
}

/// The plain launch of `program` (whose fast paths apply) and the sanitized
/// one (whose instrument sees every lane, so the general path) leave the
/// same outputs and counters, or fail alike; `what` names the case.
pub fn plain_agrees_with_sanitized(
    program: &Kernel,
    data: &[u32],
    lens: (usize, usize),
    config: &LaunchConfig,
    what: &str,
) -> Result<(), String> {
    let plain = launch_over(program, data, lens, config);
    let general = launch_over(program, data, lens, &config.clone().sanitize(true));
    match (plain, general) {
        (Ok((out, out2, stats)), Ok((g_out, g_out2, g_stats))) => {
            assert_eq!(out, g_out, "out, {what}, {config:?}");
            assert_eq!(out2, g_out2, "out2, {what}, {config:?}");
            assert_eq!(stats.totals, g_stats.totals, "totals, {what}, {config:?}");
            assert_eq!(
                stats.per_instruction, g_stats.per_instruction,
                "per instruction, {what}, {config:?}"
            );
            Ok(())
        }
        (Err(e), Err(g)) => {
            assert!(g.contains(&e) || e == g, "plain `{e}`, sanitized `{g}`");
            Err(e)
        }
        (plain, general) => panic!(
            "{what}, {config:?}: plain {:?}, sanitized {:?}",
            plain.err(),
            general.err()
        ),
    }
}
