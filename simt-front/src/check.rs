//! Name resolution, operand checks and lowering to a [`Program`], then the
//! shared validator; every error points at the token it is about.
//!
//! Errors from [`simt_lang::link`] and [`simt_lang::validate`] name instructions
//! by index; each index maps to the instruction's mnemonic token. Their notes
//! (the unclosed `if`, the divergent mask's definition) become errors of their
//! own at the related mnemonic, with messages that start with `note: `: stable
//! proc macros cannot attach a real note to another span.

use crate::ast::{self, Expr, Kernel, Operand, ParamType, RegClass, Stmt};
use crate::suggest;
use crate::words;
use proc_macro2::{Punct, Spacing, Span, TokenStream, TokenTree};
use simt_lang::isa::Mnemonic;
use simt_lang::isa::{Field, ImmType as Ty, MemRef, Op, Role};
use simt_lang::limits::{MAX_LDS_BYTES, MAX_MREGS, MAX_PARAMS, MAX_SREGS, MAX_VREGS};
use simt_lang::{
    Addressing, Axis, ElemType, GlobalRef, Inst, Kernel as ValidKernel, LdsDecl, LdsIdx, LdsRef,
    MReg, ParamIdx, ParamKind, Program, Reg, RegName, SReg, SourceLoc, Special, Uniformity, VReg,
};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use syn::ext::IdentExt;
use syn::{Error, Ident, Lit};

/// The special values, by the name written without an axis.
pub(crate) const SPECIALS: &[&str] = &[
    "lane_id",
    "local_id",
    "global_id",
    "group_id",
    "group_size",
    "num_groups",
    "wave_id",
    "wave_width",
];

/// The name of the generated `launch` function's first parameter.
const CONFIG: &str = "config";

/// Checks `kernel` and lowers it to a linked, validated program, or returns
/// every error found.
pub fn check(kernel: &Kernel) -> Result<ValidKernel, Vec<Error>> {
    let mut cx = Checker {
        kernel,
        errors: Vec::new(),
        names: HashMap::new(),
        params: Vec::new(),
        lds: Vec::new(),
        lds_bytes: 0,
        reg_names: HashMap::new(),
    };
    cx.check_name();
    cx.declare_params();
    cx.declare_body();
    let program = cx.lower();
    if cx.errors.is_empty() {
        if let Some(program) = program {
            return Ok(program);
        }
    }
    Err(cx.errors)
}

/// What a name stands for.
#[derive(Clone, Copy, Debug)]
enum Entity {
    Reg(Reg),
    Param(ParamIdx, ParamType),
    Lds(LdsIdx, ElemType),
}

/// A declared name and where it was declared.
struct Named {
    entity: Entity,
    span: Span,
}

/// What an operand written as a name or `base.axis` resolves to.
#[derive(Clone, Copy, Debug)]
enum Thing {
    Entity(Entity),
    Special(Special),
}

struct Checker<'a> {
    kernel: &'a Kernel,
    errors: Vec<Error>,
    names: HashMap<String, Named>,
    params: Vec<simt_lang::Param>,
    lds: Vec<LdsDecl>,
    lds_bytes: u32,
    /// The declared name of each named register, to word the validator's notes.
    reg_names: HashMap<Reg, String>,
}

/// `v3` -> `(V, 3)`: a numbered register, whatever its number.
pub(crate) fn numbered(name: &str) -> Option<(RegClass, u64)> {
    let mut chars = name.chars();
    let class = match chars.next()? {
        'v' => RegClass::V,
        's' => RegClass::S,
        'm' => RegClass::M,
        _ => return None,
    };
    let digits = chars.as_str();
    // `v07` is a name, not `v7`: a register has one spelling.
    let canonical = digits == "0" || !digits.starts_with('0');
    if digits.is_empty()
        || digits.len() > 12
        || !canonical
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    digits.parse().ok().map(|n| (class, n))
}

fn limit(class: RegClass) -> u16 {
    match class {
        RegClass::V => MAX_VREGS,
        RegClass::S => MAX_SREGS,
        RegClass::M => MAX_MREGS,
    }
}

fn make_reg(class: RegClass, n: u16) -> Reg {
    match class {
        RegClass::V => Reg::V(VReg(n)),
        RegClass::S => Reg::S(SReg(n)),
        RegClass::M => Reg::M(MReg(n)),
    }
}

fn reg_class(reg: Reg) -> RegClass {
    match reg {
        Reg::V(_) => RegClass::V,
        Reg::S(_) => RegClass::S,
        Reg::M(_) => RegClass::M,
    }
}

fn loc(span: Span) -> SourceLoc {
    let start = span.start();
    if start.line == 0 {
        // Compilers before 1.88 do not tell proc macros where tokens are.
        return SourceLoc::default();
    }
    SourceLoc {
        line: u32::try_from(start.line).unwrap_or(u32::MAX),
        column: u32::try_from(start.column + 1).unwrap_or(u32::MAX),
    }
}

impl Checker<'_> {
    fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(Error::new(span, message));
    }

    /// An error underlining the whole operand: a span from its first token to
    /// its last (`Span::join` is unstable, but rustc joins the spans of the
    /// first and last tokens of the `compile_error!` syn emits).
    fn error_at(&mut self, op: &Operand, message: impl std::fmt::Display) {
        let (first, last) = op.spans();
        let tokens: TokenStream = [first, last]
            .into_iter()
            .map(|span| {
                let mut p = Punct::new('.', Spacing::Alone);
                p.set_span(span);
                TokenTree::Punct(p)
            })
            .collect();
        self.errors.push(Error::new_spanned(tokens, message));
    }

    fn note(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors
            .push(Error::new(span, format!("note: {message}")));
    }

    /// Adds a name to the kernel's single namespace, or reports why it cannot be.
    fn declare(&mut self, id: &Ident, entity: Entity) -> bool {
        let name = id.unraw().to_string();
        let raw = *id != name;
        let why = if name == "_" {
            Some(
                "`_` is not a name: a register, array or parameter is read by its name, so it needs one"
                    .to_owned(),
            )
        } else if numbered(&name).is_some() {
            Some(format!("`{name}` is the name of a numbered register"))
        } else if SPECIALS.contains(&name.as_str()) {
            Some(format!("`{name}` is a special value"))
        } else {
            reserved(&name)
        };
        if let Some(why) = why {
            let raw = if raw {
                format!(" (writing it `r#{name}` does not change that)")
            } else {
                String::new()
            };
            self.error(id.span(), format!("{why}{raw}; choose another name"));
            return false;
        }
        if raw {
            // Still declared, as written, so that its uses add no errors.
            let param = matches!(entity, Entity::Param(..));
            self.error(id.span(), raw_name(&name, param));
        }
        let name = id.to_string();
        if let Some(first) = self.names.get(&name) {
            let first = first.span;
            self.error(id.span(), format!("`{name}` is declared twice"));
            self.note(first, format!("`{name}` is first declared here"));
            return false;
        }
        self.names.insert(
            name,
            Named {
                entity,
                span: id.span(),
            },
        );
        true
    }

    /// The kernel's name is printed back as written (a kernel named `simt` is
    /// refused where its module would be made, in `expand`).
    fn check_name(&mut self) {
        let id = &self.kernel.name;
        let name = id.unraw().to_string();
        if *id != name {
            self.error(id.span(), raw_name(&name, true));
        }
    }

    fn declare_params(&mut self) {
        for (i, p) in self.kernel.params.iter().enumerate() {
            let Ok(index) = u16::try_from(i).map(ParamIdx) else {
                break;
            };
            if i == usize::from(MAX_PARAMS) {
                self.error(
                    p.name.span(),
                    format!("too many parameters: the machine takes at most {MAX_PARAMS}"),
                );
            }
            let name = p.name.to_string();
            if name == CONFIG {
                self.error(
                    p.name.span(),
                    "`config` is reserved: it is the first parameter of the generated `launch`",
                );
            } else if name.starts_with(|c: char| c.is_uppercase()) {
                // Such a name could be read as a constant pattern (`PROGRAM`, `None`)
                // in the generated `launch`.
                self.error(
                    p.name.span(),
                    format!("parameter `{name}` must start with a lowercase letter"),
                );
            }
            self.declare(&p.name, Entity::Param(index, p.ty));
            self.params.push(simt_lang::Param {
                name: Cow::Owned(p.name.unraw().to_string()),
                kind: match p.ty {
                    ParamType::Buffer { elem, writable } => ParamKind::Buffer { elem, writable },
                    ParamType::Scalar(t) => ParamKind::Scalar(t),
                },
            });
        }
    }

    /// Declares registers and LDS arrays. Named registers take the lowest
    /// indices that no numbered register of the kernel uses.
    fn declare_body(&mut self) {
        let mut used: [BTreeSet<u16>; 3] = Default::default();
        for stmt in &self.kernel.body {
            if let Stmt::Inst(inst) = stmt {
                for op in &inst.operands {
                    reserve_numbered(op, &mut used);
                }
            }
        }
        let mut next = [0u16; 3];
        for stmt in &self.kernel.body {
            match stmt {
                Stmt::Regs(decl) => {
                    let c = decl.class as usize;
                    for id in &decl.names {
                        while used[c].contains(&next[c]) {
                            next[c] = next[c].saturating_add(1);
                        }
                        let n = next[c];
                        if n >= limit(decl.class) {
                            self.error(
                                id.span(),
                                format!(
                                    "too many {} registers: `{id}` does not fit in the machine's {}",
                                    decl.class.word(),
                                    limit(decl.class)
                                ),
                            );
                            continue;
                        }
                        let reg = make_reg(decl.class, n);
                        if self.declare(id, Entity::Reg(reg)) {
                            used[c].insert(n);
                            self.reg_names.insert(reg, id.to_string());
                        }
                    }
                }
                Stmt::Lds(decl) => self.declare_lds(decl),
                Stmt::Inst(_) => {}
            }
        }
    }

    fn declare_lds(&mut self, decl: &crate::ast::LdsDecl) {
        let (first, _) = decl.len.spans();
        // A length past what an immediate holds is still a length, and too
        // long for the LDS: that is the message it gets.
        let value = match &decl.len {
            Expr::Binary(a, op, b) => binary(a, *op, b),
            Expr::Lit {
                lit: syn::Lit::Int(n),
                minus: None,
            } if n.suffix().is_empty() && n.base10_parse::<u64>().is_ok() => {
                Ok(i128::from(n.base10_parse::<u64>().unwrap_or_default()))
            }
            e => eval(e).map(|n| match n {
                Number::Int(n) => i128::from(n),
                Number::Float(_) => 0,
            }),
        };
        let len = match value {
            Ok(n) if n > 0 => u64::try_from(n).unwrap_or(u64::MAX),
            Ok(_) => {
                self.error(first, "an LDS array's length must be a positive integer");
                return;
            }
            Err((span, message)) => {
                self.error(
                    span,
                    format!("an LDS array's length must be a positive integer: {message}"),
                );
                return;
            }
        };
        let Ok(index) = u16::try_from(self.lds.len()).map(LdsIdx) else {
            self.error(decl.name.span(), "too many LDS arrays");
            return;
        };
        if !self.declare(&decl.name, Entity::Lds(index, decl.elem)) {
            return;
        }
        let offset = self
            .lds_bytes
            .checked_next_multiple_of(4)
            .unwrap_or(u32::MAX);
        let size = u64::from(decl.elem.size());
        let own = len.saturating_mul(size);
        let end = u64::from(offset).saturating_add(own);
        if end > u64::from(MAX_LDS_BYTES) && self.lds_bytes <= MAX_LDS_BYTES {
            let name = &decl.name;
            let message = if own > u64::from(MAX_LDS_BYTES) {
                format!(
                    "the length of `{name}`, {len} elements of {size} byte{} ({own} bytes), exceeds the machine's {MAX_LDS_BYTES} bytes of LDS per workgroup",
                    if size == 1 { "" } else { "s" }
                )
            } else {
                format!(
                    "`{name}` does not fit: the LDS arrays need {end} bytes, and the machine has {MAX_LDS_BYTES} bytes per workgroup"
                )
            };
            self.error(first, message);
        }
        self.lds_bytes = u32::try_from(end).unwrap_or(u32::MAX);
        self.lds.push(LdsDecl {
            name: Cow::Owned(decl.name.to_string()),
            elem: decl.elem,
            len: u32::try_from(len).unwrap_or(u32::MAX),
            offset,
        });
    }

    /// Every name an unknown one might have meant.
    fn candidates(&self) -> Vec<String> {
        let mut names: Vec<String> = self.names.keys().cloned().collect();
        names.sort();
        names.extend(SPECIALS.iter().map(|s| s.to_string()));
        names
    }

    /// Resolves a bare name or `base.axis` to what it stands for.
    fn resolve(&mut self, op: &Operand) -> Option<Thing> {
        let (base, field) = match op {
            Operand::Name(id) => (id, None),
            Operand::Dotted { base, field } => (base, Some(field)),
            _ => return None,
        };
        let name = base.to_string();
        if let Some((class, n)) = numbered(&name) {
            return match u16::try_from(n).ok().filter(|&n| n < limit(class)) {
                Some(n) if field.is_none() => Some(Thing::Entity(Entity::Reg(make_reg(class, n)))),
                Some(_) => {
                    self.no_field(base, field);
                    None
                }
                None => {
                    self.error(
                        base.span(),
                        format!(
                            "register `{name}` is out of range: the machine has {} {} registers ({}0..{}{})",
                            limit(class),
                            class.word(),
                            class.letter(),
                            class.letter(),
                            limit(class) - 1
                        ),
                    );
                    None
                }
            };
        }
        if let Some(named) = self.names.get(&name) {
            let entity = named.entity;
            if field.is_some() {
                self.no_field(base, field);
                return None;
            }
            return Some(Thing::Entity(entity));
        }
        let axis = field.map(|f| f.to_string());
        match special_value(&name, axis.as_deref()) {
            Some(Ok(s)) => Some(Thing::Special(s)),
            Some(Err(message)) => {
                self.error(field.map_or(base.span(), Ident::span), message);
                None
            }
            None => {
                let axis = field.map(Ident::to_string);
                if let Some(ours) = suggest::special_spelling(&name, axis.as_deref()) {
                    let written = match &axis {
                        Some(axis) => format!("{name}.{axis}"),
                        None => name,
                    };
                    self.error_at(
                        op,
                        format!(
                            "unknown name `{written}`; did you mean the special value `{ours}`?"
                        ),
                    );
                    return None;
                }
                let candidates = self.candidates();
                let suggestions = suggest::closest(&name, candidates.iter().map(String::as_str));
                let hint = if suggestions.is_empty() {
                    "; declare registers with `vreg`, `sreg` or `mreg`".to_owned()
                } else {
                    suggest::did_you_mean(&suggestions)
                };
                self.error(base.span(), format!("unknown name `{name}`{hint}"));
                None
            }
        }
    }

    fn no_field(&mut self, base: &Ident, field: Option<&Ident>) {
        let (span, f) = match field {
            Some(f) => (f.span(), f.to_string()),
            None => (base.span(), String::new()),
        };
        let message = if f == "bytes" {
            format!("expected `[index]` after `{base}.bytes`")
        } else if !suggest::closest(&f, ["bytes"]).is_empty() {
            format!("`{base}` has no field `{f}`; did you mean `{base}.bytes[index]`?")
        } else {
            format!("`{base}` has no field `{f}`: only special values take an axis")
        };
        self.error(span, message);
    }

    /// How an operand is described in messages.
    fn describe(&self, op: &Operand, thing: Option<Thing>) -> String {
        let text = match op {
            Operand::Name(id) => id.to_string(),
            Operand::Dotted { base, field } => format!("{base}.{field}"),
            Operand::Number { .. } => return "an immediate".to_owned(),
            Operand::Mem { .. } => return "a memory operand".to_owned(),
            Operand::List { .. } => return "a register list".to_owned(),
        };
        match thing {
            Some(Thing::Entity(Entity::Reg(r))) => {
                format!("{} register `{text}`", reg_class(r).word())
            }
            Some(Thing::Entity(Entity::Param(_, ParamType::Buffer { .. }))) => {
                format!("buffer `{text}`")
            }
            Some(Thing::Entity(Entity::Param(_, ParamType::Scalar(_)))) => {
                format!("scalar parameter `{text}`")
            }
            Some(Thing::Entity(Entity::Lds(..))) => format!("LDS array `{text}`"),
            Some(Thing::Special(_)) => format!("special value `{text}`"),
            None => format!("`{text}`"),
        }
    }

    /// A register written by the instruction.
    fn dst(&mut self, op: &Operand, class: RegClass, mnemonic: &Ident) -> Option<Reg> {
        let want = class.word();
        let thing = match op {
            Operand::Number { .. } => {
                self.error_at(
                    op,
                    format!("expected a {want} register to write, found an immediate"),
                );
                return None;
            }
            Operand::Mem { .. } => {
                let hint = match class {
                    RegClass::V => " (stores are written `global_store buf[i], value`)",
                    _ => "",
                };
                self.error_at(
                    op,
                    format!("expected a {want} register to write, found a memory operand{hint}"),
                );
                return None;
            }
            Operand::List { .. } => {
                self.error_at(
                    op,
                    format!("expected a {want} register to write, found a register list (lists are for the `_x2` and `_x4` loads and stores)"),
                );
                return None;
            }
            _ => self.resolve(op)?,
        };
        let what = self.describe(op, Some(thing));
        let message = match thing {
            Thing::Entity(Entity::Reg(r)) if reg_class(r) == class => return Some(r),
            Thing::Entity(Entity::Reg(r)) => {
                let hint = match (class, reg_class(r)) {
                    (RegClass::V, RegClass::S) => {
                        " (scalar registers are written by `s_` instructions)".to_owned()
                    }
                    // `v_readfirstlane` and `v_readlane` are `v_` instructions
                    // that write a scalar: what they write is the useful part.
                    (RegClass::S, RegClass::V) if mnemonic.to_string().starts_with("v_") => {
                        format!(
                            ": `{mnemonic}` reads one lane and writes that value, the same for the whole wave, to a scalar register; declare the destination with `sreg` (`sreg s;` then `{mnemonic} s, ...`), and copy it to every lane with `v_mov {op_text}, s` if a vector is needed",
                            op_text = crate::parse::text(op)
                        )
                    }
                    (RegClass::S, RegClass::V) => {
                        " (vector registers are written by `v_` instructions)".to_owned()
                    }
                    _ => String::new(),
                };
                format!("`{mnemonic}` writes a {want} register, but {what} is not one{hint}")
            }
            Thing::Special(_) => {
                format!("cannot write to {what}: special values are read-only")
            }
            Thing::Entity(Entity::Param(_, ParamType::Scalar(_))) => {
                format!("cannot write to {what}: parameters are read-only")
            }
            Thing::Entity(Entity::Param(..)) => format!(
                "cannot write to {what} directly: store into an element with `global_store`"
            ),
            Thing::Entity(Entity::Lds(..)) => {
                format!("cannot write to {what} directly: store into an element with `lds_store`")
            }
        };
        self.error_at(op, message);
        None
    }

    /// An immediate read as `ty`, as raw bits.
    fn immediate(&mut self, op: &Operand, expr: &Expr, ty: Ty, mnemonic: &Ident) -> Option<u32> {
        let number = match eval(expr) {
            Ok(n) => Ok(n),
            // A lone literal's error underlines all of it, its `-` included.
            Err((_, message)) if matches!(expr, Expr::Lit { .. }) => Err(message),
            Err((span, message)) => {
                self.error(span, message);
                return None;
            }
        };
        let result = match number {
            // The value is in `i32::MIN..=u32::MAX`: the low 32 bits of a
            // negative one are its `i32` two's complement.
            Ok(Number::Int(value)) => match ty {
                Ty::F32 => {
                    let f = value as f32;
                    if f as i64 == value {
                        Ok(f.to_bits())
                    } else {
                        Err(format!(
                            "integer {value} is not exactly an `f32`: write it as a float literal"
                        ))
                    }
                }
                Ty::Int | Ty::Bits | Ty::Access => Ok(value as u32),
            },
            Ok(Number::Float(value)) => match ty {
                Ty::F32 | Ty::Bits => Ok(value.to_bits()),
                Ty::Int | Ty::Access => Err(format!(
                    "float literal where an integer is expected: `{mnemonic}` reads integers"
                )),
            },
            Err(message) => Err(message),
        };
        result.map_err(|message| self.error_at(op, message)).ok()
    }

    /// A value read by the instruction; `scalar` when it must be wave-uniform.
    fn value(
        &mut self,
        op: &Operand,
        ty: Ty,
        scalar: bool,
        mnemonic: &Ident,
    ) -> Option<simt_lang::Operand> {
        use simt_lang::Operand as O;
        let thing = match op {
            Operand::Number(expr) => return self.immediate(op, expr, ty, mnemonic).map(O::Imm),
            Operand::Mem { .. } => {
                self.error_at(
                    op,
                    "memory operands are only allowed in loads and stores: load the value into a register first",
                );
                return None;
            }
            Operand::List { .. } => {
                self.error_at(
                    op,
                    "a register list is only an operand of the `_x2` and `_x4` loads and stores",
                );
                return None;
            }
            _ => self.resolve(op)?,
        };
        let what = self.describe(op, Some(thing));
        let message = match thing {
            Thing::Entity(Entity::Reg(Reg::V(r))) if !scalar => return Some(O::V(r)),
            Thing::Entity(Entity::Reg(Reg::V(_))) => not_uniform(mnemonic, &what, "may differ"),
            Thing::Entity(Entity::Reg(Reg::S(r))) => return Some(O::S(r)),
            Thing::Entity(Entity::Reg(Reg::M(_))) => {
                format!("{what} is not a value (`v_select` turns a mask into values)")
            }
            Thing::Entity(Entity::Param(i, ParamType::Scalar(_))) => return Some(O::Arg(i)),
            Thing::Entity(Entity::Param(..)) => {
                format!("{what} is not a value: load an element with `global_load dst, buf[i]`")
            }
            Thing::Entity(Entity::Lds(..)) => {
                format!("{what} is not a value: load an element with `lds_load dst, tile[i]`")
            }
            Thing::Special(s) if !scalar || s.uniformity() != Uniformity::Lane => {
                return Some(O::Special(s))
            }
            Thing::Special(_) => not_uniform(mnemonic, &what, "differs"),
        };
        self.error_at(op, message);
        None
    }

    /// A mask register read by the instruction.
    fn mask(&mut self, op: &Operand) -> Option<MReg> {
        let thing = match op {
            Operand::Name(_) | Operand::Dotted { .. } => Some(self.resolve(op)?),
            _ => None,
        };
        if let Some(Thing::Entity(Entity::Reg(Reg::M(m)))) = thing {
            return Some(m);
        }
        let what = self.describe(op, thing);
        self.error_at(op, format!("expected a mask register, found {what}"));
        None
    }

    /// A memory operand of the space `role` names: a buffer element or an LDS
    /// element, with its index, offset and addressing, and the element type.
    fn memory(
        &mut self,
        op: &Operand,
        role: Role,
        m: &Mnemonic,
        mnemonic: &Ident,
    ) -> Option<(MemRef, ElemType)> {
        let global = matches!(
            role,
            Role::GlobalLoad | Role::GlobalStore | Role::GlobalAtomic
        );
        let want = if global {
            "a buffer element such as `buf[i]`"
        } else {
            "an LDS element such as `tile[i]`"
        };
        let Operand::Mem {
            base,
            bytes,
            index,
            offset,
            ..
        } = op
        else {
            let thing = match op {
                Operand::Name(_) | Operand::Dotted { .. } => self.resolve(op),
                _ => None,
            };
            let what = self.describe(op, thing);
            self.error_at(op, format!("expected {want}, found {what}"));
            return None;
        };
        let name = base.to_string();
        // The base must name a buffer or an LDS array: anything else (a register,
        // a special value, an unknown name) is an error here, never a dropped
        // instruction.
        let base_op = Operand::Name(base.clone());
        let entity = match self.resolve(&base_op)? {
            Thing::Entity(e @ (Entity::Param(_, ParamType::Buffer { .. }) | Entity::Lds(..))) => e,
            thing => {
                let what = self.describe(&base_op, Some(thing));
                let space = if global { "a buffer" } else { "an LDS array" };
                self.error(
                    base.span(),
                    format!("{what} is not {space}: expected {want}"),
                );
                return None;
            }
        };
        let addressing = if *bytes {
            Addressing::Byte
        } else {
            Addressing::Element
        };
        let index_written = &**index;
        let index = match index_written {
            inner @ Operand::Mem { .. } => {
                self.error_at(
                    inner,
                    "a memory operand cannot be an index: load it into a register first",
                );
                None
            }
            index => self.value(index, Ty::Int, false, mnemonic),
        };
        let offset = match offset {
            None => Some(simt_lang::Operand::Imm(0)),
            Some((negative, k)) => match (&**k, *negative) {
                (Operand::Number(e), true) => {
                    let at = e.spans().0;
                    let negated = eval(e).and_then(|n| match n {
                        Number::Int(v) => int(-i128::from(v), at),
                        Number::Float(_) => Err((at, "an offset is an integer".to_owned())),
                    });
                    match negated {
                        Ok(Number::Int(v)) => Some(simt_lang::Operand::Imm(v as u32)),
                        Ok(Number::Float(_)) => None,
                        Err((span, message)) => {
                            self.error(span, message);
                            None
                        }
                    }
                }
                (_, true) => {
                    let (base, i, k_text) = (
                        base.to_string(),
                        crate::parse::text(index_written),
                        crate::parse::text(k),
                    );
                    self.error_at(
                        k,
                        format!(
                            "only an immediate offset can be subtracted: compute the index into a register first, `v_sub_u32 j, {i}, {k_text}`, and write `{base}[j]`"
                        ),
                    );
                    None
                }
                (k, false) => self.offset(op, k, index.as_ref(), mnemonic),
            },
        };
        let write = !matches!(role, Role::GlobalLoad | Role::LdsLoad);
        let elem = match (entity, global) {
            (Entity::Param(i, ParamType::Buffer { elem, writable }), true) => {
                if write && !writable {
                    self.error(
                        base.span(),
                        format!(
                            "store to read-only buffer `{name}` (declare it `&mut [{}]`)",
                            elem.name()
                        ),
                    );
                    if let Some(p) = self.kernel.params.get(usize::from(i.0)) {
                        self.note(p.ty_span, format!("`{name}` is declared read-only here"));
                    }
                }
                elem
            }
            (Entity::Lds(_, elem), false) => elem,
            (Entity::Lds(..), true) => {
                self.error(
                    base.span(),
                    format!("`{name}` is an LDS array: use the `lds_` loads, stores and atomics for LDS"),
                );
                return None;
            }
            _ => {
                self.error(
                    base.span(),
                    format!(
                        "`{name}` is a buffer: use the `global_` loads, stores and atomics for buffers"
                    ),
                );
                return None;
            }
        };
        let named = m.ops.iter().find_map(|o| match o {
            Op::Access(t) => Some(*t),
            _ => None,
        });
        if let Some(ty) = named {
            if !*bytes && ty != elem {
                self.error(
                    mnemonic.span(),
                    format!(
                        "`{mnemonic}` moves {} but the elements of `{name}` are {}: address bytes with `{name}.bytes[i]`, or use the untyped form",
                        ty.name(),
                        elem.name()
                    ),
                );
                return None;
            }
        }
        let (index, offset) = (index?, offset?);
        if let (true, simt_lang::Operand::Imm(i), simt_lang::Operand::Imm(k)) =
            (*bytes, index, offset)
        {
            // A wide access needs 4-byte alignment only, as AMD's dwordx2 and
            // dwordx4 do; any other needs its own size's.
            let wide = m.ops.iter().any(|o| matches!(o, Op::Width(_)));
            let size = if wide {
                4
            } else {
                named.unwrap_or(elem).size()
            };
            let at = i.wrapping_add(k);
            if at % size != 0 {
                self.error_at(
                    op,
                    format!(
                        "byte offset {} is not a multiple of {size}, so `{mnemonic}` would fault here as misaligned: use a byte offset that is a multiple of {size}, or index elements with `{name}[i]`",
                        at as i32
                    ),
                );
                return None;
            }
        }
        let mem = match entity {
            Entity::Param(buffer, _) => MemRef::Global(GlobalRef {
                buffer,
                index,
                offset,
                addressing,
            }),
            Entity::Lds(lds, _) => MemRef::Lds(LdsRef {
                lds,
                index,
                offset,
                addressing,
            }),
            Entity::Reg(_) => return None,
        };
        Some((mem, elem))
    }

    /// The added offset `k` of the memory operand `op`, which must be
    /// wave-uniform; `index` is its lowered index, when it lowered.
    fn offset(
        &mut self,
        op: &Operand,
        k: &Operand,
        index: Option<&simt_lang::Operand>,
        mnemonic: &Ident,
    ) -> Option<simt_lang::Operand> {
        let thing = match k {
            Operand::Name(_) | Operand::Dotted { .. } => self.resolve(k)?,
            _ => return self.value(k, Ty::Int, true, mnemonic),
        };
        let varies = match thing {
            Thing::Entity(Entity::Reg(Reg::V(_))) => true,
            Thing::Special(s) => s.uniformity() == Uniformity::Lane,
            _ => false,
        };
        if !varies {
            return self.value(k, Ty::Int, true, mnemonic);
        }
        let what = self.describe(k, Some(thing));
        let Operand::Mem {
            base,
            bytes,
            index: written,
            ..
        } = op
        else {
            return None;
        };
        let base = if *bytes {
            format!("{base}.bytes")
        } else {
            base.to_string()
        };
        let (i, k_text) = (crate::parse::text(written), crate::parse::text(k));
        let index_varies = match index {
            Some(simt_lang::Operand::V(_)) => true,
            Some(simt_lang::Operand::Special(s)) => s.uniformity() == Uniformity::Lane,
            _ => false,
        };
        let fix = if index_varies {
            format!(
                "add the two into a register first, `v_add_u32 j, {i}, {k_text}`, and write `{base}[j]`"
            )
        } else {
            format!("write the per-lane value first: `{base}[{k_text} + {i}]`")
        };
        self.error_at(
            k,
            format!(
                "the offset after `+` in a memory operand must be wave-uniform (an immediate or a scalar), but {what} may differ between lanes: {fix}"
            ),
        );
        None
    }

    /// A run of `n` consecutive vector registers written as `[a, b, ...]`: the first.
    fn run(&mut self, op: &Operand, n: u16, mnemonic: &Ident) -> Option<VReg> {
        let Operand::List { items, .. } = op else {
            self.error_at(
                op,
                format!(
                    "`{mnemonic}` moves {n} registers: write them as a list, `[{}]`",
                    list_example(n)
                ),
            );
            return None;
        };
        if items.len() != usize::from(n) {
            self.error_at(
                op,
                format!(
                    "`{mnemonic}` moves {n} registers, found {} in the list",
                    items.len()
                ),
            );
            return None;
        }
        let mut regs = Vec::with_capacity(items.len());
        for item in items {
            match self.resolve(item) {
                Some(Thing::Entity(Entity::Reg(Reg::V(r)))) => regs.push(Some(r)),
                Some(thing) => {
                    let what = self.describe(item, Some(thing));
                    self.error_at(item, format!("expected a vector register, found {what}"));
                    regs.push(None);
                }
                None => regs.push(None),
            }
        }
        let regs: Vec<VReg> = regs.into_iter().collect::<Option<_>>()?;
        let first = regs.first().copied()?;
        let consecutive = regs
            .iter()
            .enumerate()
            .all(|(k, r)| u32::from(r.0) == u32::from(first.0) + k as u32);
        if !consecutive {
            // Each as written, with the number a named one was given.
            let numbers: Vec<String> = items
                .iter()
                .zip(&regs)
                .map(|(item, r)| match item {
                    Operand::Name(id) if numbered(&id.to_string()).is_none() => {
                        format!("`{id}` (v{})", r.0)
                    }
                    _ => format!("v{}", r.0),
                })
                .collect();
            self.error_at(
                op,
                format!(
                    "the registers of a wide access must be consecutive, but these are {}: declare named ones together in one `vreg` line, or write numbered ones in order (`[{}]`)",
                    numbers.join(", "),
                    list_example(n)
                ),
            );
            return None;
        }
        Some(first)
    }

    /// Checks one instruction's operands against its mnemonic and builds it.
    /// When an operand is wrong (and reported), the instruction is its
    /// mnemonic's template, so that the nesting checks still see it.
    fn instruction(
        &mut self,
        inst: &crate::ast::Instruction,
        previous: Option<&Mnemonic>,
    ) -> Option<Inst> {
        let mnemonic = &inst.mnemonic;
        let name = mnemonic.to_string();
        let Some(m) = words::lookup(&name) else {
            self.unknown_mnemonic(mnemonic, previous);
            return None;
        };
        let template = m.template()?;
        let roles: Vec<Role> = m.operands().map(|(_, r)| r).collect();
        let optional = roles.first().is_some_and(|r| r.is_optional());
        let given = inst.operands.len();
        let (min, max) = (roles.len() - usize::from(optional), roles.len());
        let takes = || {
            let count = if optional {
                format!("{min} or {max} operands")
            } else {
                format!("{max} operand{}", if max == 1 { "" } else { "s" })
            };
            format!("`{name}` takes {count} ({})", m.operand_names())
        };
        if given < min {
            self.error(mnemonic.span(), format!("{}, found {given}", takes()));
            return Some(template);
        }
        if let Some(extra) = inst.operands.get(max) {
            self.error_at(extra, format!("unexpected operand: {}", takes()));
            return Some(template);
        }
        // The optional destination is there when the first operand is not the
        // memory operand that follows it.
        let skip =
            usize::from(optional && matches!(inst.operands.first(), Some(Operand::Mem { .. })));
        if optional && skip == 0 && given < max {
            self.error(
                mnemonic.span(),
                format!(
                    "{}: with the destination `{}` written, {} missing",
                    takes(),
                    inst.operands
                        .first()
                        .map(crate::parse::text)
                        .unwrap_or_default(),
                    missing(m.operands().skip(given).map(|(n, _)| n))
                ),
            );
            return Some(template);
        }
        if let Some(comma) = inst.trailing_comma {
            self.error(
                comma,
                format!(
                    "unexpected `,` after the last operand: {}; remove the `,` (commas only separate operands)",
                    takes()
                ),
            );
        }
        let run = template.fields().run_length();
        let mut fields = template.fields();
        let mut ops = inst.operands.iter();
        let mut elem = None;
        let mut ok = true;
        let imm = m.imm_type();
        // A typed store's immediate takes the type it moves, not the element
        // type of a `.bytes` operand: `lds_store_u8 f.bytes[0], 7` stores 7.
        let access = m.ops.iter().find_map(|o| match o {
            Op::Access(t) => Some(*t),
            _ => None,
        });
        for field in fields.as_mut_slice() {
            let role = field.role();
            if !role.is_operand() {
                continue;
            }
            if role.is_optional() && skip == 1 {
                continue;
            }
            let Some(op) = ops.next() else { break };
            let resolved = match role {
                Role::VDst => self.dst(op, RegClass::V, mnemonic).and_then(|r| match r {
                    Reg::V(r) => Some(Field::VDst(r)),
                    _ => None,
                }),
                Role::SDst => self.dst(op, RegClass::S, mnemonic).and_then(|r| match r {
                    Reg::S(r) => Some(Field::SDst(r)),
                    _ => None,
                }),
                Role::MDst => self.dst(op, RegClass::M, mnemonic).and_then(|r| match r {
                    Reg::M(r) => Some(Field::MDst(r)),
                    _ => None,
                }),
                Role::VDstOpt => self.dst(op, RegClass::V, mnemonic).and_then(|r| match r {
                    Reg::V(r) => Some(Field::VDstOpt(Some(r))),
                    _ => None,
                }),
                Role::VDstRun => self.run(op, run, mnemonic).map(Field::VDstRun),
                Role::VSrcRun => self.run(op, run, mnemonic).map(Field::VSrcRun),
                Role::Mask => self.mask(op).map(Field::Mask),
                Role::Src | Role::Uniform => {
                    let ty = match (imm, access.or(elem)) {
                        (Ty::Access, Some(ElemType::F32)) => Ty::F32,
                        (Ty::Access, Some(_)) => Ty::Int,
                        (Ty::Access, None) => Ty::Bits,
                        (ty, _) => ty,
                    };
                    let uniform = role == Role::Uniform;
                    self.value(op, ty, uniform, mnemonic).map(|v| match role {
                        Role::Uniform => Field::Uniform(v),
                        _ => Field::Src(v),
                    })
                }
                Role::Index => self.value(op, Ty::Int, false, mnemonic).map(Field::Index),
                Role::UIndex => self.value(op, Ty::Int, true, mnemonic).map(Field::UIndex),
                Role::GlobalLoad
                | Role::GlobalStore
                | Role::GlobalAtomic
                | Role::LdsLoad
                | Role::LdsStore
                | Role::LdsAtomic => self.memory(op, role, m, mnemonic).map(|(mem, e)| {
                    elem = Some(e);
                    Field::Mem(role, mem)
                }),
                Role::Op | Role::Target => None,
            };
            match resolved {
                Some(f) => *field = f,
                None => ok = false,
            }
        }
        if !ok {
            return Some(template);
        }
        if m.infers_access() {
            for field in fields.as_mut_slice() {
                if let (Field::Op(Op::Access(t)), Some(e)) = (&mut *field, elem) {
                    *t = e;
                }
            }
        }
        let built = Inst::from_fields(m.opcode, fields.as_slice());
        if built.is_none() {
            self.error(
                mnemonic.span(),
                format!("internal error: `{name}` did not build"),
            );
        }
        built
    }

    fn unknown_mnemonic(&mut self, mnemonic: &Ident, previous: Option<&Mnemonic>) {
        let name = mnemonic.to_string();
        let is_operand = numbered(&name).is_some()
            || self.names.contains_key(&name)
            || SPECIALS.contains(&name.as_str());
        let message = if is_operand {
            // The parser reads an operand-like word after an instruction short of
            // operands as a missing comma, so here the previous one is complete.
            let hint = match previous.map(|m| m.operands().count()) {
                Some(0) => "the previous instruction takes no operands".to_owned(),
                Some(1) => "the previous instruction takes 1 operand".to_owned(),
                Some(n) => format!("the previous instruction takes {n} operands"),
                None => "is a comma missing after the previous operand?".to_owned(),
            };
            format!("expected an instruction, found the operand `{name}` ({hint})")
        } else {
            let suggestions = suggest::mnemonics(&name);
            format!(
                "unknown mnemonic `{name}`{}",
                suggest::did_you_mean(&suggestions)
            )
        };
        self.error(mnemonic.span(), message);
    }

    /// Lowers the instructions, appends `end`, links and validates.
    fn lower(&mut self) -> Option<ValidKernel> {
        let mut insts = Vec::new();
        let mut locs = Vec::new();
        let mut spans = Vec::new();
        let mut previous = None;
        let mut written = 0usize;
        for stmt in &self.kernel.body {
            let Stmt::Inst(inst) = stmt else { continue };
            written += 1;
            if let Some(lowered) = self.instruction(inst, previous) {
                insts.push(lowered);
                locs.push(loc(inst.mnemonic.span()));
                spans.push(inst.mnemonic.span());
            }
            previous = words::lookup(&inst.mnemonic.to_string());
        }
        // Every instruction written becomes one instruction, or there is an
        // error: a kernel never compiles to something other than what was written.
        if insts.len() != written && self.errors.is_empty() {
            self.error(
                self.kernel.name.span(),
                format!(
                    "internal error: {written} instructions written but {} lowered",
                    insts.len()
                ),
            );
        }
        insts.push(Inst::End);
        locs.push(loc(self.kernel.close));
        spans.push(self.kernel.close);
        if !self.errors.is_empty() {
            // Nesting errors still help next to operand errors; the validator's
            // other checks would only repeat them.
            if let Err(errors) = simt_lang::link(&mut insts) {
                for e in &errors {
                    self.validation_error(e, &spans);
                }
            }
            return None;
        }
        let (vregs, sregs, mregs) = simt_lang::register_counts(&insts);
        let mut reg_names: Vec<RegName> = self
            .reg_names
            .iter()
            .map(|(&reg, name)| RegName {
                reg,
                name: Cow::Owned(name.clone()),
            })
            .collect();
        reg_names.sort_by_key(|n| n.reg);
        let program = Program {
            name: Cow::Owned(self.kernel.name.unraw().to_string()),
            file: Cow::Borrowed(""),
            params: Cow::Owned(std::mem::take(&mut self.params)),
            lds: Cow::Owned(std::mem::take(&mut self.lds)),
            insts: Cow::Owned(insts),
            locs: Cow::Owned(locs),
            vregs,
            sregs,
            mregs,
            lds_bytes: self.lds_bytes,
            reg_names: Cow::Owned(reg_names),
        };
        match ValidKernel::new(program) {
            Ok(kernel) => Some(kernel),
            Err(errors) => {
                for e in &errors.errors {
                    self.validation_error(e, &spans);
                }
                None
            }
        }
    }

    /// The name the kernel gave `reg`, or its number.
    fn reg_name(&self, reg: Reg) -> String {
        self.reg_names.get(&reg).cloned().unwrap_or_else(|| {
            let (class, n) = reg.parts();
            format!("{class}{n}")
        })
    }

    fn validation_error(&mut self, e: &simt_lang::ValidationError, spans: &[Span]) {
        let at = |i: u32| spans.get(i as usize).copied();
        let span = e
            .inst
            .and_then(at)
            .unwrap_or_else(|| self.kernel.name.span());
        self.error(span, e.kind.to_string());
        for n in &e.notes {
            let span = at(n.inst).unwrap_or_else(|| self.kernel.name.span());
            let message = n.kind.render(&|r| self.reg_name(r));
            self.note(span, message);
        }
    }
}

/// Adds every numbered register `op` names, wherever it stands in it (a
/// register list, a memory operand's index or offset), to `used`, so that no
/// named register is given its number. The parser bounds an operand's nesting
/// (an index's brackets are not parsed), so the recursion is shallow.
fn reserve_numbered(op: &Operand, used: &mut [BTreeSet<u16>; 3]) {
    match op {
        Operand::Name(id) | Operand::Dotted { base: id, .. } => {
            if let Some((class, n)) = numbered(&id.to_string()) {
                if let Ok(n) = u16::try_from(n) {
                    used[class as usize].insert(n);
                }
            }
        }
        Operand::Mem { index, offset, .. } => {
            reserve_numbered(index, used);
            if let Some((_, k)) = offset {
                reserve_numbered(k, used);
            }
        }
        Operand::List { items, .. } => items.iter().for_each(|i| reserve_numbered(i, used)),
        Operand::Number(_) => {}
    }
}

/// Why an operand that must be wave-uniform cannot be `what`.
fn not_uniform(mnemonic: &Ident, what: &str, differs: &str) -> String {
    if mnemonic.to_string().starts_with("s_") {
        format!("scalar instruction `{mnemonic}` cannot read {what}: it {differs} between lanes")
    } else {
        format!("`{mnemonic}` needs a wave-uniform value here, but {what} {differs} between lanes")
    }
}

/// "`src` is" or "`cmp` and `src` are": the operands an instruction lacks.
fn missing<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => "nothing is".to_owned(),
        [one] => format!("{one} is"),
        [init @ .., last] => format!("{} and {last} are", init.join(", ")),
    }
}

/// `v0, v1, ...` for a list of `n` registers, in messages.
fn list_example(n: u16) -> String {
    let regs: Vec<String> = (0..n).map(|k| format!("v{k}")).collect();
    regs.join(", ")
}

/// Why `r#name` cannot name a parameter (an item of the generated Rust code,
/// `rust_item`) or something declared in a kernel body: the kernel is printed
/// back without the `r#` (`Program::display`), so a raw name would not read
/// back as itself, and no name of the language needs one.
fn raw_name(name: &str, rust_item: bool) -> String {
    let keyword = syn::parse_str::<Ident>(name).is_err();
    match (rust_item, keyword) {
        (true, true) => format!(
            "`{name}` is a Rust keyword, which cannot name a kernel or parameter even written `r#{name}` (a kernel is printed back without `r#`); choose another name"
        ),
        (true, false) => format!(
            "raw identifiers are not accepted here: write `{name}` without `r#`"
        ),
        (false, _) => format!(
            "raw identifiers are not accepted in a kernel body: write `{name}` without `r#` (Rust keywords such as `type` are plain names there)"
        ),
    }
}

/// Why a word that starts an instruction or declaration cannot be a name: the
/// parser ends the previous instruction at such a word, so it could never be
/// read as an operand.
fn reserved(name: &str) -> Option<String> {
    let what = if words::DECLARATIONS.contains(&name) {
        "a declaration keyword, which starts a declaration wherever it appears"
    } else if suggest::CONTROL.contains(&name) {
        "a keyword of the language, which starts an instruction wherever it appears"
    } else if words::lookup(name).is_some() {
        "a mnemonic, which starts an instruction wherever it appears"
    } else {
        return None;
    };
    Some(format!(
        "`{name}` is reserved: it is {what}, so it could never be read as an operand"
    ))
}

/// The special value `base` or `base.axis` names: `None` when `base` is not a
/// special value, an error when the axis does not fit it. A bare 3-D value
/// means its `x`.
fn special_value(base: &str, field: Option<&str>) -> Option<Result<Special, String>> {
    let with_axis: Option<fn(Axis) -> Special> = match base {
        "local_id" => Some(Special::LocalId),
        "global_id" => Some(Special::GlobalId),
        "group_id" => Some(Special::GroupId),
        "group_size" => Some(Special::GroupSize),
        "num_groups" => Some(Special::NumGroups),
        "lane_id" | "wave_id" | "wave_width" => None,
        _ => return None,
    };
    Some(match (with_axis, field) {
        (Some(f), None | Some("x")) => Ok(f(Axis::X)),
        (Some(f), Some("y")) => Ok(f(Axis::Y)),
        (Some(f), Some("z")) => Ok(f(Axis::Z)),
        (Some(_), Some(other)) => Err(format!(
            "`{base}` has no axis `{other}`: expected `x`, `y` or `z`"
        )),
        (None, Some(other)) => Err(format!(
            "`{base}` has no axes, so `.{other}` does not apply"
        )),
        (None, None) => Ok(match base {
            "lane_id" => Special::LaneId,
            "wave_id" => Special::WaveId,
            _ => Special::WaveWidth,
        }),
    })
}

/// A constant expression's value: an error names the span at fault.
fn eval(expr: &Expr) -> Result<Number, (Span, String)> {
    match expr {
        Expr::Lit { lit, minus } => {
            number(lit, minus.is_some()).map_err(|message| (lit.span(), message))
        }
        Expr::Neg(e, minus) => match eval(e)? {
            Number::Int(v) => int(-i128::from(v), *minus),
            Number::Float(f) => Ok(Number::Float(-f)),
        },
        Expr::Binary(a, op, b) => int(binary(a, *op, b)?, a.spans().0),
    }
}

/// The value of `a op b` before it is checked to fit an immediate: an LDS
/// array's length may exceed one, and should then be told it exceeds the LDS.
fn binary(a: &Expr, op: ast::BinOp, b: &Expr) -> Result<i128, (Span, String)> {
    let (x, y) = match (eval(a)?, eval(b)?) {
        (Number::Int(x), Number::Int(y)) => (i128::from(x), i128::from(y)),
        _ => {
            return Err((
                a.spans().0,
                "constant expressions combine integers only: write a float as one literal"
                    .to_owned(),
            ))
        }
    };
    let at = b.spans().0;
    let value = match op {
        ast::BinOp::Add => x + y,
        ast::BinOp::Sub => x - y,
        ast::BinOp::Mul => x * y,
        ast::BinOp::Div | ast::BinOp::Rem if y == 0 => {
            return Err((at, "division by zero in a constant expression".to_owned()))
        }
        ast::BinOp::Div => x / y,
        ast::BinOp::Rem => x % y,
        ast::BinOp::Shl | ast::BinOp::Shr if !(0..32).contains(&y) => {
            return Err((at, "shift amount must be in 0..32".to_owned()))
        }
        ast::BinOp::Shl => x << y,
        ast::BinOp::Shr => x >> y,
        ast::BinOp::And => x & y,
        ast::BinOp::Xor => x ^ y,
        ast::BinOp::Or => x | y,
    };
    Ok(value)
}

/// An integer result of a constant expression, if it fits an immediate.
fn int(value: i128, at: Span) -> Result<Number, (Span, String)> {
    if (i128::from(i32::MIN)..=i128::from(u32::MAX)).contains(&value) {
        Ok(Number::Int(value as i64))
    } else {
        Err((
            at,
            format!("constant expression is {value}: immediates must fit in `u32` or `i32`"),
        ))
    }
}

/// A number literal's value.
enum Number {
    /// In `i32::MIN..=u32::MAX`.
    Int(i64),
    /// Finite.
    Float(f32),
}

/// Checks a number literal's suffix and range.
fn number(lit: &Lit, negative: bool) -> Result<Number, String> {
    let float = |value: f32| {
        if value.is_finite() {
            Ok(Number::Float(if negative { -value } else { value }))
        } else {
            Err("float literal out of range for `f32`".to_owned())
        }
    };
    match lit {
        Lit::Int(int) => match int.suffix() {
            "" | "u32" | "i32" => {
                let out_of_range = || {
                    "integer literal out of range: immediates must fit in `u32` or `i32`".to_owned()
                };
                // A literal token may carry its own `-` (`- -1` can arrive as
                // `-` and the literal `-1`): it is then the negative literal,
                // which must fit, negated (which always fits).
                let digits = int.base10_digits();
                let own = digits.starts_with('-');
                let abs: u64 = digits
                    .trim_start_matches('-')
                    .parse()
                    .map_err(|_| out_of_range())?;
                // A suffix narrows the range to its own type.
                let (min, max) = match int.suffix() {
                    "u32" => (0, u64::from(u32::MAX)),
                    "i32" => (1 << 31, i32::MAX as u64),
                    _ => (1 << 31, u64::from(u32::MAX)),
                };
                let value = if own != negative {
                    -(abs as i64)
                } else {
                    abs as i64
                };
                match own || negative {
                    true if abs <= min => Ok(Number::Int(value)),
                    false if abs <= max => Ok(Number::Int(value)),
                    _ if int.suffix().is_empty() => Err(out_of_range()),
                    _ => Err(format!(
                        "integer literal out of range for its suffix `{}`",
                        int.suffix()
                    )),
                }
            }
            "f32" => float(int.base10_parse().map_err(|e| e.to_string())?),
            other => Err(format!(
                "unsupported suffix `{other}`: immediates are 32-bit (`u32`, `i32` or `f32`)"
            )),
        },
        Lit::Float(f) => match f.suffix() {
            "" | "f32" => float(f.base10_parse().map_err(|e| e.to_string())?),
            other => Err(format!(
                "unsupported suffix `{other}`: float immediates are `f32`"
            )),
        },
        _ => Err("expected a number".to_owned()),
    }
}
