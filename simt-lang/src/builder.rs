//! Building programs at run time, for tests and tools that do not use the macro.

use crate::element::Element;
use crate::ir::{
    ElemType, FormatError, LdsDecl, LdsIdx, Param, ParamIdx, ParamKind, PrintFormat, Program,
    RaceFree, Reg, RegName, ScalarType, SourceLoc,
};
use crate::isa::Inst;
use crate::validate::{Kernel, ValidationErrors};
use std::borrow::Cow;

/// Assembles a [`Program`]: declare parameters and LDS, push instructions, then
/// [`build`](Self::build) counts registers, appends `end`, links and validates,
/// giving a [`Kernel`].
///
/// ```
/// use simt_lang::{Axis, ElemType, GlobalRef, Inst, Operand, ProgramBuilder, Special};
///
/// let mut b = ProgramBuilder::new("iota");
/// let out = b.buffer_mut::<u32>("out");
/// let id = Operand::Special(Special::GlobalId(Axis::X));
/// b.push(Inst::GlobalStore {
///     ty: ElemType::U32,
///     dst: GlobalRef::element(out, id),
///     src: id,
/// });
/// let kernel = b.build().unwrap();
/// assert_eq!(kernel.display().to_string().lines().nth(1), Some("    global_store out[global_id.x], global_id.x"));
/// ```
///
/// `simt_core::launch` runs the kernel (see `simt-core/tests/core/builder.rs`).
#[derive(Clone, Debug)]
pub struct ProgramBuilder {
    name: String,
    params: Vec<Param>,
    lds: Vec<LdsDecl>,
    lds_bytes: u32,
    insts: Vec<Inst>,
    locs: Vec<SourceLoc>,
    reg_names: Vec<RegName>,
    workgroup_size: Option<[u32; 3]>,
    race_free: Option<RaceFree>,
    formats: Vec<String>,
}

impl ProgramBuilder {
    /// An empty kernel called `name`.
    pub fn new(name: &str) -> Self {
        ProgramBuilder {
            name: name.to_owned(),
            params: Vec::new(),
            lds: Vec::new(),
            lds_bytes: 0,
            insts: Vec::new(),
            locs: Vec::new(),
            reg_names: Vec::new(),
            workgroup_size: None,
            race_free: None,
            formats: Vec::new(),
        }
    }

    /// The format of a `print` writing `text`: its index among the
    /// program's formats (one entry per distinct text) and its values.
    pub fn format(&mut self, text: &str) -> Result<PrintFormat, FormatError> {
        let values = crate::ir::format_values(text)?;
        if values > crate::ir::MAX_PRINT_VALUES {
            return Err(FormatError {
                offset: 0,
                message: format!(
                    "{values} placeholders: a `print` takes at most {} values",
                    crate::ir::MAX_PRINT_VALUES
                ),
            });
        }
        let index = match self.formats.iter().position(|f| f == text) {
            Some(i) => i,
            None => {
                self.formats.push(text.to_owned());
                self.formats.len() - 1
            }
        };
        let Ok(index) = u16::try_from(index) else {
            self.formats.pop();
            return Err(FormatError {
                offset: 0,
                message: format!(
                    "more than {} distinct `print` formats in one kernel",
                    u16::MAX as usize + 1
                ),
            });
        };
        Ok(PrintFormat {
            index,
            values: values as u8,
        })
    }

    /// Declares a parameter of `kind` (a front end knows the kind only as data).
    pub fn param(&mut self, name: &str, kind: ParamKind) -> ParamIdx {
        self.params.push(Param {
            name: Cow::Owned(name.to_owned()),
            kind,
        });
        ParamIdx(last_index(self.params.len()))
    }

    /// Declares a read-only buffer parameter `&[T]`.
    pub fn buffer<T: Element>(&mut self, name: &str) -> ParamIdx {
        self.param(
            name,
            ParamKind::Buffer {
                elem: T::TYPE,
                writable: false,
            },
        )
    }

    /// Declares a writable buffer parameter `&mut [T]`.
    pub fn buffer_mut<T: Element>(&mut self, name: &str) -> ParamIdx {
        self.param(
            name,
            ParamKind::Buffer {
                elem: T::TYPE,
                writable: true,
            },
        )
    }

    /// Declares a scalar parameter.
    pub fn scalar(&mut self, name: &str, ty: ScalarType) -> ParamIdx {
        self.param(name, ParamKind::Scalar(ty))
    }

    /// Declares an LDS array of `len` elements of type `elem`.
    pub fn lds(&mut self, name: &str, elem: ElemType, len: u32) -> LdsIdx {
        // Saturates: an oversized layout is reported by `validate` as too large.
        let offset = self
            .lds_bytes
            .checked_next_multiple_of(4)
            .unwrap_or(u32::MAX);
        let decl = LdsDecl {
            name: Cow::Owned(name.to_owned()),
            elem,
            len,
            offset,
        };
        self.lds_bytes = offset.saturating_add(decl.bytes());
        self.lds.push(decl);
        LdsIdx(last_index(self.lds.len()))
    }

    /// The LDS array declared as `index`.
    pub fn lds_decl(&self, index: LdsIdx) -> Option<&LdsDecl> {
        self.lds.get(usize::from(index.0))
    }

    /// Declares the workgroup shape every launch must have
    /// ([`Program::workgroup_size`]).
    pub fn workgroup_size(&mut self, shape: [u32; 3]) -> &mut Self {
        self.workgroup_size = Some(shape);
        self
    }

    /// States that the kernel is race-free ([`Program::race_free`]).
    pub fn race_free(&mut self, claim: RaceFree) -> &mut Self {
        self.race_free = Some(claim);
        self
    }

    /// Names a register, for messages and the disassembler.
    pub fn name_register(&mut self, reg: Reg, name: &str) -> &mut Self {
        self.reg_names.retain(|n| n.reg != reg);
        self.reg_names.push(RegName {
            reg,
            name: Cow::Owned(name.to_owned()),
        });
        self
    }

    /// Appends an instruction; its source line is its 1-based position.
    pub fn push(&mut self, inst: Inst) -> &mut Self {
        let line = self.insts.len() as u32 + 1;
        self.push_at(inst, SourceLoc { line, column: 1 })
    }

    /// Appends an instruction with an explicit source location.
    pub fn push_at(&mut self, inst: Inst, loc: SourceLoc) -> &mut Self {
        self.insts.push(inst);
        self.locs.push(loc);
        self
    }

    /// Appends several instructions.
    pub fn extend(&mut self, insts: impl IntoIterator<Item = Inst>) -> &mut Self {
        for inst in insts {
            self.push(inst);
        }
        self
    }

    /// The program, with `end` appended unless it is already last, not yet linked
    /// or validated.
    pub fn program(&self) -> Program {
        let mut insts = self.insts.clone();
        let mut locs = self.locs.clone();
        if !matches!(insts.last(), Some(Inst::End)) {
            let line = locs.last().map_or(1, |l| l.line + 1);
            insts.push(Inst::End);
            locs.push(SourceLoc { line, column: 1 });
        }
        let (vregs, sregs, mregs) = register_counts(&insts);
        Program {
            name: Cow::Owned(self.name.clone()),
            file: Cow::Borrowed(""),
            params: Cow::Owned(self.params.clone()),
            lds: Cow::Owned(self.lds.clone()),
            insts: Cow::Owned(insts),
            locs: Cow::Owned(locs),
            vregs,
            sregs,
            mregs,
            lds_bytes: self.lds_bytes,
            // In register order, whatever order the names were declared in:
            // a kernel printed with its declarations grouped by class builds
            // the same program.
            reg_names: Cow::Owned({
                let mut names = self.reg_names.clone();
                names.sort_by_key(|n| n.reg);
                names
            }),
            workgroup_size: self.workgroup_size,
            race_free: self.race_free,
            formats: self.formats.iter().cloned().map(Cow::Owned).collect(),
            scratch_words: 0,
        }
    }

    /// Links and validates the program, appending `end` unless it is already last.
    pub fn build(&self) -> Result<Kernel, ValidationErrors> {
        Kernel::new(self.program())
    }
}

/// The index of the last of `len` items; past `u16::MAX` items it saturates, and
/// `validate` reports the program as having too many.
fn last_index(len: usize) -> u16 {
    u16::try_from(len.saturating_sub(1)).unwrap_or(u16::MAX)
}

/// The number of vector, scalar and mask registers `insts` use (highest index + 1).
pub fn register_counts(insts: &[Inst]) -> (u16, u16, u16) {
    let mut counts = [0u16; 3];
    for inst in insts {
        let fields = inst.fields();
        for reg in fields.written().chain(fields.read()) {
            let (class, n) = reg.parts();
            let c = match class {
                'v' => 0,
                's' => 1,
                _ => 2,
            };
            counts[c] = counts[c].max(n.saturating_add(1));
        }
    }
    (counts[0], counts[1], counts[2])
}
