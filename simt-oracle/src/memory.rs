//! Memory accesses: where each lane's bytes are, whether they may be touched,
//! and what the model counts for them, from the definitions in
//! `simt_core::Counters` and `simt_core::MemoryModel`.

use crate::{Counts, FaultKind, Geometry};
use simt_lang::{Addressing, ElemType};
use std::collections::{BTreeMap, BTreeSet};

/// A buffer or LDS array an operand names.
pub(crate) enum Place {
    Global {
        param: usize,
        len: u64,
        /// The buffer's element size: what an element index counts.
        scale: u64,
        addressing: Addressing,
    },
    Lds {
        /// The array's first byte within the workgroup's LDS.
        origin: u64,
        len: u64,
        /// The array's element size.
        scale: u64,
        addressing: Addressing,
    },
}

/// Each listed lane's byte offset (within the buffer, or within the LDS) for an
/// access of `count` consecutive `ty` values at index `i`; the first lane (in
/// lane order) out of bounds or misaligned faults.
pub(crate) fn offsets(
    place: &Place,
    idx: &[(usize, u32)],
    ty: ElemType,
    count: u16,
) -> Result<Vec<(usize, u64)>, (FaultKind, usize)> {
    let (origin, len, scale, addressing) = match *place {
        Place::Global {
            len,
            scale,
            addressing,
            ..
        } => (0, len, scale, addressing),
        Place::Lds {
            origin,
            len,
            scale,
            addressing,
        } => (origin, len, scale, addressing),
    };
    let size = u64::from(ty.size());
    let span = size * u64::from(count);
    idx.iter()
        .map(|&(l, i)| {
            let off = match addressing {
                // A wide access of a 64-bit element's two words steps by
                // the element, not by the words it moves.
                Addressing::Element => u64::from(i) * scale,
                Addressing::Byte => u64::from(i),
            };
            if off % size != 0 {
                return Err((FaultKind::Misaligned, l));
            }
            if off + span > len {
                return Err((FaultKind::OutOfBounds, l));
            }
            Ok((l, origin + off))
        })
        .collect()
}

/// The value of type `ty` at the start of `bytes`, extended to 32 bits.
pub(crate) fn extend(ty: ElemType, bytes: &[u8]) -> u32 {
    let b = |k: usize| bytes[k];
    match ty {
        ElemType::U8 => u32::from(b(0)),
        ElemType::I8 => b(0) as i8 as i32 as u32,
        // Half-precision values keep their bits, zero-extended.
        ElemType::U16 | ElemType::F16 | ElemType::BF16 => {
            u32::from(u16::from_le_bytes([b(0), b(1)]))
        }
        ElemType::I16 => i16::from_le_bytes([b(0), b(1)]) as i32 as u32,
        // 64-bit elements move as words (the wide accesses' `ty` is `U32`).
        ElemType::U32
        | ElemType::I32
        | ElemType::F32
        | ElemType::U64
        | ElemType::I64
        | ElemType::F64 => u32::from_le_bytes([b(0), b(1), b(2), b(3)]),
    }
}

/// What one memory instruction moves per lane: `count` values of `ty` at
/// `place`, atomically or not.
pub(crate) struct Shape<'p> {
    pub(crate) place: &'p Place,
    pub(crate) ty: ElemType,
    pub(crate) count: u16,
    pub(crate) atomic: bool,
}

/// Counts one access of `shape`: `offs` holds the active lanes and their byte
/// offsets.
pub(crate) fn count(
    c: &mut Counts,
    paths: &mut crate::Paths,
    geo: &Geometry,
    width: usize,
    shape: &Shape<'_>,
    offs: &[(usize, u64)],
) {
    let (place, size, count) = (shape.place, shape.ty.size() as u64, u64::from(shape.count));
    let span = size * count;
    let p = (geo.phase_lanes as usize).min(width);
    for first in (0..width).step_by(p) {
        let phase: Vec<(usize, u64)> = offs
            .iter()
            .copied()
            .filter(|&(l, _)| l >= first && l < first + p)
            .collect();
        if phase.is_empty() {
            continue;
        }
        let requested = phase.len() as u64 * span;
        let bytes = |lanes: &[(usize, u64)]| -> Vec<u64> {
            lanes
                .iter()
                .flat_map(|&(_, o)| o..o + span)
                .collect::<Vec<u64>>()
        };
        match place {
            Place::Global { .. } => {
                let all = bytes(&phase);
                let distinct = |unit: u32| {
                    all.iter()
                        .map(|b| b / u64::from(unit))
                        .collect::<BTreeSet<u64>>()
                        .len() as u64
                };
                let lines = distinct(geo.line_bytes);
                c.global_accesses += 1;
                c.global_transactions += lines;
                c.global_sectors += distinct(geo.sector_bytes);
                c.global_bytes_requested += requested;
                c.global_bytes_moved += lines * u64::from(geo.line_bytes);
            }
            Place::Lds { .. } => {
                c.lds_accesses += 1;
                c.lds_bytes_requested += requested;
                // A wide access is served in sub-phases of `phase_lanes / count`
                // lanes; each has its own conflicts.
                let sub = (geo.phase_lanes as usize / count as usize).max(1);
                for start in (first..first + p).step_by(sub) {
                    let part: Vec<(usize, u64)> = phase
                        .iter()
                        .copied()
                        .filter(|&(l, _)| l >= start && l < start + sub)
                        .collect();
                    let words: BTreeSet<u64> = bytes(&part)
                        .iter()
                        .map(|b| b / u64::from(geo.lds_bank_bytes))
                        .collect();
                    let mut per_bank: BTreeMap<u64, u64> = BTreeMap::new();
                    for w in words {
                        *per_bank.entry(w % u64::from(geo.lds_banks)).or_default() += 1;
                    }
                    let worst = per_bank.values().copied().max().unwrap_or(0);
                    c.lds_conflict_cycles += worst.saturating_sub(1);
                    paths.lds_conflicts += u64::from(worst > 1);
                }
            }
        }
        if shape.atomic {
            let mut per_word: BTreeMap<u64, u64> = BTreeMap::new();
            for &(_, o) in &phase {
                *per_word.entry(o).or_default() += 1;
            }
            let worst = per_word.values().max().copied().unwrap_or(1);
            c.atomic_accesses += 1;
            c.atomic_contention += worst - 1;
            paths.partial_contention += u64::from(worst > 1 && worst < phase.len() as u64);
        }
    }
}
