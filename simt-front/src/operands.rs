//! Operands: each one written against its place in the mnemonic's row of
//! the instruction table (a register to write, a value, a mask, a memory
//! operand, a register run), lowered to the instruction's fields.

use super::{suggest, words};
use crate::ast::{self, Expr, Operand, ParamType, RegClass};
use crate::check::{Checker, Entity, Thing, SPECIALS};
use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::literal::{eval, int, Number};
use crate::resolve::{numbered, reg_class};
use simt_lang::isa::{Field, Fields, ImmType as Ty, MemRef, Mnemonic, Op, Role};
use simt_lang::{Addressing, ElemType, GlobalRef, Inst, LdsRef, MReg, Reg, VReg};
use syn::Ident;

impl<'a> Checker<'a> {
    /// A register written by the instruction.
    fn dst(&mut self, op: &Operand, class: RegClass, mnemonic: &Ident) -> Option<Reg> {
        let want = class.word();
        let thing = match op {
            Operand::Number { .. } => {
                self.error_at(
                    Kind::OperandKind,
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
                    Kind::OperandKind,
                    op,
                    format!("expected a {want} register to write, found a memory operand{hint}"),
                );
                return None;
            }
            Operand::List { .. } => {
                self.error_at(Kind::OperandKind, op,
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
        self.error_at(Kind::OperandKind, op, message);
        None
    }

    /// An immediate read as `ty`, as raw bits.
    fn immediate(&mut self, op: &Operand, expr: &Expr, ty: Ty, mnemonic: &Ident) -> Option<u32> {
        let number = match eval(expr) {
            Ok(n) => Ok(n),
            // A lone literal's error underlines all of it, its `-` included.
            Err((_, message)) if matches!(expr, Expr::Lit { .. }) => Err(message),
            Err((span, message)) => {
                self.error(Kind::Immediate, span, message);
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
                Ty::F16 | Ty::Bf16 => {
                    let (format, name) = half(ty);
                    let h = format.round(value as f64);
                    if format.to_f64(h) == value as f64 {
                        Ok(h)
                    } else {
                        let article = if name == "f16" { "an" } else { "a" };
                        Err(format!(
                            "integer {value} is not exactly {article} `{name}`: write it as a float literal"
                        ))
                    }
                }
                Ty::Int | Ty::Bits | Ty::Access => Ok(value as u32),
            },
            Ok(Number::Float(value)) => match ty {
                Ty::F32 | Ty::Bits => Ok(value.to_bits()),
                // Read as an `f32` (as every float literal is), then rounded.
                Ty::F16 | Ty::Bf16 => {
                    let (format, name) = half(ty);
                    let h = format.round_f32(value.to_bits());
                    if format.to_f64(h).is_infinite() {
                        Err(format!(
                            "{value:?} is out of range for `{name}`: it rounds to infinity"
                        ))
                    } else {
                        Ok(h)
                    }
                }
                Ty::Int | Ty::Access => Err(format!(
                    "float literal where an integer is expected: `{mnemonic}` reads integers"
                )),
            },
            Err(message) => Err(message),
        };
        result
            .map_err(|message| self.error_at(Kind::Immediate, op, message))
            .ok()
    }

    /// A value read by the instruction. Whether it may be read there (a
    /// buffer where a scalar goes, a per-lane value where a wave-uniform one
    /// goes) is the validator's to say.
    fn value(&mut self, op: &Operand, ty: Ty, mnemonic: &Ident) -> Option<simt_lang::Operand> {
        use simt_lang::Operand as O;
        let thing = match op {
            Operand::Number(expr) => return self.immediate(op, expr, ty, mnemonic).map(O::Imm),
            Operand::Mem { .. } => {
                self.error_at(Kind::OperandKind, op,
                    "memory operands are only allowed in loads and stores: load the value into a register first",
                );
                return None;
            }
            Operand::List { .. } => {
                self.error_at(
                    Kind::OperandKind,
                    op,
                    "a register list is only an operand of the `_x2` and `_x4` loads and stores",
                );
                return None;
            }
            _ => self.resolve(op)?,
        };
        let what = self.describe(op, Some(thing));
        let message = match thing {
            Thing::Entity(Entity::Reg(Reg::V(r))) => return Some(O::V(r)),
            Thing::Entity(Entity::Reg(Reg::S(r))) => return Some(O::S(r)),
            Thing::Entity(Entity::Reg(Reg::M(_))) => {
                format!("{what} is not a value (`v_select` turns a mask into values)")
            }
            Thing::Entity(Entity::Param(i, _)) => return Some(O::Arg(i)),
            Thing::Entity(Entity::Lds(..)) => {
                format!("{what} is not a value: load an element with `lds_load dst, tile[i]`")
            }
            Thing::Special(s) => return Some(O::Special(s)),
        };
        self.error_at(Kind::OperandKind, op, message);
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
        self.error_at(
            Kind::OperandKind,
            op,
            format!("expected a mask register, found {what}"),
        );
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
            self.error_at(
                Kind::OperandKind,
                op,
                format!("expected {want}, found {what}"),
            );
            return None;
        };
        let name = base.to_string();
        // The base must name a buffer or an LDS array: anything else (a register,
        // a special value, an unknown name) is an error here, never a dropped
        // instruction.
        let base_op = Operand::Name(base.clone());
        let declare = if global {
            "a buffer is a parameter of the kernel, such as `out: &mut [u32]`"
        } else {
            "declare an LDS array at the top of the body, such as `lds tile: [u32; 256];`"
        };
        let entity = match self.resolve_or(&base_op, declare)? {
            Thing::Entity(e @ (Entity::Param(_, ParamType::Buffer { .. }) | Entity::Lds(..))) => e,
            // That a scalar is no buffer is the validator's to say, at `base`.
            Thing::Entity(e @ Entity::Param(_, ParamType::Scalar(_))) if global => e,
            thing => {
                let what = self.describe(&base_op, Some(thing));
                let space = if global { "a buffer" } else { "an LDS array" };
                self.error(
                    Kind::OperandKind,
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
                    Kind::OperandKind,
                    inner,
                    "a memory operand cannot be an index: load it into a register first",
                );
                None
            }
            index => self.value(index, Ty::Int, mnemonic),
        };
        let offset = self.mem_offset(offset, base, index_written, mnemonic);
        let elem = match (entity, global) {
            (Entity::Param(_, ParamType::Buffer { elem, .. }), true) => elem,
            (Entity::Param(_, ParamType::Scalar(_)), true) => ElemType::U32,
            (Entity::Lds(_, elem), false) => elem,
            (Entity::Lds(..), true) => {
                self.error(Kind::Memory, base.span(),
                    format!("`{name}` is an LDS array: use the `lds_` loads, stores and atomics for LDS"),
                );
                return None;
            }
            _ => {
                self.error(Kind::Memory, base.span(),
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
                self.error_at(Kind::Memory, op,
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

    /// The offset of a memory operand on `base` indexed by `index` (as
    /// written): `Imm(0)` when none is written, a negated immediate after
    /// `-`, else the value added.
    fn mem_offset(
        &mut self,
        offset: &Option<(bool, Box<Operand>)>,
        base: &Ident,
        index: &Operand,
        mnemonic: &Ident,
    ) -> Option<simt_lang::Operand> {
        match offset {
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
                            self.error(Kind::Immediate, span, message);
                            None
                        }
                    }
                }
                (_, true) => {
                    let (base, i, k_text) = (
                        base.to_string(),
                        crate::parse::text(index),
                        crate::parse::text(k),
                    );
                    self.error_at(Kind::OperandKind, k,
                    format!(
                        "only an immediate offset can be subtracted: compute the index into a register first, `v_sub_u32 j, {i}, {k_text}`, and write `{base}[j]`"
                    ),
                );
                    None
                }
                (k, false) => self.value(k, Ty::Int, mnemonic),
            },
        }
    }

    /// A run of `n` consecutive vector registers written as `[a, b, ...]`: the first.
    /// The first register of a register list of `n`: a wide access's, or a
    /// 64-bit value's `pair`.
    fn run(&mut self, op: &Operand, n: u16, mnemonic: &Ident, pair: bool) -> Option<VReg> {
        let Operand::List { items, .. } = op else {
            self.error_at(
                Kind::OperandKind,
                op,
                if pair {
                    format!(
                        "`{mnemonic}` takes 64-bit values as pairs of registers: write this one as a list of two consecutive registers, `[{}]`",
                        list_example(n)
                    )
                } else {
                    format!(
                        "`{mnemonic}` moves {n} registers: write them as a list, `[{}]`",
                        list_example(n)
                    )
                },
            );
            return None;
        };
        if items.len() != usize::from(n) {
            self.error_at(
                Kind::OperandKind,
                op,
                if pair {
                    format!(
                        "`{mnemonic}` takes a pair of registers, found {} in the list",
                        items.len()
                    )
                } else {
                    format!(
                        "`{mnemonic}` moves {n} registers, found {} in the list",
                        items.len()
                    )
                },
            );
            return None;
        }
        let mut regs = Vec::with_capacity(items.len());
        for item in items {
            match self.resolve(item) {
                Some(Thing::Entity(Entity::Reg(Reg::V(r)))) => regs.push(Some(r)),
                Some(thing) => {
                    let what = self.describe(item, Some(thing));
                    self.error_at(
                        Kind::OperandKind,
                        item,
                        format!("expected a vector register, found {what}"),
                    );
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
            self.error_at(Kind::OperandKind, op,
                format!(
                    "the registers of a {} must be consecutive, but these are {}: declare named ones together in one `vreg` line, or write numbered ones in order (`[{}]`)",
                    if pair { "pair" } else { "wide access" },
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
    /// `written` gets, per field of the instruction's table row, the operand
    /// written for it, so that the validator's errors about a field point at
    /// that operand.
    pub(super) fn instruction(
        &mut self,
        inst: &'a ast::Instruction,
        previous: Option<&Mnemonic>,
        written: &mut [Option<&'a Operand>; Fields::MAX],
    ) -> Option<Inst> {
        let mnemonic = &inst.mnemonic;
        let name = mnemonic.to_string();
        let Some(m) = words::lookup(&name) else {
            self.unknown_mnemonic(mnemonic, previous);
            return None;
        };
        let template = m.template()?;
        if m.opcode == simt_lang::isa::Opcode::Print {
            return self.print(inst, written).or(Some(template));
        }
        let Some(skip) = self.operand_count(inst, m) else {
            return Some(template);
        };
        let run = template.fields().run_length();
        // A run that is not a wide access's is a 64-bit value's pair.
        let pair = !m.ops.iter().any(|o| matches!(o, Op::Width(_)));
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
        for (k, field) in fields.as_mut_slice().iter_mut().enumerate() {
            let role = field.role();
            if !role.is_operand() {
                continue;
            }
            if role.is_optional() && skip == 1 {
                continue;
            }
            let Some(op) = ops.next() else { break };
            if let Some(slot) = written.get_mut(k) {
                *slot = Some(op);
            }
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
                Role::VDstRun => self.run(op, run, mnemonic, pair).map(Field::VDstRun),
                Role::VSrcRun => self.run(op, run, mnemonic, pair).map(Field::VSrcRun),
                Role::Mask => self.mask(op).map(Field::Mask),
                Role::Src | Role::Uniform => {
                    let ty = match (imm, access.or(elem)) {
                        (Ty::Access, Some(ElemType::F32)) => Ty::F32,
                        (Ty::Access, Some(ElemType::F16)) => Ty::F16,
                        (Ty::Access, Some(ElemType::BF16)) => Ty::Bf16,
                        (Ty::Access, Some(_)) => Ty::Int,
                        (Ty::Access, None) => Ty::Bits,
                        (ty, _) => ty,
                    };
                    self.value(op, ty, mnemonic).map(|v| match role {
                        Role::Uniform => Field::Uniform(v),
                        _ => Field::Src(v),
                    })
                }
                Role::Index => self.value(op, Ty::Int, mnemonic).map(Field::Index),
                Role::UIndex => self.value(op, Ty::Int, mnemonic).map(Field::UIndex),
                Role::GlobalLoad
                | Role::GlobalStore
                | Role::GlobalAtomic
                | Role::LdsLoad
                | Role::LdsStore
                | Role::LdsAtomic => self.memory(op, role, m, mnemonic).map(|(mem, e)| {
                    elem = Some(e);
                    Field::Mem(role, mem)
                }),
                // Only `print` has a format, and it is lowered apart.
                Role::Op | Role::Target | Role::Format => None,
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
                Kind::Internal,
                mnemonic.span(),
                format!("internal error: `{name}` did not build"),
            );
        }
        built
    }

    /// Checks the count of `inst`'s operands against its mnemonic `m`
    /// (said when wrong: `None`); how many leading optional operands are
    /// left out (an atomic's destination).
    fn operand_count(&mut self, inst: &ast::Instruction, m: &Mnemonic) -> Option<usize> {
        let mnemonic = &inst.mnemonic;
        let name = mnemonic.to_string();
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
            self.error(
                Kind::OperandCount,
                mnemonic.span(),
                format!("{}, found {given}", takes()),
            );
            return None;
        }
        if let Some(extra) = inst.operands.get(max) {
            self.error_at(
                Kind::OperandCount,
                extra,
                format!("unexpected operand: {}", takes()),
            );
            return None;
        }
        // The optional destination is there when the first operand is not the
        // memory operand that follows it.
        let skip =
            usize::from(optional && matches!(inst.operands.first(), Some(Operand::Mem { .. })));
        if optional && skip == 0 && given < max {
            self.error(
                Kind::OperandCount,
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
            return None;
        }
        if let Some(comma) = inst.trailing_comma {
            self.error(Kind::OperandCount, comma,
                format!(
                    "unexpected `,` after the last operand: {}; remove the `,` (commas only separate operands)",
                    takes()
                ),
            );
        }
        Some(skip)
    }

    /// `print "format", values...`: the format a string literal whose
    /// placeholders take the values that follow it, each any value operand.
    fn print(
        &mut self,
        inst: &'a ast::Instruction,
        written: &mut [Option<&'a Operand>; Fields::MAX],
    ) -> Option<Inst> {
        let mnemonic = &inst.mnemonic;
        let example = "write `print \"x = {} y = {f}\", v0, v1`";
        let Some((first, values)) = inst.operands.split_first() else {
            self.error(
                Kind::OperandCount,
                mnemonic.span(),
                format!("`print` takes a format string and the values it shows: {example}"),
            );
            return None;
        };
        let Operand::Str(lit) = first else {
            self.error_at(
                Kind::OperandKind,
                first,
                format!("`print` takes a format string first: {example}"),
            );
            return None;
        };
        if !lit.suffix().is_empty() {
            self.error(
                Kind::Format,
                lit.span(),
                format!(
                    "a format string takes no suffix, found `{}` after it: remove it",
                    lit.suffix()
                ),
            );
            return None;
        }
        let format = match self.builder.format(&lit.value()) {
            Ok(format) => format,
            Err(e) => {
                self.error(Kind::Format, lit.span(), e.message);
                return None;
            }
        };
        let wanted = usize::from(format.values);
        if values.len() != wanted {
            let what = |n: usize| match n {
                1 => "1 value".to_owned(),
                n => format!("{n} values"),
            };
            let message = format!(
                "the format has {} and {} follow{} it: each `{{}}` takes the next value",
                match wanted {
                    1 => "1 placeholder".to_owned(),
                    n => format!("{n} placeholders"),
                },
                what(values.len()),
                if values.len() == 1 { "s" } else { "" },
            );
            match values.get(wanted) {
                Some(extra) => self.error_at(Kind::Format, extra, message),
                None => self.error(Kind::Format, lit.span(), message),
            }
            return None;
        }
        if let Some(comma) = inst.trailing_comma {
            self.error(
                Kind::OperandCount,
                comma,
                "unexpected `,` after the last operand of `print`; remove it".to_owned(),
            );
        }
        written[0] = Some(first);
        let mut read = [simt_lang::Operand::Imm(0); simt_lang::MAX_PRINT_VALUES];
        let mut ok = true;
        for (k, op) in values.iter().enumerate() {
            written[1 + k] = Some(op);
            match self.value(op, Ty::Bits, mnemonic) {
                Some(v) => read[k] = v,
                None => ok = false,
            }
        }
        let [a, b, c, d] = read;
        ok.then_some(Inst::Print { format, a, b, c, d })
    }

    fn unknown_mnemonic(&mut self, mnemonic: &Ident, previous: Option<&Mnemonic>) {
        let name = mnemonic.to_string();
        let is_operand = numbered(&name).is_some()
            || self.names.contains_key(&name)
            || SPECIALS.contains(&name.as_str());
        let (kind, message) = if is_operand {
            // The parser reads an operand-like word after an instruction short of
            // operands as a missing comma, so here the previous one is complete.
            let hint = match previous.map(|m| m.operands().count()) {
                Some(0) => "the previous instruction takes no operands".to_owned(),
                Some(1) => "the previous instruction takes 1 operand".to_owned(),
                Some(n) => format!("the previous instruction takes {n} operands"),
                None => "is a comma missing after the previous operand?".to_owned(),
            };
            (
                Kind::OperandCount,
                format!("expected an instruction, found the operand `{name}` ({hint})"),
            )
        } else {
            let suggestions = suggest::mnemonics(&name);
            let d = Diagnostic::new(
                Kind::UnknownMnemonic,
                Location::token(mnemonic.span()),
                format!("unknown mnemonic `{name}`"),
            )
            .with_help(suggest::similar(suggest::MNEMONIC, &suggestions));
            self.push(d);
            return;
        };
        self.error(kind, mnemonic.span(), message);
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

/// The half-precision format of an immediate type, and its name.
fn half(ty: Ty) -> (simt_lang::float16::Half, &'static str) {
    match ty {
        Ty::Bf16 => (simt_lang::float16::Half::Bf16, "bf16"),
        _ => (simt_lang::float16::Half::F16, "f16"),
    }
}
