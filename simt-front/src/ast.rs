//! The syntax tree of a `simt_kernel!` invocation, with the spans errors point at.

use proc_macro2::Span;
use simt_lang::{ElemType, RaceFree, ScalarType};
use syn::{Attribute, Ident, Lit, Visibility};

/// One `kernel` item.
pub struct Kernel {
    /// Outer attributes and doc comments, put on the generated module.
    pub attrs: Vec<Attribute>,
    /// The generated module's visibility.
    pub vis: Visibility,
    /// The kernel's name, also the module's.
    pub name: Ident,
    /// `#[workgroup_size(x, y, z)]`: the shape every launch must have, and
    /// the attribute's tokens.
    pub workgroup_size: Option<([u32; 3], Span)>,
    /// `#[race_free]` or `#[race_free(lockstep)]`: the attribute's name and
    /// its claim, when the kernel states it.
    pub race_free: Option<(Span, RaceFree)>,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// Declarations and instructions, in order.
    pub body: Vec<Stmt>,
    /// The body's closing brace: where the implicit `end` is.
    pub close: Span,
}

/// A kernel parameter.
pub struct Param {
    /// The name.
    pub name: Ident,
    /// The type.
    pub ty: ParamType,
    /// The span of the type, for the generated `launch` signature.
    pub ty_span: Span,
}

/// A parameter's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// `&[T]` or `&mut [T]`.
    Buffer {
        /// The element type.
        elem: ElemType,
        /// `&mut`.
        writable: bool,
    },
    /// `u32`, `i32` or `f32`.
    Scalar(ScalarType),
}

/// A statement of a kernel body.
pub enum Stmt {
    /// `vreg a, b;` and friends.
    Regs(RegDecl),
    /// `lds tile: [f32; 256];`
    Lds(LdsDecl),
    /// One instruction.
    Inst(Instruction),
}

/// The class of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegClass {
    /// `v`: vector.
    V,
    /// `s`: scalar.
    S,
    /// `m`: mask.
    M,
}

impl RegClass {
    /// The letter of numbered registers (`v3`).
    pub fn letter(self) -> char {
        match self {
            RegClass::V => 'v',
            RegClass::S => 's',
            RegClass::M => 'm',
        }
    }

    /// The word used in messages.
    pub fn word(self) -> &'static str {
        match self {
            RegClass::V => "vector",
            RegClass::S => "scalar",
            RegClass::M => "mask",
        }
    }
}

/// A register declaration.
pub struct RegDecl {
    /// The class declared.
    pub class: RegClass,
    /// The names, in order.
    pub names: Vec<Ident>,
}

/// An LDS array declaration.
pub struct LdsDecl {
    /// The array's name.
    pub name: Ident,
    /// The element type.
    pub elem: ElemType,
    /// The number of elements, a constant expression.
    pub len: Expr,
}

/// An instruction: a mnemonic and its operands.
pub struct Instruction {
    /// The mnemonic, as written; also the instruction's source location.
    pub mnemonic: Ident,
    /// The operands, in order.
    pub operands: Vec<Operand>,
    /// A `,` after the last operand, which the checker rejects once the
    /// operand count is right (a short count is the more useful error).
    pub trailing_comma: Option<Span>,
    /// The performance contracts written on the lines before it.
    pub contracts: Vec<Contract>,
    /// The calls of inline functions it was written out by, outermost
    /// first; empty for an instruction of the kernel's own body.
    pub inlined: Vec<crate::functions::CallSite>,
}

/// What a performance contract on an instruction states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContractKind {
    /// `#[conflict_free]` on an LDS access: no bank conflict in any fully
    /// active phase.
    ConflictFree,
    /// `#[coalesced]` on a global access: the fewest sectors its element
    /// size allows, up to the base's alignment.
    Coalesced,
    /// `#[uniform]` on an `if` or `loop`: its mask is the same in every lane
    /// of a wave.
    Uniform,
}

impl ContractKind {
    /// The attribute's name.
    pub fn name(self) -> &'static str {
        match self {
            ContractKind::ConflictFree => "conflict_free",
            ContractKind::Coalesced => "coalesced",
            ContractKind::Uniform => "uniform",
        }
    }
}

/// A performance contract and where it is written.
#[derive(Clone, Copy, Debug)]
pub struct Contract {
    /// What it states.
    pub kind: ContractKind,
    /// The attribute's name.
    pub span: Span,
}

/// An operand, before name resolution.
pub enum Operand {
    /// A bare name: a register, parameter, LDS array or special value.
    Name(Ident),
    /// `base.field`: a special value's axis (`global_id.x`).
    Dotted {
        /// The part before the dot.
        base: Ident,
        /// The part after it.
        field: Ident,
    },
    /// A number or constant expression, checked and converted when its
    /// position's type is known.
    Number(Expr),
    /// `base[index]`, `base[index + offset]` or `base.bytes[...]`.
    Mem {
        /// The buffer or LDS array.
        base: Ident,
        /// Whether the index counts bytes.
        bytes: bool,
        /// The index.
        index: Box<Operand>,
        /// The offset after `+` or `-` (`true` for `-`).
        offset: Option<(bool, Box<Operand>)>,
        /// The closing bracket.
        close: Span,
    },
    /// `"text {}"`: a `print`'s format.
    Str(syn::LitStr),
    /// `[a, b, c, d]`: consecutive registers of a wide access.
    List {
        /// The registers, in order.
        items: Vec<Operand>,
        /// The opening bracket.
        open: Span,
        /// The closing bracket.
        close: Span,
    },
}

/// A constant expression of integer literals (`32 * 33`), or one number literal.
pub enum Expr {
    /// A literal: a `LitInt` or a `LitFloat`, with the span of a leading `-`.
    Lit {
        /// The literal.
        lit: Lit,
        /// The leading `-`, if any.
        minus: Option<Span>,
    },
    /// `-e` of a parenthesized, negated or compound expression.
    Neg(Box<Expr>, Span),
    /// `a op b`.
    Binary(Box<Expr>, BinOp, Box<Expr>),
}

/// An operator of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    And,
    /// `^`
    Xor,
    /// `|`
    Or,
}

impl Expr {
    /// The first and last tokens.
    pub fn spans(&self) -> (Span, Span) {
        match self {
            Expr::Lit { lit, minus } => (minus.unwrap_or_else(|| lit.span()), lit.span()),
            Expr::Neg(e, minus) => (*minus, e.spans().1),
            Expr::Binary(a, _, b) => (a.spans().0, b.spans().1),
        }
    }
}

impl Operand {
    /// The first and last tokens of the operand, so that errors can underline
    /// all of `global_id.x`, `-3` or `buf[i]`.
    pub fn spans(&self) -> (Span, Span) {
        match self {
            Operand::Name(id) => (id.span(), id.span()),
            Operand::Dotted { base, field } => (base.span(), field.span()),
            Operand::Number(e) => e.spans(),
            Operand::Str(s) => (s.span(), s.span()),
            Operand::Mem { base, close, .. } => (base.span(), *close),
            Operand::List { open, close, .. } => (*open, *close),
        }
    }
}
