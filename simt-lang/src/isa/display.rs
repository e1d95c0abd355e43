//! The disassembler: instructions and whole programs printed back as kernel text.
//!
//! An instruction prints as its mnemonic and operands (`v_add_u32 v3, v1, 1`);
//! printed through a [`Program`], registers, parameters and LDS arrays take the
//! kernel's names. A whole program prints as a kernel the `simt_kernel!` macro
//! accepts and expands back to the same instructions.

use super::field::{Field, MemRef};
use super::mnemonics::{self, ImmType, Mnemonic};
use super::table::Inst;
use crate::ir::{
    Addressing, Axis, LdsIdx, Operand, ParamIdx, ParamKind, Program, Reg, Special, VReg,
};
use std::fmt::{self, Display, Formatter, Write};

/// Where the names of registers, parameters and LDS arrays come from.
trait Names {
    fn reg(&self, r: Reg) -> Option<&str>;
    fn param(&self, p: ParamIdx) -> Option<&str>;
    fn lds(&self, l: LdsIdx) -> Option<&str>;
    fn elem_of(&self, mem: MemRef) -> Option<crate::ir::ElemType>;
    fn format(&self, index: u16) -> Option<&str>;
}

/// No names: registers by number, parameters and LDS arrays by index.
struct Numbered;

impl Names for Numbered {
    fn reg(&self, _: Reg) -> Option<&str> {
        None
    }
    fn param(&self, _: ParamIdx) -> Option<&str> {
        None
    }
    fn lds(&self, _: LdsIdx) -> Option<&str> {
        None
    }
    fn elem_of(&self, _: MemRef) -> Option<crate::ir::ElemType> {
        None
    }
    fn format(&self, _: u16) -> Option<&str> {
        None
    }
}

impl Names for Program {
    fn reg(&self, r: Reg) -> Option<&str> {
        self.reg_names
            .iter()
            .find(|n| n.reg == r)
            .map(|n| n.name.as_ref())
    }
    fn param(&self, p: ParamIdx) -> Option<&str> {
        self.params.get(usize::from(p.0)).map(|p| p.name.as_ref())
    }
    fn lds(&self, l: LdsIdx) -> Option<&str> {
        self.lds.get(usize::from(l.0)).map(|d| d.name.as_ref())
    }
    fn format(&self, index: u16) -> Option<&str> {
        self.formats.get(usize::from(index)).map(|f| f.as_ref())
    }
    fn elem_of(&self, mem: MemRef) -> Option<crate::ir::ElemType> {
        match mem {
            MemRef::Global(g) => match self.params.get(usize::from(g.buffer.0))?.kind {
                ParamKind::Buffer { elem, .. } => Some(elem),
                ParamKind::Scalar(_) => None,
            },
            MemRef::Lds(l) => self.lds.get(usize::from(l.lds.0)).map(|d| d.elem),
        }
    }
}

fn reg(names: &dyn Names, r: Reg, f: &mut Formatter<'_>) -> fmt::Result {
    match names.reg(r) {
        Some(n) => f.write_str(n),
        None => {
            let (class, n) = r.parts();
            write!(f, "{class}{n}")
        }
    }
}

fn axis(a: Axis) -> &'static str {
    match a {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}

impl Display for Special {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match *self {
            Special::LaneId => f.write_str("lane_id"),
            Special::LocalId(a) => write!(f, "local_id.{}", axis(a)),
            Special::GlobalId(a) => write!(f, "global_id.{}", axis(a)),
            Special::GroupId(a) => write!(f, "group_id.{}", axis(a)),
            Special::GroupSize(a) => write!(f, "group_size.{}", axis(a)),
            Special::NumGroups(a) => write!(f, "num_groups.{}", axis(a)),
            Special::WaveId => f.write_str("wave_id"),
            Special::WaveWidth => f.write_str("wave_width"),
        }
    }
}

/// An immediate as the kernel language writes it for `ty`: floats as the
/// shortest decimal that reads back to the same bits, integers as `i32` when the
/// top bit is set (`-1`), raw bits of 64K and above in hex.
fn imm(bits: u32, ty: ImmType, f: &mut Formatter<'_>) -> fmt::Result {
    match ty {
        ImmType::F32 => {
            let x = f32::from_bits(bits);
            if x.is_finite() {
                write!(f, "{x:?}")
            } else {
                // Not writable as a literal of an `f32` position: show the bits.
                write!(f, "{bits:#x}")
            }
        }
        ImmType::F16 | ImmType::Bf16 => {
            let format = match ty {
                ImmType::F16 => crate::float16::Half::F16,
                _ => crate::float16::Half::Bf16,
            };
            let x = format.to_f64(bits);
            // The shortest `f32` that reads back to the same value (an f16 or
            // bf16 value is exactly an f32, and rounds back to itself).
            if x.is_finite() && bits < 1 << 16 {
                write!(f, "{:?}", x as f32)
            } else {
                write!(f, "{bits:#x}")
            }
        }
        ImmType::Bits if bits >= 1 << 16 => write!(f, "{bits:#x}"),
        _ if bits >= 1 << 31 => write!(f, "{}", bits as i32),
        _ => write!(f, "{bits}"),
    }
}

fn operand(names: &dyn Names, op: Operand, ty: ImmType, f: &mut Formatter<'_>) -> fmt::Result {
    match op {
        Operand::V(r) => reg(names, Reg::V(r), f),
        Operand::S(r) => reg(names, Reg::S(r), f),
        Operand::Arg(p) => match names.param(p) {
            Some(n) => f.write_str(n),
            None => write!(f, "arg{}", p.0),
        },
        Operand::Imm(bits) => imm(bits, ty, f),
        Operand::Special(s) => write!(f, "{s}"),
    }
}

fn memory(names: &dyn Names, mem: MemRef, f: &mut Formatter<'_>) -> fmt::Result {
    let (addressing, index, offset) = match mem {
        MemRef::Global(g) => {
            match names.param(g.buffer) {
                Some(n) => f.write_str(n)?,
                None => write!(f, "arg{}", g.buffer.0)?,
            }
            (g.addressing, g.index, g.offset)
        }
        MemRef::Lds(l) => {
            match names.lds(l.lds) {
                Some(n) => f.write_str(n)?,
                None => write!(f, "lds{}", l.lds.0)?,
            }
            (l.addressing, l.index, l.offset)
        }
    };
    if addressing == Addressing::Byte {
        f.write_str(".bytes")?;
    }
    f.write_char('[')?;
    operand(names, index, ImmType::Int, f)?;
    match offset {
        Operand::Imm(0) => {}
        Operand::Imm(k) if k >= 1 << 31 => write!(f, " - {}", (k as i32).unsigned_abs())?,
        k => {
            f.write_str(" + ")?;
            operand(names, k, ImmType::Int, f)?;
        }
    }
    f.write_char(']')
}

/// The spelling to print: the untyped form when the access type is the memory
/// operand's element type.
fn mnemonic(names: &dyn Names, inst: &Inst) -> Option<&'static Mnemonic> {
    let m = mnemonics::spelling(inst)?;
    let fields = inst.fields();
    if let (Some(ty), Some((_, mem))) = (fields.access(), fields.memory()) {
        let mem_is_element = match mem {
            MemRef::Global(g) => g.addressing == Addressing::Element,
            MemRef::Lds(l) => l.addressing == Addressing::Element,
        };
        if mem_is_element && names.elem_of(mem) == Some(ty) {
            return mnemonics::untyped(m).or(Some(m));
        }
    }
    Some(m)
}

fn write_inst(names: &dyn Names, inst: &Inst, f: &mut Formatter<'_>) -> fmt::Result {
    let Some(m) = mnemonic(names, inst) else {
        // `end` is implicit in the kernel text.
        return f.write_str("end");
    };
    f.write_str(m.name)?;
    let fields = inst.fields();
    let run = fields.run_length();
    let ty = match m.imm_type() {
        ImmType::Access => match fields
            .access()
            .or_else(|| fields.memory().and_then(|(_, mem)| names.elem_of(mem)))
        {
            Some(crate::ir::ElemType::F32) => ImmType::F32,
            Some(crate::ir::ElemType::F16) => ImmType::F16,
            Some(crate::ir::ElemType::BF16) => ImmType::Bf16,
            Some(_) => ImmType::Int,
            None => ImmType::Bits,
        },
        ty => ty,
    };
    let mut first = true;
    // A `print` writes only the values its format reads.
    let mut values = match fields.as_slice().first() {
        Some(Field::Format(p)) => usize::from(p.values),
        _ => usize::MAX,
    };
    for field in fields.as_slice() {
        if !field.role().is_operand() || matches!(field, Field::VDstOpt(None)) {
            continue;
        }
        if matches!(field, Field::Src(_)) {
            if values == 0 {
                continue;
            }
            values -= 1;
        }
        f.write_str(if first { " " } else { ", " })?;
        first = false;
        match *field {
            Field::VDst(r) | Field::VDstOpt(Some(r)) => reg(names, Reg::V(r), f)?,
            Field::SDst(r) => reg(names, Reg::S(r), f)?,
            Field::MDst(r) | Field::Mask(r) => reg(names, Reg::M(r), f)?,
            Field::VDstRun(r) | Field::VSrcRun(r) => {
                f.write_char('[')?;
                for k in 0..run {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    reg(names, Reg::V(VReg(r.0.saturating_add(k))), f)?;
                }
                f.write_char(']')?;
            }
            Field::Src(o) | Field::Uniform(o) => operand(names, o, ty, f)?,
            Field::Index(o) | Field::UIndex(o) => operand(names, o, ImmType::Int, f)?,
            Field::Mem(_, mem) => memory(names, mem, f)?,
            // Without the program's formats, the index (`format3`), which
            // no front end reads back.
            Field::Format(p) => match names.format(p.index) {
                Some(text) => write!(f, "{text:?}")?,
                None => write!(f, "format{}", p.index)?,
            },
            Field::Op(_) | Field::Target(_) | Field::VDstOpt(None) => {}
        }
    }
    Ok(())
}

impl Display for Inst {
    /// The instruction in kernel text, registers by number and parameters and
    /// LDS arrays by index (`arg0`, `lds0`); [`Program::display_inst`] names them.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_inst(&Numbered, self, f)
    }
}

/// One instruction of a program, printed with the program's names.
#[derive(Clone, Copy, Debug)]
pub struct InstText<'p> {
    program: &'p Program,
    inst: &'p Inst,
}

impl Display for InstText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_inst(self.program, self.inst, f)
    }
}

/// A whole program as kernel text.
#[derive(Clone, Copy, Debug)]
pub struct KernelText<'p> {
    program: &'p Program,
}

impl Display for KernelText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let p = self.program;
        write!(f, "kernel {}(", p.name)?;
        for (i, param) in p.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}: {}", param.name, param.kind.rust_type())?;
        }
        f.write_str(") {\n")?;
        for decl in p.lds.iter() {
            writeln!(
                f,
                "    lds {}: [{}; {}];",
                decl.name,
                decl.elem.name(),
                decl.len
            )?;
        }
        // Named registers take the lowest numbers the kernel's numbered registers
        // leave free, in declaration order: declaring them in number order gives
        // each its number back.
        for (class, word) in [('v', "vreg"), ('s', "sreg"), ('m', "mreg")] {
            let mut named: Vec<(u16, &str)> = p
                .reg_names
                .iter()
                .filter(|n| n.reg.parts().0 == class)
                .map(|n| (n.reg.parts().1, n.name.as_ref()))
                .collect();
            named.sort_unstable();
            if !named.is_empty() {
                let list: Vec<&str> = named.iter().map(|&(_, n)| n).collect();
                writeln!(f, "    {word} {};", list.join(", "))?;
            }
        }
        let mut depth = 1usize;
        for inst in p.insts.iter() {
            if matches!(inst, Inst::End) {
                break;
            }
            let (before, after) = match inst {
                Inst::If { .. } | Inst::Loop { .. } => (0, 1),
                Inst::Else { .. } => (1, 1),
                Inst::EndIf | Inst::EndLoop { .. } => (1, 0),
                _ => (0, 0),
            };
            depth = depth.saturating_sub(before).max(1);
            writeln!(
                f,
                "{:indent$}{}",
                "",
                p.display_inst(inst),
                indent = depth * 4
            )?;
            depth += after;
        }
        f.write_str("}\n")
    }
}

impl Program {
    /// `inst` printed with this program's names (`v_add_u32 sum, sum, x`).
    pub fn display_inst<'p>(&'p self, inst: &'p Inst) -> InstText<'p> {
        InstText {
            program: self,
            inst,
        }
    }

    /// The whole program as kernel text that `simt_kernel!` expands back to the
    /// same instructions.
    pub fn display(&self) -> KernelText<'_> {
        KernelText { program: self }
    }
}
