//! Checks that need no control flow: declared sizes against the machine's limits,
//! the LDS layout, and each instruction's operands against the program's
//! registers, parameters and LDS arrays.

use super::error::{ValidationError, ValidationErrorKind as Kind};
use crate::ir::{
    Addressing, ElemType, GlobalRef, Inst, LdsRef, Operand, ParamIdx, ParamKind, Program, Reg,
    Uniformity,
};
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
        if count > limit {
            let mut error = ValidationError::program(Kind::TooManyRegisters {
                class,
                count,
                limit,
            });
            // Point at the first use of a register past the limit: that is the token
            // a kernel author has to change.
            let first = program.insts.iter().enumerate().find_map(|(i, inst)| {
                registers(inst)
                    .find(|&r| reg_class(r) == class && r_index(r) >= limit)
                    .map(|r| (i, r_index(r)))
            });
            if let Some((i, index)) = first {
                error = error.note(i, format!("`{class}{index}` used here"));
            }
            errors.push(error);
        }
    }
    if program.params.len() > usize::from(MAX_PARAMS) {
        errors.push(ValidationError::program(Kind::TooManyParams {
            count: program.params.len(),
            limit: MAX_PARAMS,
        }));
    }
    check_lds_layout(program, errors);
}

fn reg_class(r: Reg) -> char {
    match r {
        Reg::V(_) => 'v',
        Reg::S(_) => 's',
        Reg::M(_) => 'm',
    }
}

fn r_index(r: Reg) -> u16 {
    match r {
        Reg::V(v) => v.0,
        Reg::S(s) => s.0,
        Reg::M(m) => m.0,
    }
}

/// Every register `inst` names, destination first, then sources in operand order.
fn registers(inst: &Inst) -> impl Iterator<Item = Reg> {
    let sources = inst.sources();
    let values = sources
        .values
        .into_iter()
        .flatten()
        .filter_map(|op| match op {
            Operand::V(r) => Some(Reg::V(r)),
            Operand::S(r) => Some(Reg::S(r)),
            _ => None,
        });
    let masks = sources.masks.into_iter().flatten().map(Reg::M);
    inst.written().into_iter().chain(values).chain(masks)
}

/// LDS arrays must start 4-byte aligned, not overlap, and end within `lds_bytes`,
/// which must fit the machine.
fn check_lds_layout(program: &Program, errors: &mut Vec<ValidationError>) {
    let extent = program
        .lds
        .iter()
        .map(|d| u64::from(d.offset) + u64::from(d.len) * u64::from(d.elem.size()))
        .max()
        .unwrap_or(0);
    let bytes = extent.max(u64::from(program.lds_bytes));
    if bytes > u64::from(MAX_LDS_BYTES) {
        errors.push(ValidationError::program(Kind::LdsTooLarge {
            bytes,
            limit: MAX_LDS_BYTES,
        }));
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
    let mut seen: Vec<Reg> = Vec::with_capacity(4);
    for (i, inst) in program.insts.iter().enumerate() {
        seen.clear();
        for reg in registers(inst) {
            let count = match reg {
                Reg::V(_) => program.vregs,
                Reg::S(_) => program.sregs,
                Reg::M(_) => program.mregs,
            };
            if r_index(reg) >= count && !seen.contains(&reg) {
                seen.push(reg);
                errors.push(ValidationError::at(
                    i,
                    Kind::RegisterOutOfRange {
                        class: reg_class(reg),
                        index: r_index(reg),
                        count,
                    },
                ));
            }
        }
        let sources = inst.sources();
        for op in sources.values.into_iter().flatten() {
            if let Operand::Arg(p) = op {
                check_scalar_param(program, i, p, errors);
            }
        }
        match *inst {
            Inst::SBinary { a, b, .. } | Inst::SCmp { a, b, .. }
                if !wave_uniform(a) || !wave_uniform(b) =>
            {
                errors.push(ValidationError::at(i, Kind::ScalarReadsVector));
            }
            Inst::SUnary { a, .. } if !wave_uniform(a) => {
                errors.push(ValidationError::at(i, Kind::ScalarReadsVector));
            }
            Inst::GlobalLoad { ty, src, .. } => check_global(program, i, src, ty, "load", errors),
            Inst::GlobalStore { ty, dst, .. } => check_global(program, i, dst, ty, "store", errors),
            Inst::LdsLoad { ty, src, .. } => check_lds(program, i, src, ty, "load", errors),
            Inst::LdsStore { ty, dst, .. } => check_lds(program, i, dst, ty, "store", errors),
            _ => {}
        }
    }
}

/// Whether a scalar instruction may read `op`: one value per wave.
fn wave_uniform(op: Operand) -> bool {
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

fn check_scalar_param(program: &Program, i: usize, p: ParamIdx, errors: &mut Vec<ValidationError>) {
    match program.params.get(usize::from(p.0)) {
        None => errors.push(ValidationError::at(i, Kind::NoSuchParam { index: p.0 })),
        Some(param) => {
            if let ParamKind::Buffer { .. } = param.kind {
                errors.push(ValidationError::at(
                    i,
                    Kind::ParamKind {
                        name: param.name.to_string(),
                        is: param_is(&param.kind),
                        expected: "a scalar",
                    },
                ));
            }
        }
    }
}

fn check_global(
    program: &Program,
    i: usize,
    r: GlobalRef,
    ty: ElemType,
    access: &'static str,
    errors: &mut Vec<ValidationError>,
) {
    let Some(param) = program.params.get(usize::from(r.buffer.0)) else {
        errors.push(ValidationError::at(
            i,
            Kind::NoSuchParam { index: r.buffer.0 },
        ));
        return;
    };
    let ParamKind::Buffer { elem, writable } = param.kind else {
        errors.push(ValidationError::at(
            i,
            Kind::ParamKind {
                name: param.name.to_string(),
                is: param_is(&param.kind),
                expected: "a buffer",
            },
        ));
        return;
    };
    if access == "store" && !writable {
        errors.push(ValidationError::at(
            i,
            Kind::StoreToReadOnly {
                name: param.name.to_string(),
            },
        ));
    }
    check_access_type(i, &param.name, r.addressing, ty, elem, access, errors);
}

fn check_lds(
    program: &Program,
    i: usize,
    r: LdsRef,
    ty: ElemType,
    access: &'static str,
    errors: &mut Vec<ValidationError>,
) {
    match program.lds.get(usize::from(r.lds.0)) {
        None => errors.push(ValidationError::at(i, Kind::NoSuchLds { index: r.lds.0 })),
        Some(decl) => check_access_type(i, &decl.name, r.addressing, ty, decl.elem, access, errors),
    }
}

/// An element-indexed access scales its index by the element size, so it must move
/// whole elements of the declared type; byte-indexed accesses may reinterpret.
fn check_access_type(
    i: usize,
    name: &str,
    addressing: Addressing,
    ty: ElemType,
    elem: ElemType,
    access: &'static str,
    errors: &mut Vec<ValidationError>,
) {
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
