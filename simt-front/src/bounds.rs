//! LDS indices past their array, proved at compile time: under a declared
//! workgroup shape, an LDS access that every work-item runs (no `if` around
//! it, no `break` before it in a loop) at an index the facts know exactly
//! (an affine form of `local_id` and constants) faults for the work-item at
//! the corner of the shape where the index is largest, or smallest; that is
//! an error at the operand, naming the work-item and the element.
//!
//! Anything the facts do not pin down (an index read from memory, one that
//! depends on a scalar parameter, `lane_id` or `wave_id`, which the wave
//! width decides) is left to the run, which faults there if it must.

use crate::check::Checker;
use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::lower::Written;
use simt_lang::facts::{launch_values, Access, Facts, Memory};
use simt_lang::Program;

impl Checker<'_> {
    /// Reports each LDS access whose index the facts prove out of its array
    /// for some work-item of `shape`.
    pub(super) fn certain_out_of_bounds(
        &mut self,
        program: &Program,
        facts: &Facts,
        shape: [u32; 3],
        written: &[Written],
    ) {
        for (i, access) in facts.accesses.iter().enumerate() {
            let (Some(access), Some(w)) = (access, written.get(i)) else {
                continue;
            };
            let Some(d) = out_of_bounds(program, access, shape) else {
                continue;
            };
            let at = crate::contracts::memory_operand(w).unwrap_or_else(|| {
                Location::token(
                    w.inst
                        .map_or(self.kernel.name.span(), |x| x.mnemonic.span()),
                )
            });
            let mut diagnostic = Diagnostic::new(Kind::OutOfBounds, at, d.message).help(
                format!(
                    "make `{}` longer, or keep the index inside it for every work-item",
                    d.array
                ),
                None,
            );
            if let Some(inst) = w.inst {
                crate::functions::label_calls(&mut diagnostic, &inst.inlined);
            }
            self.push(diagnostic);
        }
    }
}

/// What is out of bounds, worded.
struct Outside {
    array: String,
    message: String,
}

/// Whether `access` leaves its LDS array for a work-item of `shape`, and
/// which, when the facts decide it.
fn out_of_bounds(program: &Program, access: &Access, shape: [u32; 3]) -> Option<Outside> {
    let Memory::Lds(idx) = access.space else {
        return None;
    };
    if !access.guards.is_empty() || !access.certain {
        return None;
    }
    let decl = program.lds.get(usize::from(idx.0))?;
    let form = access
        .addr
        .affine()?
        .substitute(&launch_values(Some(shape), None));
    // `lane_id` depends on the wave width; any symbol left on a uniform
    // value the launch decides.
    if !form.per_lane[0].is_zero() {
        return None;
    }
    let coefficient = |b: usize| form.per_lane[b].as_const();
    let coefficients = [coefficient(1)?, coefficient(2)?, coefficient(3)?];
    // The byte offset from the array's first element.
    let base = form.uni.as_const()? - i64::from(decl.offset);
    let corner = |largest: bool| -> ([u32; 3], i64) {
        let mut item = [0u32; 3];
        let mut value = base;
        for axis in 0..3 {
            let k = coefficients[axis];
            let top = shape[axis].saturating_sub(1);
            if (k > 0) == largest && k != 0 {
                item[axis] = top;
                value += k * i64::from(top);
            }
        }
        (item, value)
    };
    let bytes = i64::from(access.size) * i64::from(access.elems);
    let array_bytes = i64::from(decl.bytes());
    let (low_item, low) = corner(false);
    let (high_item, high) = corner(true);
    // Past what a 32-bit index holds, the machine's value wraps: leave it
    // to the run.
    let limit = 1i64 << 31;
    if low <= -limit || high >= limit {
        return None;
    }
    let size = i64::from(decl.elem.size().max(1));
    // The element named: past the end, the one holding the access's last
    // byte (a wide access reads several elements, a byte access part of
    // one); before the start, the one holding its first.
    let (item, offset) = if high + bytes > array_bytes {
        (high_item, high + bytes - 1)
    } else if low < 0 {
        (low_item, low)
    } else {
        return None;
    };
    let verb = crate::contracts::verb(Some(access.kind));
    let id = match shape {
        [_, 1, 1] => item[0].to_string(),
        _ => format!("({}, {}, {})", item[0], item[1], item[2]),
    };
    let shape_text = crate::contracts::shape_text(shape);
    Some(Outside {
        array: decl.name.to_string(),
        message: format!(
            "index out of bounds under `#[workgroup_size({shape_text})]`: work-item {id} {verb} `{}[{}]`, and `{}` has {} elements",
            decl.name,
            offset.div_euclid(size),
            decl.name,
            decl.len
        ),
    })
}
