//! Launch checks: the configuration, the program's facts the interpreter relies
//! on, and the binding of host arguments to parameters.

use crate::error::LaunchErrorKind;
use crate::ir::{ParamKind, Program, ScalarType};
use crate::isa::Inst;
use crate::launch::{Arg, LaunchConfig};
use crate::limits::MAX_WORKGROUP_SIZE;

/// The memory model's geometry as shifts and masks.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    /// Lanes per memory phase.
    pub(super) phase_lanes: u32,
    /// `log2(line_bytes)`.
    pub(super) line_shift: u32,
    /// `log2(sector_bytes)`.
    pub(super) sector_shift: u32,
    /// `line_bytes`.
    pub(super) line_bytes: u64,
    /// `log2(lds_bank_bytes)`.
    pub(super) bank_shift: u32,
    /// `lds_banks - 1`.
    pub(super) bank_mask: u32,
}

/// Checks the launch configuration against the program.
pub(super) fn check_config(
    config: &LaunchConfig,
    program: &Program,
) -> Result<Geometry, LaunchErrorKind> {
    if !matches!(config.wave_width, 32 | 64) {
        return Err(LaunchErrorKind::WaveWidth(config.wave_width));
    }
    for (what, d) in [("grid", config.grid), ("workgroup", config.workgroup)] {
        if d.x == 0 || d.y == 0 || d.z == 0 {
            return Err(LaunchErrorKind::ZeroSize {
                what,
                x: d.x,
                y: d.y,
                z: d.z,
            });
        }
    }
    let size = config.workgroup.count();
    if size > MAX_WORKGROUP_SIZE as u64 {
        return Err(LaunchErrorKind::WorkgroupTooLarge {
            size,
            limit: MAX_WORKGROUP_SIZE,
        });
    }
    let grid = config.grid.to_array();
    let wg = config.workgroup.to_array();
    for (axis, (g, s)) in ['x', 'y', 'z'].into_iter().zip(grid.into_iter().zip(wg)) {
        if g as u64 * s as u64 > 1u64 << 32 {
            return Err(LaunchErrorKind::GridTooLarge {
                axis,
                groups: g,
                size: s,
            });
        }
    }
    if config.grid.checked_count().is_none() {
        let [x, y, z] = grid;
        return Err(LaunchErrorKind::TooManyWorkgroups { x, y, z });
    }
    let model = &config.model;
    let bad_model = |reason: String| LaunchErrorKind::Model {
        name: model.name.to_string(),
        reason,
    };
    model.check().map_err(bad_model)?;
    if let Some(part) = &config.timing {
        let bad_part = |reason: String| LaunchErrorKind::Part {
            name: part.name.to_string(),
            reason,
        };
        part.check().map_err(bad_part)?;
        if part.memory != *model {
            return Err(bad_part(format!(
                "the launch's memory model `{}` is not the part's `{}`: time a launch under its part's model",
                model.name, part.memory.name
            )));
        }
        // The machine holds the largest LDS any part allows; a part may allow
        // less.
        let most = part.hardware.max_lds_bytes_per_workgroup;
        if program.lds_bytes > most {
            return Err(bad_part(format!(
                "the kernel's {} bytes of LDS exceed the {most} bytes a workgroup may have on it",
                program.lds_bytes
            )));
        }
    }
    // An access must fall in one line, one sector and one bank word, so that the
    // counters count each lane once: the geometry must not be finer than the
    // widest access.
    for (field, v) in [
        ("line_bytes", model.line_bytes),
        ("sector_bytes", model.sector_bytes),
        ("lds_bank_bytes", model.lds_bank_bytes),
    ] {
        if v < 4 {
            return Err(bad_model(format!(
                "{field} must be at least 4 (the widest access), not {v}"
            )));
        }
    }
    Ok(Geometry {
        phase_lanes: model.phase_lanes,
        line_shift: model.line_bytes.trailing_zeros(),
        sector_shift: model.sector_bytes.trailing_zeros(),
        line_bytes: model.line_bytes as u64,
        bank_shift: model.lds_bank_bytes.trailing_zeros(),
        bank_mask: model.lds_banks - 1,
    })
}

/// An LDS array as the interpreter sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct LdsArea {
    /// Byte offset of element 0 in the workgroup's LDS.
    pub(super) offset: u32,
    /// Size in bytes.
    pub(super) bytes: u32,
    /// The element size: what an element index counts.
    pub(super) scale: u32,
}

/// The facts about a validated program the interpreter sizes its state by.
#[derive(Debug)]
pub(super) struct Prepared {
    /// Vector registers per wave (at least every register an instruction names).
    pub(super) vregs: usize,
    /// Scalar registers per wave.
    pub(super) sregs: usize,
    /// Mask registers per wave.
    pub(super) mregs: usize,
    /// The LDS arrays.
    pub(super) lds: Vec<LdsArea>,
    /// Bytes of LDS per workgroup, covering every array.
    pub(super) lds_bytes: usize,
    /// Whether an instruction is a global atomic, whose returned values depend
    /// on the order workgroups run in.
    pub(super) global_atomics: bool,
}

/// The launch facts of `program`, which validation has accepted.
pub(super) fn prepare(program: &Program) -> Prepared {
    let lds: Vec<LdsArea> = program
        .lds
        .iter()
        .map(|d| LdsArea {
            offset: d.offset,
            bytes: d.bytes(),
            scale: d.elem.size(),
        })
        .collect();
    let lds_bytes = lds
        .iter()
        .map(|a| a.offset as u64 + a.bytes as u64)
        .fold(program.lds_bytes as u64, u64::max);
    // Validation checked that every register is below the declared counts.
    Prepared {
        vregs: program.vregs.max(1) as usize,
        sregs: program.sregs.max(1) as usize,
        mregs: program.mregs.max(1) as usize,
        lds,
        lds_bytes: lds_bytes as usize,
        global_atomics: program.insts.iter().any(|i| {
            matches!(
                i,
                Inst::GlobalAtomic { .. }
                    | Inst::GlobalCmpSwap { .. }
                    | Inst::GlobalAtomic64 { .. }
                    | Inst::GlobalCmpSwap64 { .. }
            )
        }),
    }
}

/// A parameter bound to its argument.
#[derive(Debug)]
pub(super) enum Slot<'b> {
    /// A scalar (its value is in [`Bound::scalars`]).
    Scalar,
    /// A read-only buffer at global byte address `base`.
    Buffer {
        /// The host bytes.
        data: &'b [u8],
        /// The buffer's global address.
        base: u64,
    },
    /// A writable buffer at global byte address `base`.
    BufferMut {
        /// The host bytes.
        data: &'b mut [u8],
        /// The buffer's global address.
        base: u64,
    },
}

impl Slot<'_> {
    /// The buffer's bytes (empty for a scalar).
    #[inline]
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Slot::Scalar => &[],
            Slot::Buffer { data, .. } => data,
            Slot::BufferMut { data, .. } => data,
        }
    }

    /// The buffer's global address (0 for a scalar).
    #[inline]
    pub(super) fn base(&self) -> u64 {
        match self {
            Slot::Scalar => 0,
            Slot::Buffer { base, .. } | Slot::BufferMut { base, .. } => *base,
        }
    }
}

/// The arguments of a launch, by parameter index.
#[derive(Debug)]
pub(super) struct Bound<'b> {
    /// Buffers (and placeholders for scalars).
    pub(super) slots: Vec<Slot<'b>>,
    /// Scalar values as bits (0 for buffers).
    pub(super) scalars: Vec<u32>,
}

/// Copies of the writable buffers' bytes, by parameter.
pub(super) fn writable(slots: &[Slot<'_>]) -> Vec<Vec<u8>> {
    slots
        .iter()
        .map(|s| match s {
            Slot::BufferMut { data, .. } => data.to_vec(),
            _ => Vec::new(),
        })
        .collect()
}

/// Puts back the writable buffers' bytes `copies` holds.
pub(super) fn restore(slots: &mut [Slot<'_>], copies: &[Vec<u8>]) {
    for (slot, copy) in slots.iter_mut().zip(copies) {
        if let Slot::BufferMut { data, .. } = slot {
            if data.len() == copy.len() {
                data.copy_from_slice(copy);
            }
        }
    }
}

/// The global address of the first writable byte that differs from `copies`,
/// and how many differ; `None` when none does.
pub(super) fn differences(slots: &[Slot<'_>], copies: &[Vec<u8>]) -> Option<(u64, u32)> {
    let mut first = None;
    let mut count = 0u32;
    for (slot, copy) in slots.iter().zip(copies) {
        if let Slot::BufferMut { data, base } = slot {
            for (i, (a, b)) in data.iter().zip(copy).enumerate() {
                if a != b {
                    first.get_or_insert(*base + i as u64);
                    count = count.saturating_add(1);
                }
            }
        }
    }
    first.map(|f| (f, count))
}

/// The slots of `slots` with each writable buffer replaced by its copy in
/// `copies` (as [`writable`] made them): a parallel launch's private buffers.
pub(super) fn private<'c, 'b: 'c>(slots: &[Slot<'b>], copies: &'c mut [Vec<u8>]) -> Vec<Slot<'c>> {
    slots
        .iter()
        .zip(copies.iter_mut())
        .map(|(slot, copy)| match slot {
            Slot::Scalar => Slot::Scalar,
            &Slot::Buffer { data, base } => Slot::Buffer { data, base },
            Slot::BufferMut { base, .. } => Slot::BufferMut {
                data: copy,
                base: *base,
            },
        })
        .collect()
}

/// Binds `args` to the program's parameters.
///
/// Buffers are laid out in one 32-bit byte address space in parameter order,
/// starting at 0, each at a multiple of 256 bytes or of the model's line, whichever is
/// larger, as a driver would align them: two buffers never share a line. The
/// addresses only feed the memory counters; data moves to and from the host
/// slices directly.
///
/// A kernel with scratch memory gets `scratch` (zeroed, sized by
/// [`scratch_bytes`]) as its last, writable buffer.
pub(super) fn bind<'b>(
    program: &Program,
    args: &'b mut [Arg<'_>],
    align: u64,
    scratch: &'b mut [u8],
) -> Result<Bound<'b>, LaunchErrorKind> {
    let params = program.host_params();
    if args.len() != params.len() {
        return Err(LaunchErrorKind::ArgCount {
            expected: params.len(),
            got: args.len(),
        });
    }
    let mut slots = Vec::with_capacity(args.len());
    let mut scalars = Vec::with_capacity(args.len());
    let mut next = 0u64;
    for (index, (param, arg)) in params.iter().zip(args.iter_mut()).enumerate() {
        // The error is built only on a mismatch: a launch that binds well
        // allocates nothing here.
        let got = arg.kind();
        let mismatch = || LaunchErrorKind::ArgType {
            index,
            name: param.name.to_string(),
            expected: param.kind.rust_type(),
            got: got.rust_type(),
        };
        let (slot, value) = match (param.kind, &mut *arg) {
            (ParamKind::Scalar(ScalarType::U32), Arg::U32(v)) => (Slot::Scalar, *v),
            (ParamKind::Scalar(ScalarType::I32), Arg::I32(v)) => (Slot::Scalar, *v as u32),
            (ParamKind::Scalar(ScalarType::F32), Arg::F32(v)) => (Slot::Scalar, v.to_bits()),
            (
                ParamKind::Buffer {
                    elem,
                    writable: false,
                },
                Arg::Buffer { elem: e, bytes },
            ) if elem == *e => {
                check_len(index, param, bytes.len(), elem.size())?;
                let base = next;
                next = place(index, param, next, bytes.len(), align)?;
                (Slot::Buffer { data: bytes, base }, 0)
            }
            (
                ParamKind::Buffer {
                    elem,
                    writable: true,
                },
                Arg::BufferMut { elem: e, bytes },
            ) if elem == *e => {
                check_len(index, param, bytes.len(), elem.size())?;
                let base = next;
                next = place(index, param, next, bytes.len(), align)?;
                (Slot::BufferMut { data: bytes, base }, 0)
            }
            _ => return Err(mismatch()),
        };
        slots.push(slot);
        scalars.push(value);
    }
    if let Some(param) = program.params.get(params.len()) {
        let base = next;
        place(params.len(), param, next, scratch.len(), align)?;
        slots.push(Slot::BufferMut {
            data: scratch,
            base,
        });
        scalars.push(0);
    }
    Ok(Bound { slots, scalars })
}

/// The zeroed scratch memory a launch of `program` under `config` needs:
/// [`Program::scratch_words`] per lane of every wave, partial waves whole.
/// More than the 32-bit address space holds is refused before anything is
/// allocated.
pub(super) fn scratch(
    program: &Program,
    config: &LaunchConfig,
) -> Result<Vec<u8>, LaunchErrorKind> {
    let Some(param) = program.params.get(program.host_params().len()) else {
        return Ok(Vec::new());
    };
    let waves = config
        .workgroup
        .count()
        .div_ceil(u64::from(config.wave_width));
    let bytes = config
        .grid
        .count()
        .saturating_mul(waves)
        .saturating_mul(u64::from(config.wave_width))
        .saturating_mul(u64::from(program.scratch_words) * 4);
    if bytes > 1 << 32 {
        return Err(LaunchErrorKind::Buffer {
            index: program.host_params().len(),
            name: param.name.to_string(),
            reason: format!(
                "the launch's scratch memory, {bytes} bytes, does not fit in the 32-bit global address space"
            ),
        });
    }
    Ok(vec![0; bytes as usize])
}

fn check_len(
    index: usize,
    param: &crate::ir::Param,
    len: usize,
    size: u32,
) -> Result<(), LaunchErrorKind> {
    if !len.is_multiple_of(size as usize) {
        return Err(LaunchErrorKind::Buffer {
            index,
            name: param.name.to_string(),
            reason: format!("{len} bytes is not a whole number of {size}-byte elements"),
        });
    }
    Ok(())
}

/// The address after a buffer of `len` bytes at `base`, rounded up to `align`;
/// an empty buffer still takes one slot so that no two buffers share an address.
/// Every buffer must end within the 32-bit global address space.
fn place(
    index: usize,
    param: &crate::ir::Param,
    base: u64,
    len: usize,
    align: u64,
) -> Result<u64, LaunchErrorKind> {
    let end = base.saturating_add(len as u64);
    if end > 1u64 << 32 {
        return Err(LaunchErrorKind::Buffer {
            index,
            name: param.name.to_string(),
            reason: format!(
                "{len} bytes at address {base:#x} do not fit in the 32-bit global address space"
            ),
        });
    }
    Ok(end.max(base + 1).div_ceil(align) * align)
}
