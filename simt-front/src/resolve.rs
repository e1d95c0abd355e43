//! Names: declarations (parameters, registers, LDS arrays) in the kernel's
//! one namespace, and what a name used as an operand stands for (a declared
//! name, a numbered register, a special value).

use super::{suggest, words};
use crate::ast::{self, Expr, Operand, ParamType, RegClass, Stmt};
use crate::check::{Checker, Entity, LdsLength, Named, Thing, CONFIG, SPECIALS};
use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::literal::{binary, eval, Number};
use simt_lang::{Axis, LdsIdx, MReg, ParamIdx, ParamKind, Reg, SReg, Special, VReg};
use std::collections::BTreeSet;
use syn::ext::IdentExt;
use syn::Ident;

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

pub(super) fn make_reg(class: RegClass, n: u16) -> Reg {
    match class {
        RegClass::V => Reg::V(VReg(n)),
        RegClass::S => Reg::S(SReg(n)),
        RegClass::M => Reg::M(MReg(n)),
    }
}

pub(super) fn reg_class(reg: Reg) -> RegClass {
    match reg {
        Reg::V(_) => RegClass::V,
        Reg::S(_) => RegClass::S,
        Reg::M(_) => RegClass::M,
    }
}

impl Checker<'_> {
    /// Adds a name to the kernel's single namespace, or reports why it cannot be.
    pub(super) fn declare(&mut self, id: &Ident, entity: Entity) -> bool {
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
            self.error(
                Kind::ReservedName,
                id.span(),
                format!("{why}{raw}; choose another name"),
            );
            return false;
        }
        if raw {
            // Still declared, as written, so that its uses add no errors.
            let param = matches!(entity, Entity::Param(..));
            self.error(Kind::ReservedName, id.span(), raw_name(&name, param));
        }
        let name = id.to_string();
        if let Some(first) = self.names.get(&name) {
            let first = first.span;
            self.push(
                Diagnostic::new(
                    Kind::DeclaredTwice,
                    Location::token(id.span()),
                    format!("`{name}` is declared twice"),
                )
                .label(
                    Location::token(first),
                    format!("`{name}` is first declared here"),
                ),
            );
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
    pub(super) fn check_name(&mut self) {
        let id = &self.kernel.name;
        let name = id.unraw().to_string();
        if *id != name {
            self.error(Kind::ReservedName, id.span(), raw_name(&name, true));
        }
    }

    pub(super) fn declare_params(&mut self) {
        for (i, p) in self.kernel.params.iter().enumerate() {
            let Ok(index) = u16::try_from(i).map(ParamIdx) else {
                break;
            };
            let name = p.name.to_string();
            if name == CONFIG {
                self.error(
                    Kind::ReservedName,
                    p.name.span(),
                    "`config` is reserved: it is the first parameter of the generated `launch`",
                );
            } else if name.starts_with(|c: char| c.is_uppercase()) {
                // Such a name could be read as a constant pattern (`PROGRAM`, `None`)
                // in the generated `launch`.
                self.error(
                    Kind::ReservedName,
                    p.name.span(),
                    format!("parameter `{name}` must start with a lowercase letter"),
                );
            }
            self.declare(&p.name, Entity::Param(index, p.ty));
            let kind = match p.ty {
                ParamType::Buffer { elem, writable } => ParamKind::Buffer { elem, writable },
                ParamType::Scalar(t) => ParamKind::Scalar(t),
            };
            self.builder.param(&p.name.unraw().to_string(), kind);
        }
    }

    /// Declares registers and LDS arrays. Named registers take the lowest
    /// indices that no numbered register of the kernel uses.
    pub(super) fn declare_body(&mut self) {
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
                        // Past the machine's limit too: that is the validator's to say.
                        let n = next[c];
                        let reg = make_reg(decl.class, n);
                        if self.declare(id, Entity::Reg(reg)) {
                            used[c].insert(n);
                            self.builder.name_register(reg, &id.to_string());
                            self.reg_names.insert(reg, id.to_string());
                        }
                    }
                }
                Stmt::Lds(decl) => self.declare_lds(decl),
                Stmt::Inst(_) => {}
            }
        }
    }

    fn declare_lds(&mut self, decl: &ast::LdsDecl) {
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
                self.error(
                    Kind::Immediate,
                    first,
                    "an LDS array's length must be a positive integer",
                );
                return;
            }
            Err((span, message)) => {
                self.error(
                    Kind::Immediate,
                    span,
                    format!("an LDS array's length must be a positive integer: {message}"),
                );
                return;
            }
        };
        let Ok(index) = u16::try_from(self.lds.len()).map(LdsIdx) else {
            self.error(Kind::Limit, decl.name.span(), "too many LDS arrays");
            return;
        };
        if !self.declare(&decl.name, Entity::Lds(index, decl.elem)) {
            return;
        }
        // Whether the arrays fit is the validator's to say.
        self.lds.push(LdsLength { span: first, len });
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        self.builder.lds(&decl.name.to_string(), decl.elem, len);
    }

    /// Every name an unknown one might have meant.
    fn candidates(&self) -> Vec<String> {
        let mut names: Vec<String> = self.names.keys().cloned().collect();
        names.sort();
        names.extend(SPECIALS.iter().map(|s| s.to_string()));
        names
    }

    /// Resolves a bare name or `base.axis` to what it stands for; an unknown
    /// name is told how registers are declared.
    pub(super) fn resolve(&mut self, op: &Operand) -> Option<Thing> {
        self.resolve_or(op, "declare registers with `vreg`, `sreg` or `mreg`")
    }

    /// [`resolve`](Self::resolve), telling an unknown name `declare`, how
    /// what was expected in its place is declared.
    pub(super) fn resolve_or(&mut self, op: &Operand, declare: &str) -> Option<Thing> {
        let (base, field) = match op {
            Operand::Name(id) => (id, None),
            Operand::Dotted { base, field } => (base, Some(field)),
            _ => return None,
        };
        let name = base.to_string();
        if let Some((class, n)) = numbered(&name) {
            if field.is_some() {
                self.no_field(base, field);
                return None;
            }
            // Past the machine's limit is the validator's to say, at this
            // operand; a number past what the IR holds is still past it.
            let n = u16::try_from(n).unwrap_or(u16::MAX);
            return Some(Thing::Entity(Entity::Reg(make_reg(class, n))));
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
                self.error(Kind::Field, field.map_or(base.span(), Ident::span), message);
                None
            }
            None => {
                let axis = field.map(Ident::to_string);
                if let Some(ours) = suggest::special_spelling(&name, axis.as_deref()) {
                    let written = match &axis {
                        Some(axis) => format!("{name}.{axis}"),
                        None => name,
                    };
                    let (first, last) = op.spans();
                    self.push(
                        Diagnostic::new(
                            Kind::UnknownName,
                            Location::tokens(first, last),
                            format!("unknown name `{written}`"),
                        )
                        .with_help(Some(suggest::special_value(&ours))),
                    );
                    return None;
                }
                let candidates = self.candidates();
                let suggestions = suggest::closest(&name, candidates.iter().map(String::as_str));
                let at = Location::token(base.span());
                let d = if suggestions.is_empty() {
                    Diagnostic::new(
                        Kind::UnknownName,
                        at,
                        format!("unknown name `{name}`; {declare}"),
                    )
                } else {
                    Diagnostic::new(Kind::UnknownName, at, format!("unknown name `{name}`"))
                        .with_help(suggest::similar(("name", "names"), &suggestions))
                };
                self.push(d);
                None
            }
        }
    }

    pub(super) fn no_field(&mut self, base: &Ident, field: Option<&Ident>) {
        let (span, f) = match field {
            Some(f) => (f.span(), f.to_string()),
            None => (base.span(), String::new()),
        };
        let message = if f == "bytes" {
            format!("expected `[index]` after `{base}.bytes`")
        } else if !suggest::closest(&f, ["bytes"]).is_empty() {
            let d = Diagnostic::new(
                Kind::Field,
                Location::token(span),
                format!("`{base}` has no field `{f}`"),
            )
            .help(format!("address bytes with `{base}.bytes[index]`"), None);
            self.push(d);
            return;
        } else {
            format!("`{base}` has no field `{f}`: only special values take an axis")
        };
        self.error(Kind::Field, span, message);
    }

    /// How an operand is described in messages.
    pub(super) fn describe(&self, op: &Operand, thing: Option<Thing>) -> String {
        let text = match op {
            Operand::Name(id) => id.to_string(),
            Operand::Dotted { base, field } => format!("{base}.{field}"),
            Operand::Number { .. } => return "an immediate".to_owned(),
            Operand::Str(_) => return "a string".to_owned(),
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
        Operand::Number(_) | Operand::Str(_) => {}
    }
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
