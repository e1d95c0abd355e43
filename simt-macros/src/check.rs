//! Name resolution, operand checks and lowering to a [`Program`], then the
//! shared validator; every error points at the token it is about.
//!
//! Errors from [`simt_core::link`] and [`simt_core::validate`] name instructions
//! by index; each index maps to the instruction's mnemonic token. Their notes
//! (the unclosed `if`, the divergent mask's definition) become errors of their
//! own at the related mnemonic, with messages that start with `note: `: stable
//! proc macros cannot attach a real note to another span.

use crate::ast::{Kernel, Operand, ParamType, RegClass, Stmt};
use crate::isa::{self, Arg, Form, Slot, Ty};
use crate::suggest;
use proc_macro2::{Punct, Spacing, Span, TokenStream, TokenTree};
use simt_core::limits::{MAX_LDS_BYTES, MAX_MREGS, MAX_PARAMS, MAX_SREGS, MAX_VREGS};
use simt_core::{
    Addressing, Axis, ElemType, GlobalRef, Inst, LdsDecl, LdsIdx, LdsRef, MReg, ParamIdx,
    ParamKind, Program, Reg, SReg, SourceLoc, Special, Uniformity, VReg,
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
pub fn check(kernel: &Kernel) -> Result<Program, Vec<Error>> {
    let mut cx = Checker {
        kernel,
        errors: Vec::new(),
        names: HashMap::new(),
        params: Vec::new(),
        lds: Vec::new(),
        lds_bytes: 0,
        reg_names: HashMap::new(),
    };
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
    params: Vec<simt_core::Param>,
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
        let name = id.to_string();
        let why = if numbered(&name).is_some() {
            Some(format!("`{name}` is the name of a numbered register"))
        } else if SPECIALS.contains(&name.as_str()) {
            Some(format!("`{name}` is a special value"))
        } else {
            reserved(&name)
        };
        if let Some(why) = why {
            self.error(id.span(), format!("{why}; choose another name"));
            return false;
        }
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
            self.params.push(simt_core::Param {
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
                    let mut mark = |id: &Ident| {
                        if let Some((class, n)) = numbered(&id.to_string()) {
                            if let Ok(n) = u16::try_from(n) {
                                used[class as usize].insert(n);
                            }
                        }
                    };
                    match op {
                        Operand::Name(id) => mark(id),
                        Operand::Mem { index, .. } => {
                            if let Operand::Name(id) = &**index {
                                mark(id);
                            }
                        }
                        _ => {}
                    }
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
        let len = match decl.len.base10_parse::<u32>() {
            Ok(0) | Err(_) => {
                self.error(
                    decl.len.span(),
                    "an LDS array's length must be a positive integer",
                );
                return;
            }
            Ok(n) => n,
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
        let end = u64::from(offset) + u64::from(len) * u64::from(decl.elem.size());
        if end > u64::from(MAX_LDS_BYTES) && self.lds_bytes <= MAX_LDS_BYTES {
            self.error(
                decl.len.span(),
                format!(
                    "LDS of {end} bytes exceeds the machine's {MAX_LDS_BYTES} bytes per workgroup"
                ),
            );
        }
        self.lds_bytes = u32::try_from(end).unwrap_or(u32::MAX);
        self.lds.push(LdsDecl {
            name: Cow::Owned(decl.name.to_string()),
            elem: decl.elem,
            len,
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
            _ => self.resolve(op)?,
        };
        let what = self.describe(op, Some(thing));
        let message = match thing {
            Thing::Entity(Entity::Reg(r)) if reg_class(r) == class => return Some(r),
            Thing::Entity(Entity::Reg(r)) => {
                let hint = match (class, reg_class(r)) {
                    (RegClass::V, RegClass::S) => {
                        " (scalar registers are written by `s_` instructions)"
                    }
                    (RegClass::S, RegClass::V) => {
                        " (vector registers are written by `v_` instructions)"
                    }
                    _ => "",
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
    fn immediate(
        &mut self,
        op: &Operand,
        lit: &Lit,
        negative: bool,
        ty: Ty,
        mnemonic: &Ident,
    ) -> Option<u32> {
        let result = match number(lit, negative) {
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
    ) -> Option<simt_core::Operand> {
        use simt_core::Operand as O;
        let thing = match op {
            Operand::Number { lit, minus } => {
                return self
                    .immediate(op, lit, minus.is_some(), ty, mnemonic)
                    .map(O::Imm)
            }
            Operand::Mem { .. } => {
                self.error_at(
                    op,
                    "memory operands are only allowed in loads and stores: load the value into a register first",
                );
                return None;
            }
            _ => self.resolve(op)?,
        };
        let what = self.describe(op, Some(thing));
        let message = match thing {
            Thing::Entity(Entity::Reg(Reg::V(r))) if !scalar => return Some(O::V(r)),
            Thing::Entity(Entity::Reg(Reg::V(_))) => format!(
                "scalar instruction `{mnemonic}` cannot read {what}: it may differ between lanes"
            ),
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
            Thing::Special(_) => format!(
                "scalar instruction `{mnemonic}` cannot read {what}: it differs between lanes"
            ),
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

    /// A memory operand: a buffer element (`global`) or an LDS element.
    fn memory(
        &mut self,
        op: &Operand,
        global: bool,
        write: bool,
        form: Form,
        mnemonic: &Ident,
    ) -> Option<Arg> {
        let Operand::Mem {
            base, bytes, index, ..
        } = op
        else {
            let thing = match op {
                Operand::Name(_) | Operand::Dotted { .. } => self.resolve(op),
                _ => None,
            };
            let what = self.describe(op, thing);
            let want = if global {
                "a buffer element such as `buf[i]`"
            } else {
                "an LDS element such as `tile[i]`"
            };
            self.error_at(op, format!("expected {want}, found {what}"));
            return None;
        };
        let name = base.to_string();
        let entity = match self.names.get(&name) {
            Some(named) => named.entity,
            None => {
                self.resolve(&Operand::Name(base.clone()));
                return None;
            }
        };
        let addressing = if *bytes {
            Addressing::Byte
        } else {
            Addressing::Element
        };
        let index = match &**index {
            inner @ Operand::Mem { .. } => {
                self.error_at(
                    inner,
                    "a memory operand cannot be an index: load it into a register first",
                );
                None
            }
            index => self.value(index, Ty::Int, false, mnemonic),
        };
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
                    format!("`{name}` is an LDS array: use `lds_load` and `lds_store` for LDS"),
                );
                return None;
            }
            (Entity::Param(_, ParamType::Buffer { .. }), false) => {
                self.error(
                    base.span(),
                    format!(
                        "`{name}` is a buffer: use `global_load` and `global_store` for buffers"
                    ),
                );
                return None;
            }
            _ => {
                let what = self.describe(&Operand::Name(base.clone()), Some(Thing::Entity(entity)));
                let want = if global { "a buffer" } else { "an LDS array" };
                self.error(base.span(), format!("{what} is not {want}"));
                return None;
            }
        };
        if let Some(ty) = form.access() {
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
        let index = index?;
        Some(match entity {
            Entity::Param(buffer, _) => Arg::Global(
                GlobalRef {
                    buffer,
                    index,
                    addressing,
                },
                elem,
            ),
            Entity::Lds(lds, _) => Arg::Lds(
                LdsRef {
                    lds,
                    index,
                    addressing,
                },
                elem,
            ),
            Entity::Reg(_) => return None,
        })
    }

    /// Checks one instruction's operands against its form and builds it.
    fn instruction(
        &mut self,
        inst: &crate::ast::Instruction,
        previous: Option<Form>,
    ) -> Option<Inst> {
        let mnemonic = &inst.mnemonic;
        let name = mnemonic.to_string();
        let Some(entry) = isa::lookup(&name) else {
            self.unknown_mnemonic(mnemonic, previous);
            return None;
        };
        let form = entry.form;
        let slots = form.slots();
        if inst.operands.len() < slots.len() {
            self.error(
                mnemonic.span(),
                format!(
                    "`{name}` takes {} operand{} ({}), found {}",
                    slots.len(),
                    if slots.len() == 1 { "" } else { "s" },
                    form.operand_names(),
                    inst.operands.len()
                ),
            );
            return form.placeholder();
        }
        if let Some(extra) = inst.operands.get(slots.len()) {
            self.error_at(
                extra,
                format!(
                    "unexpected operand: `{name}` takes {} operand{} ({})",
                    slots.len(),
                    if slots.len() == 1 { "" } else { "s" },
                    form.operand_names()
                ),
            );
            return form.placeholder();
        }
        let mut args = Vec::with_capacity(slots.len());
        let mut access = None;
        for (slot, op) in slots.iter().zip(&inst.operands) {
            let arg = match *slot {
                Slot::VDst => self.dst(op, RegClass::V, mnemonic).map(reg_arg),
                Slot::SDst => self.dst(op, RegClass::S, mnemonic).map(reg_arg),
                Slot::MDst => self.dst(op, RegClass::M, mnemonic).map(reg_arg),
                Slot::Mask => self.mask(op).map(Arg::M),
                Slot::Value(ty) | Slot::Scalar(ty) => {
                    let ty = match (ty, access) {
                        (Ty::Access, Some(ElemType::F32)) => Ty::F32,
                        (Ty::Access, Some(_)) => Ty::Int,
                        (Ty::Access, None) => Ty::Bits,
                        (ty, _) => ty,
                    };
                    let scalar = matches!(slot, Slot::Scalar(_));
                    self.value(op, ty, scalar, mnemonic).map(Arg::Value)
                }
                Slot::Global { write } => self.memory(op, true, write, form, mnemonic),
                Slot::Lds => self.memory(op, false, false, form, mnemonic),
            };
            if let Some(Arg::Global(_, elem) | Arg::Lds(_, elem)) = arg {
                access = Some(form.access().unwrap_or(elem));
            }
            args.push(arg);
        }
        match args.into_iter().collect::<Option<Vec<Arg>>>() {
            Some(args) => form.build(&args).or_else(|| form.placeholder()),
            None => form.placeholder(),
        }
    }

    fn unknown_mnemonic(&mut self, mnemonic: &Ident, previous: Option<Form>) {
        let name = mnemonic.to_string();
        let is_operand = numbered(&name).is_some()
            || self.names.contains_key(&name)
            || SPECIALS.contains(&name.as_str());
        let message = if is_operand {
            // The parser reads an operand-like word after an instruction short of
            // operands as a missing comma, so here the previous one is complete.
            let hint = match previous.map(|form| form.slots().len()) {
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
    fn lower(&mut self) -> Option<Program> {
        let mut insts = Vec::new();
        let mut locs = Vec::new();
        let mut spans = Vec::new();
        let mut previous = None;
        for stmt in &self.kernel.body {
            let Stmt::Inst(inst) = stmt else { continue };
            if let Some(lowered) = self.instruction(inst, previous) {
                insts.push(lowered);
                locs.push(loc(inst.mnemonic.span()));
                spans.push(inst.mnemonic.span());
            }
            previous = isa::lookup(&inst.mnemonic.to_string()).map(|m| m.form);
        }
        insts.push(Inst::End);
        locs.push(loc(self.kernel.close));
        spans.push(self.kernel.close);
        let mut ok = match simt_core::link(&mut insts) {
            Ok(()) => true,
            Err(errors) => {
                for e in &errors {
                    self.validation_error(e, &spans);
                }
                false
            }
        };
        ok &= self.errors.is_empty();
        let (vregs, sregs, mregs) = simt_core::register_counts(&insts);
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
        };
        if !ok {
            return None;
        }
        if let Err(errors) = simt_core::validate(&program) {
            for e in &errors.errors {
                self.validation_error(e, &spans);
            }
            return None;
        }
        Some(program)
    }

    fn validation_error(&mut self, e: &simt_core::ValidationError, spans: &[Span]) {
        let at = |i: u32| spans.get(i as usize).copied();
        let span = e
            .inst
            .and_then(at)
            .unwrap_or_else(|| self.kernel.name.span());
        let message = self.rename(&e.kind.to_string());
        self.error(span, message);
        for n in &e.notes {
            let span = at(n.inst).unwrap_or_else(|| self.kernel.name.span());
            let message = self.rename(&n.message);
            self.note(span, message);
        }
    }

    /// Rewrites the validator's `` `m3` `` as the name the kernel gave `m3`, in
    /// errors and notes.
    fn rename(&self, message: &str) -> String {
        message
            .split('`')
            .enumerate()
            .map(|(i, part)| {
                let named = numbered(part)
                    .filter(|_| i % 2 == 1)
                    .and_then(|(class, n)| u16::try_from(n).ok().map(|n| make_reg(class, n)))
                    .and_then(|reg| self.reg_names.get(&reg));
                named.map_or(part, String::as_str)
            })
            .collect::<Vec<_>>()
            .join("`")
    }
}

/// Why a word that starts an instruction or declaration cannot be a name: the
/// parser ends the previous instruction at such a word, so it could never be
/// read as an operand.
fn reserved(name: &str) -> Option<String> {
    let what = if isa::DECLARATIONS.contains(&name) {
        "a declaration keyword, which starts a declaration wherever it appears"
    } else if suggest::CONTROL.contains(&name) {
        "a keyword of the language, which starts an instruction wherever it appears"
    } else if isa::lookup(name).is_some() {
        "a mnemonic, which starts an instruction wherever it appears"
    } else {
        return None;
    };
    Some(format!(
        "`{name}` is reserved: it is {what}, so it could never be read as an operand"
    ))
}

fn reg_arg(reg: Reg) -> Arg {
    match reg {
        Reg::V(r) => Arg::V(r),
        Reg::S(r) => Arg::S(r),
        Reg::M(r) => Arg::M(r),
    }
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
                let abs: u64 = int.base10_parse().map_err(|_| out_of_range())?;
                // A suffix narrows the range to its own type.
                let (min, max) = match int.suffix() {
                    "u32" => (0, u64::from(u32::MAX)),
                    "i32" => (1 << 31, i32::MAX as u64),
                    _ => (1 << 31, u64::from(u32::MAX)),
                };
                match negative {
                    true if abs <= min => Ok(Number::Int(-(abs as i64))),
                    false if abs <= max => Ok(Number::Int(abs as i64)),
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
