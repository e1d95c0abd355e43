//! A PTX module as written: its kernels, their parameters, registers,
//! variables and statements. Nothing is checked here beyond the grammar.

use crate::diagnostic::Pos;
use std::collections::BTreeMap;

/// A parsed PTX file.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// `.target`'s words (`sm_90`).
    pub target: Vec<String>,
    /// `.address_size`, 64 when not given.
    pub address_size: u32,
    /// `.file` numbers to paths, for `.loc`.
    pub files: BTreeMap<u32, String>,
    /// Variables declared outside any kernel (`.extern .shared`, `.global`).
    pub vars: Vec<VarDecl>,
    /// The kernels (`.entry`), in order.
    pub entries: Vec<Entry>,
    /// Device functions (`.func`) by name: where each is declared.
    pub funcs: BTreeMap<String, Pos>,
}

/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `.global`.
    Global,
    /// `.shared`.
    Shared,
    /// `.local`.
    Local,
    /// `.param`.
    Param,
    /// `.const`.
    Const,
}

/// A variable: `.shared .align 4 .b8 tile[4096];`.
#[derive(Clone, Debug)]
pub struct VarDecl {
    /// Its name.
    pub name: String,
    /// Where its name is.
    pub at: Pos,
    /// Its state space.
    pub space: Space,
    /// `.align`, or the element size.
    pub align: u32,
    /// The element type's name (`b8`, `f32`).
    pub ty: String,
    /// Bytes per element.
    pub elem_size: u32,
    /// Elements: `None` for `name[]` (sized at launch), 1 for a scalar.
    pub count: Option<u32>,
    /// Whether it has an initialiser.
    pub init: bool,
}

/// A kernel: `.entry name (params) { body }`.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The name as written (mangled for C++).
    pub name: String,
    /// Where the name is.
    pub at: Pos,
    /// The parameters, in order.
    pub params: Vec<ParamDecl>,
    /// The register declarations.
    pub regs: Vec<RegDecl>,
    /// Variables declared in the body (`.shared`, `.local`).
    pub vars: Vec<VarDecl>,
    /// Labels and instructions, in order.
    pub body: Vec<Stmt>,
    /// `.reqntid x, y, z`, when given.
    pub reqntid: Option<[u32; 3]>,
    /// Where `.pragma "nounroll";` stands: the index into `body` of the
    /// statement after it.
    pub nounroll: Vec<usize>,
}

/// A kernel parameter: `.param .u64 .ptr .align 1 name`.
#[derive(Clone, Debug)]
pub struct ParamDecl {
    /// Its name.
    pub name: String,
    /// Where its name is.
    pub at: Pos,
    /// Its type's name (`u32`, `u64`, `f32`, `b8`).
    pub ty: String,
    /// `name[n]`: an array (a struct passed by value).
    pub array: Option<u32>,
}

/// `.reg .f32 %f<54>;` or `.reg .pred %p;`.
#[derive(Clone, Debug)]
pub struct RegDecl {
    /// The name, or the prefix of a numbered range.
    pub name: String,
    /// Its type's name.
    pub ty: String,
    /// `%f<54>`: registers `%f0` to `%f53`.
    pub count: Option<u32>,
    /// Where the name is.
    pub at: Pos,
}

/// A statement of a kernel's body.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `name:`.
    Label {
        /// The label.
        name: String,
        /// Where it is.
        at: Pos,
    },
    /// An instruction.
    Inst(Inst),
}

/// `@!%p add.s32 %r1, %r2, 4;`.
#[derive(Clone, Debug)]
pub struct Inst {
    /// The guard predicate: whether negated, its register, where it is.
    pub guard: Option<(bool, String, Pos)>,
    /// The opcode (`add`).
    pub op: String,
    /// The modifiers after it, without dots (`["s32"]`).
    pub mods: Vec<String>,
    /// The operands.
    pub args: Vec<Operand>,
    /// Where the opcode is.
    pub at: Pos,
    /// How many characters the opcode and its modifiers span.
    pub len: u32,
    /// The source place of the last `.loc` before it: file number, line,
    /// column.
    pub loc: Option<(u32, u32, u32)>,
}

impl Inst {
    /// Whether modifier `m` is present.
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
}

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register or special register, without `%` (`r1`, `tid.x`); `!%p` is
    /// a negated predicate.
    Reg {
        /// Its name.
        name: String,
        /// Whether written `!%p`.
        not: bool,
        /// Where it is.
        at: Pos,
    },
    /// An integer immediate (two's complement for negative ones).
    Int(u64, Pos),
    /// An `f32` immediate, as bits.
    F32(u32, Pos),
    /// An `f64` immediate, as bits.
    F64(u64, Pos),
    /// A variable, parameter or label name.
    Sym(String, Pos),
    /// `[base+offset]`.
    Addr {
        /// The base: a register or a symbol.
        base: Box<Operand>,
        /// The byte offset.
        offset: i64,
        /// Where `[` is.
        at: Pos,
    },
    /// `{a, b, ...}`.
    Vector(Vec<Operand>, Pos),
    /// `d|p`: a result and a predicate result.
    Pair(Box<Operand>, Box<Operand>),
    /// `_`: a result thrown away.
    Sink(Pos),
}

impl Operand {
    /// Where the operand starts.
    pub fn at(&self) -> Pos {
        match self {
            Operand::Reg { at, .. }
            | Operand::Int(_, at)
            | Operand::F32(_, at)
            | Operand::F64(_, at)
            | Operand::Sym(_, at)
            | Operand::Addr { at, .. }
            | Operand::Vector(_, at)
            | Operand::Sink(at) => *at,
            Operand::Pair(a, _) => a.at(),
        }
    }
}
