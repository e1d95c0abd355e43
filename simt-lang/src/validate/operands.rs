//! Checks that need no control flow: declared sizes against the machine's limits,
//! the LDS layout, and each instruction's operands against the program's
//! registers, parameters and LDS arrays.

use super::error::{NoteKind, Part, ValidationError, ValidationErrorKind as Kind};
use crate::ir::{
    Addressing, ElemType, GlobalRef, LdsDecl, LdsIdx, LdsRef, Operand, ParamIdx, ParamKind,
    Program, Reg, Uniformity,
};
use crate::isa::{Atomic64Op, AtomicOp, Field, Fields, Inst, MemRef, Op, Role, Unit};
use crate::limits::{MAX_LDS_BYTES, MAX_MREGS, MAX_PARAMS, MAX_SREGS, MAX_VREGS};

/// Checks the program's declared register counts, parameter count and LDS layout.
pub(super) fn check_program(program: &Program, errors: &mut Vec<ValidationError>) {
    if program.locs.len() != program.insts.len() {
        errors.push(ValidationError::program(Kind::LocsLength {
            locs: program.locs.len(),
            insts: program.insts.len(),
        }));
    }
    for (class, count, limit) in [
        ('v', program.vregs, MAX_VREGS),
        ('s', program.sregs, MAX_SREGS),
        ('m', program.mregs, MAX_MREGS),
    ] {
        // A named register past the limit is one error, at its declaration
        // (`check_operands` leaves its uses alone); numbered ones are errors
        // where they are used.
        let mut past = false;
        for named in program.reg_names.iter() {
            if reg_class(named.reg) == class && r_index(named.reg) >= limit {
                past = true;
                let mut error = ValidationError::program(Kind::RegisterPastLimit {
                    reg: named.reg,
                    limit,
                });
                let used = program
                    .insts
                    .iter()
                    .position(|inst| registers(inst).any(|r| r == named.reg));
                if let Some(i) = used {
                    error = error.note(i, NoteKind::RegisterUsed { reg: named.reg });
                }
                errors.push(error);
            }
        }
        past |= program
            .insts
            .iter()
            .any(|inst| registers(inst).any(|r| reg_class(r) == class && r_index(r) >= limit));
        // Only a program whose counts were set by hand declares more
        // registers than it names or uses.
        if count > limit && !past {
            errors.push(ValidationError::program(Kind::TooManyRegisters {
                class,
                count,
                limit,
            }));
        }
    }
    if program.params.len() > usize::from(MAX_PARAMS) {
        errors.push(ValidationError::program(Kind::TooManyParams {
            count: program.params.len(),
            limit: MAX_PARAMS,
        }));
    }
    if program.scratch_words > 0 {
        let last = program.params.last().map(|p| p.kind);
        if last
            != Some(ParamKind::Buffer {
                elem: ElemType::U32,
                writable: true,
            })
        {
            errors.push(ValidationError::program(Kind::ScratchParam));
        }
    }
    check_lds_layout(program, errors);
}

fn reg_class(r: Reg) -> char {
    r.parts().0
}

fn r_index(r: Reg) -> u16 {
    r.parts().1
}

/// The machine's number of registers of `reg`'s class.
fn machine_limit(reg: Reg) -> u16 {
    match reg {
        Reg::V(_) => MAX_VREGS,
        Reg::S(_) => MAX_SREGS,
        Reg::M(_) => MAX_MREGS,
    }
}

/// Every register `inst` names, written ones first, then those it reads.
fn registers(inst: &Inst) -> impl Iterator<Item = Reg> {
    let fields = inst.fields();
    let regs: Vec<Reg> = fields.written().chain(fields.read()).collect();
    regs.into_iter()
}

/// LDS arrays must start 4-byte aligned, not overlap, and end within `lds_bytes`,
/// which must fit the machine.
fn check_lds_layout(program: &Program, errors: &mut Vec<ValidationError>) {
    let end = |d: &LdsDecl| u64::from(d.offset) + u64::from(d.len) * u64::from(d.elem.size());
    // The first array that does not fit is the one to shorten or remove.
    let past = program
        .lds
        .iter()
        .enumerate()
        .find(|(_, d)| end(d) > u64::from(MAX_LDS_BYTES));
    let too_large = match past {
        Some((k, d)) => Some((end(d), u16::try_from(k).ok())),
        None => (program.lds_bytes > MAX_LDS_BYTES).then_some((u64::from(program.lds_bytes), None)),
    };
    if let Some((bytes, array)) = too_large {
        errors.push(ValidationError::program(Kind::LdsTooLarge {
            bytes,
            limit: MAX_LDS_BYTES,
            array: array.map(LdsIdx),
        }));
        // Past the machine's size the builder saturates offsets, so the
        // layout's errors would only restate this one.
        return;
    }
    let layout = |name: &str, reason: String| {
        ValidationError::program(Kind::LdsLayout {
            name: name.to_owned(),
            reason,
        })
    };
    for decl in program.lds.iter() {
        let size = u64::from(decl.len) * u64::from(decl.elem.size());
        if decl.offset % 4 != 0 {
            errors.push(layout(
                &decl.name,
                format!("offset {} is not 4-byte aligned", decl.offset),
            ));
        }
        if size > u64::from(u32::MAX) {
            errors.push(layout(
                &decl.name,
                format!(
                    "{} elements of {} overflow 32-bit byte offsets",
                    decl.len,
                    decl.elem.name()
                ),
            ));
        }
        let end = u64::from(decl.offset) + size;
        if end > u64::from(program.lds_bytes) {
            errors.push(layout(
                &decl.name,
                format!(
                    "ends at byte {end}, past the program's {} bytes of LDS",
                    program.lds_bytes
                ),
            ));
        }
    }
    // Overlaps: sort the non-empty arrays by offset and compare neighbours, so the
    // check stays O(n log n) however many arrays there are.
    let mut spans: Vec<(u64, u64, usize)> = program
        .lds
        .iter()
        .enumerate()
        .filter(|(_, d)| d.len > 0)
        .map(|(i, d)| {
            let start = u64::from(d.offset);
            (
                start,
                start + u64::from(d.len) * u64::from(d.elem.size()),
                i,
            )
        })
        .collect();
    spans.sort_unstable();
    let mut furthest: Option<(u64, usize)> = None;
    for &(start, end, i) in &spans {
        if let Some((prev_end, prev)) = furthest {
            if start < prev_end {
                let other = program.lds.get(prev).map_or("", |d| &d.name);
                errors.push(layout(
                    program.lds.get(i).map_or("", |d| &d.name),
                    format!("overlaps `{other}`"),
                ));
            }
        }
        if furthest.is_none_or(|(prev_end, _)| end > prev_end) {
            furthest = Some((end, i));
        }
    }
}

/// Checks every instruction's registers and operands, appending errors in
/// instruction order.
pub(super) fn check_operands(program: &Program, errors: &mut Vec<ValidationError>) {
    let mut seen: Vec<Reg> = Vec::with_capacity(8);
    for (i, inst) in program.insts.iter().enumerate() {
        seen.clear();
        if let Inst::GlobalCmpSwap64 { width, .. } | Inst::LdsCmpSwap64 { width, .. } = *inst {
            if width != crate::isa::Width::X2 {
                errors.push(ValidationError::at(
                    i,
                    Kind::CmpSwapWidth {
                        width: width.count(),
                    },
                ));
            }
        }
        for reg in registers(inst) {
            let count = match reg {
                Reg::V(_) => program.vregs,
                Reg::S(_) => program.sregs,
                Reg::M(_) => program.mregs,
            };
            if seen.contains(&reg) {
                continue;
            }
            let limit = machine_limit(reg);
            if r_index(reg) >= limit {
                seen.push(reg);
                let named = program.reg_names.iter().any(|n| n.reg == reg);
                if !named {
                    let mut error = ValidationError::at(i, Kind::RegisterPastLimit { reg, limit });
                    if let Some((field, part)) = naming(inst, reg) {
                        error = error.operand(field, part);
                    }
                    errors.push(error);
                }
            } else if r_index(reg) >= count {
                seen.push(reg);
                let mut error = ValidationError::at(
                    i,
                    Kind::RegisterOutOfRange {
                        class: reg_class(reg),
                        index: r_index(reg),
                        count,
                    },
                );
                if let Some((field, part)) = naming(inst, reg) {
                    error = error.operand(field, part);
                }
                errors.push(error);
            }
        }
        if let Inst::Print { format, .. } = *inst {
            if let Err(reason) = check_format(program, format) {
                errors.push(ValidationError::at(
                    i,
                    Kind::BadFormat {
                        index: format.index,
                        reason,
                    },
                ));
            }
        }
        let fields = inst.fields();
        for (field, op, part, uniform) in read(&fields) {
            if let Operand::Arg(p) = op {
                check_scalar_param(program, i, p, errors, field, part);
            }
            if uniform && !wave_uniform(op) {
                let kind = match inst.opcode().unit() {
                    Unit::Scalar => Kind::ScalarReadsVector,
                    _ if part == Part::Offset => Kind::NonUniformOperand {
                        what: "a memory offset",
                    },
                    _ => Kind::NonUniformOperand { what: "the lane" },
                };
                errors.push(ValidationError::at(i, kind).operand(field, part));
            }
        }
        let memory = fields
            .as_slice()
            .iter()
            .enumerate()
            .find_map(|(k, f)| match *f {
                Field::Mem(role, mem) => Some((k, role, mem)),
                _ => None,
            });
        if let Some((field, role, mem)) = memory {
            check_memory(program, (i, field), role, mem, &fields, errors);
        }
    }
}

/// Whether `format` names one of the program's formats with the number of
/// values it reads.
fn check_format(program: &Program, format: crate::ir::PrintFormat) -> Result<(), String> {
    let text = program
        .formats
        .get(usize::from(format.index))
        .ok_or_else(|| format!("the program has {} formats", program.formats.len()))?;
    let values = crate::ir::format_values(text).map_err(|e| e.message)?;
    if values > crate::ir::MAX_PRINT_VALUES {
        return Err(format!(
            "{values} placeholders: a `print` takes at most {} values",
            crate::ir::MAX_PRINT_VALUES
        ));
    }
    if values != usize::from(format.values) {
        return Err(format!(
            "the format reads {values} values, the instruction {}",
            format.values
        ));
    }
    Ok(())
}

/// Every value operand `fields` read, as [`Fields::operands`] lists them,
/// with the field it is in, which part of it, and whether it must be
/// wave-uniform.
fn read(fields: &Fields) -> impl Iterator<Item = (usize, Operand, Part, bool)> + '_ {
    fields.as_slice().iter().enumerate().flat_map(|(k, f)| {
        let read: [Option<(usize, Operand, Part, bool)>; 2] = match *f {
            Field::Src(o) | Field::Index(o) => [Some((k, o, Part::Whole, false)), None],
            Field::Uniform(o) | Field::UIndex(o) => [Some((k, o, Part::Whole, true)), None],
            Field::Mem(_, m) => [
                Some((k, m.index(), Part::Index, false)),
                Some((k, m.offset(), Part::Offset, true)),
            ],
            _ => [None, None],
        };
        read.into_iter().flatten()
    })
}

/// The first field of `inst` that names `reg`, and where in it.
fn naming(inst: &Inst, reg: Reg) -> Option<(usize, Part)> {
    let fields = inst.fields();
    let run = fields.run_length();
    let as_operand = |o: Operand| match o {
        Operand::V(r) => Some(Reg::V(r)),
        Operand::S(r) => Some(Reg::S(r)),
        _ => None,
    };
    fields.as_slice().iter().enumerate().find_map(|(k, f)| {
        let (first, n, part): (Option<Reg>, u16, Part) = match *f {
            Field::VDst(r) | Field::VDstOpt(Some(r)) => (Some(Reg::V(r)), 1, Part::Whole),
            Field::SDst(r) => (Some(Reg::S(r)), 1, Part::Whole),
            Field::MDst(r) | Field::Mask(r) => (Some(Reg::M(r)), 1, Part::Whole),
            Field::VDstRun(r) | Field::VSrcRun(r) => (Some(Reg::V(r)), run, Part::Whole),
            Field::Mem(_, m) if as_operand(m.index()) == Some(reg) => (Some(reg), 1, Part::Index),
            Field::Mem(_, m) => (as_operand(m.offset()), 1, Part::Offset),
            _ => (f.operand().and_then(as_operand), 1, Part::Whole),
        };
        first
            .is_some_and(|r| r.run(n).any(|x| x == reg))
            .then_some((k, part))
    })
}

/// What a memory instruction moves per lane: a typed access, or 32-bit words
/// (wide accesses and atomics), with the element types the latter accept.
fn moved(fields: &Fields) -> (ElemType, &'static [ElemType], u32) {
    const WORDS: &[ElemType] = &[ElemType::U32, ElemType::I32, ElemType::F32];
    const INTS: &[ElemType] = &[ElemType::U32, ElemType::I32];
    const FLOATS: &[ElemType] = &[ElemType::F32];
    // Wide accesses also move 64-bit elements, whole: each is two words.
    const WIDE: &[ElemType] = &[
        ElemType::U32,
        ElemType::I32,
        ElemType::F32,
        ElemType::U64,
        ElemType::I64,
        ElemType::F64,
    ];
    // A 64-bit atomic updates one 64-bit element.
    const INTS64: &[ElemType] = &[ElemType::U64, ElemType::I64];
    const ELEMENTS64: &[ElemType] = &[ElemType::U64, ElemType::I64, ElemType::F64];
    if let Some(ty) = fields.access() {
        return (ty, &[], 1);
    }
    let run = fields.run_length();
    let atomic = matches!(
        fields.memory(),
        Some((Role::GlobalAtomic | Role::LdsAtomic, _))
    );
    let accepted = fields
        .as_slice()
        .iter()
        .find_map(|f| match f {
            Field::Op(Op::Atomic64(Atomic64Op::AddF64)) => Some(&[ElemType::F64][..]),
            Field::Op(Op::Atomic64(
                Atomic64Op::AddU64
                | Atomic64Op::MinU64
                | Atomic64Op::MinI64
                | Atomic64Op::MaxU64
                | Atomic64Op::MaxI64,
            )) => Some(INTS64),
            Field::Op(Op::Atomic64(_) | Op::Width(_)) if atomic => Some(ELEMENTS64),
            Field::Op(Op::Atomic(AtomicOp::AddF32)) => Some(FLOATS),
            Field::Op(Op::Atomic(
                AtomicOp::AddU32
                | AtomicOp::SubU32
                | AtomicOp::MinU32
                | AtomicOp::MinI32
                | AtomicOp::MaxU32
                | AtomicOp::MaxI32
                | AtomicOp::IncU32,
            )) => Some(INTS),
            _ => None,
        })
        .unwrap_or(if run > 1 { WIDE } else { WORDS });
    (ElemType::U32, accepted, u32::from(run))
}

fn check_memory(
    program: &Program,
    (i, field): (usize, usize),
    role: Role,
    mem: MemRef,
    fields: &Fields,
    errors: &mut Vec<ValidationError>,
) {
    let access = match role {
        Role::GlobalStore | Role::LdsStore => "store",
        Role::GlobalAtomic | Role::LdsAtomic => "atomic",
        _ => "load",
    };
    let (ty, accepted, count) = moved(fields);
    match mem {
        MemRef::Global(r) => check_global(program, (i, field), r, (ty, accepted), access, errors),
        MemRef::Lds(r) => check_lds(
            program,
            (i, field),
            r,
            (ty, accepted, count),
            access,
            errors,
        ),
    }
}

/// Whether a scalar instruction may read `op`: one value per wave.
pub fn wave_uniform(op: Operand) -> bool {
    match op {
        Operand::V(_) => false,
        Operand::Special(s) => s.uniformity() != Uniformity::Lane,
        Operand::S(_) | Operand::Arg(_) | Operand::Imm(_) => true,
    }
}

fn param_is(kind: &ParamKind) -> &'static str {
    match kind {
        ParamKind::Buffer { .. } => "a buffer",
        ParamKind::Scalar(_) => "a scalar",
    }
}

fn check_scalar_param(
    program: &Program,
    i: usize,
    p: ParamIdx,
    errors: &mut Vec<ValidationError>,
    field: usize,
    part: Part,
) {
    match program.params.get(usize::from(p.0)) {
        None => errors
            .push(ValidationError::at(i, Kind::NoSuchParam { index: p.0 }).operand(field, part)),
        Some(param) => {
            if let ParamKind::Buffer { .. } = param.kind {
                errors.push(
                    ValidationError::at(
                        i,
                        Kind::ParamKind {
                            name: param.name.to_string(),
                            is: param_is(&param.kind),
                            expected: "a scalar",
                        },
                    )
                    .operand(field, part),
                );
            }
        }
    }
}

fn check_global(
    program: &Program,
    (i, field): (usize, usize),
    r: GlobalRef,
    (ty, accepted): (ElemType, &[ElemType]),
    access: &'static str,
    errors: &mut Vec<ValidationError>,
) {
    let Some(param) = program.params.get(usize::from(r.buffer.0)) else {
        errors.push(
            ValidationError::at(i, Kind::NoSuchParam { index: r.buffer.0 })
                .operand(field, Part::Base),
        );
        return;
    };
    let ParamKind::Buffer { elem, writable } = param.kind else {
        errors.push(
            ValidationError::at(
                i,
                Kind::ParamKind {
                    name: param.name.to_string(),
                    is: param_is(&param.kind),
                    expected: "a buffer",
                },
            )
            .operand(field, Part::Base),
        );
        return;
    };
    if access != "load" && !writable {
        errors.push(
            ValidationError::at(
                i,
                Kind::StoreToReadOnly {
                    name: param.name.to_string(),
                    elem: elem.name(),
                },
            )
            .operand(field, Part::Base),
        );
    }
    check_access_type(
        i,
        &param.name,
        r.addressing,
        (ty, accepted),
        elem,
        access,
        errors,
    );
}

fn check_lds(
    program: &Program,
    (i, field): (usize, usize),
    r: LdsRef,
    (ty, accepted, count): (ElemType, &[ElemType], u32),
    access: &'static str,
    errors: &mut Vec<ValidationError>,
) {
    let Some(decl) = program.lds.get(usize::from(r.lds.0)) else {
        errors.push(
            ValidationError::at(i, Kind::NoSuchLds { index: r.lds.0 }).operand(field, Part::Base),
        );
        return;
    };
    check_access_type(
        i,
        &decl.name,
        r.addressing,
        (ty, accepted),
        decl.elem,
        access,
        errors,
    );
    // A constant index is checked now: the array's size is known.
    if let (Operand::Imm(index), Operand::Imm(offset)) = (r.index, r.offset) {
        let at = i64::from(index as i32) + i64::from(offset as i32);
        let size = match r.addressing {
            Addressing::Element => i64::from(decl.elem.size()),
            Addressing::Byte => 1,
        };
        let bytes = i64::from(decl.len) * i64::from(decl.elem.size());
        let end = at * size + i64::from(ty.size()) * i64::from(count);
        if at < 0 || end > bytes {
            errors.push(
                ValidationError::at(
                    i,
                    Kind::ConstantIndexOutOfBounds {
                        name: decl.name.to_string(),
                        index: at,
                        len: match r.addressing {
                            Addressing::Element => u64::from(decl.len),
                            Addressing::Byte => bytes as u64,
                        },
                        bytes: r.addressing == Addressing::Byte,
                        // Elements of the array: a wide access of a 64-bit
                        // array moves two words of each.
                        count: match r.addressing {
                            Addressing::Element => (ty.size() * count / decl.elem.size()).max(1),
                            Addressing::Byte => count,
                        },
                    },
                )
                .operand(field, Part::Whole),
            );
        }
    }
}

/// An element-indexed access scales its index by the element size, so it must move
/// whole elements of the declared type; byte-indexed accesses may reinterpret.
fn check_access_type(
    i: usize,
    name: &str,
    addressing: Addressing,
    (ty, accepted): (ElemType, &[ElemType]),
    elem: ElemType,
    access: &'static str,
    errors: &mut Vec<ValidationError>,
) {
    if !accepted.is_empty() {
        // 32-bit words: any 32-bit element the operation reads as its type.
        if addressing == Addressing::Element && !accepted.contains(&elem) {
            let names: Vec<&str> = accepted.iter().map(|t| t.name()).collect();
            errors.push(ValidationError::at(
                i,
                Kind::AccessType {
                    access,
                    name: name.to_owned(),
                    ty: match names.as_slice() {
                        ["f32"] => "f32",
                        ["u32", "i32"] => "u32 or i32",
                        ["f64"] => "f64",
                        ["u64", "i64"] => "u64 or i64",
                        ["u64", "i64", "f64"] => "64-bit elements",
                        [_, _, _] => "32-bit words",
                        _ => "32-bit words (or 64-bit elements, two words each)",
                    },
                    elem: elem.name(),
                },
            ));
        }
        return;
    }
    if ty.is_pair() {
        errors.push(ValidationError::at(
            i,
            Kind::PairAccess {
                access,
                name: name.to_owned(),
                ty: ty.name(),
            },
        ));
        return;
    }
    if addressing == Addressing::Element && ty != elem {
        errors.push(ValidationError::at(
            i,
            Kind::AccessType {
                access,
                name: name.to_owned(),
                ty: ty.name(),
                elem: elem.name(),
            },
        ));
    }
}
