//! The access counters' formulas for blocks and broadcasts against the
//! lane-by-lane count of the same offsets.

use super::super::bind::Geometry;
use super::span::Spans;
use super::{count_global, Count, Shape};
use crate::stats::Counters;
use proptest::prelude::*;

/// A model's geometry: `phase_lanes` lanes per phase, `2^line_shift`-byte
/// lines of `2^sector_shift`-byte sectors.
fn geometry(phase_lanes: u32, line_shift: u32, sector_shift: u32) -> Geometry {
    Geometry {
        phase_lanes,
        line_shift,
        sector_shift,
        line_bytes: 1 << line_shift,
        bank_shift: 2,
        bank_mask: 31,
    }
}

/// The counters of one access of `shape`, and of the same offsets walked lane
/// by lane (the scattered path, which assumes nothing about them).
fn both<const W: usize>(
    exec: u64,
    shape: Shape,
    offs: &[u32; W],
    base: u32,
    size: u32,
    geo: &Geometry,
) -> (Counters, Counters) {
    let mut buf = [0u32; W];
    let (mut formula, mut walked) = (Counters::default(), Counters::default());
    for (c, shape) in [(&mut formula, shape), (&mut walked, Shape::Scattered)] {
        let count = Count {
            geo,
            c,
            worst: None,
        };
        count_global::<W>(exec, shape, offs, base, size, count, &mut buf);
    }
    (formula, walked)
}

fn check<const W: usize>(
    phase: u32,
    line: u32,
    sector: u32,
    size: u32,
    base: u32,
    start: u32,
    exec: u64,
) -> Result<(), TestCaseError> {
    let geo = geometry(1 << phase, line, sector.min(line));
    let full = if W >= 64 { u64::MAX } else { (1 << W) - 1 };
    let start = start * size;
    let block: [u32; W] = std::array::from_fn(|l| start + l as u32 * size);
    let (formula, walked) = both::<W>(full, Shape::Contiguous, &block, base, size, &geo);
    prop_assert_eq!(formula, walked, "block");
    let exec = exec & full;
    prop_assume!(exec != 0);
    let broadcast = [start; W];
    let (formula, walked) = both::<W>(exec, Shape::Uniform, &broadcast, base, size, &geo);
    prop_assert_eq!(formula, walked, "broadcast");
    Ok(())
}

proptest! {
    #[test]
    fn block_and_broadcast_formulas_match_the_lane_walk(
        phase in 0u32..7,
        line in 4u32..9,
        sector in 4u32..9,
        size in prop::sample::select(vec![1u32, 2, 4]),
        base in (0u32..64).prop_map(|b| b * 256),
        start in 0u32..5000,
        exec in any::<u64>(),
    ) {
        check::<32>(phase, line, sector, size, base, start, exec)?;
        check::<64>(phase, line, sector, size, base, start, exec)?;
    }
}

proptest! {
    /// The AVX2 gather of a scattered load reads what the plain loop reads,
    /// offsets past the end included (both clamp them to the last word).
    #[test]
    fn scattered_gathers_read_the_same_with_and_without_avx2(
        len in 0usize..600,
        offs in prop::array::uniform32(any::<u32>()),
        small in prop::array::uniform32(0u32..640),
        pick in any::<u32>(),
    ) {
        let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
        // Mostly offsets near the buffer, some anywhere in 32 bits.
        let offs: [u32; 32] = std::array::from_fn(|l| if pick >> l & 1 == 0 { small[l] } else { offs[l] });
        let (mut plain, mut fast) = ([7u32; 32], [7u32; 32]);
        super::gather::<32>(&data, &offs, crate::ir::ElemType::U32, &mut plain, Shape::Scattered, false);
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        super::gather::<32>(&data, &offs, crate::ir::ElemType::U32, &mut fast, Shape::Scattered, avx2);
        prop_assert_eq!(plain, fast);
    }
}

proptest! {
    /// An index known to step by one takes the shortcut in `offsets`; it gives
    /// the offsets, shape and faulting lane of the general pass, at the end
    /// of the 32-bit range and past the buffer's end too.
    #[test]
    fn stepped_indices_take_the_general_pass_s_result(
        first in prop_oneof![0u32..2000, (u32::MAX - 100)..=u32::MAX],
        len in 0u64..5000,
        size in prop::sample::select(vec![1u32, 2, 4]),
        origin in 0u32..64,
        byte in any::<bool>(),
    ) {
        let idx: [u32; 32] = std::array::from_fn(|l| first.wrapping_add(l as u32));
        let area = super::Area {
            addressing: if byte { crate::ir::Addressing::Byte } else { crate::ir::Addressing::Element },
            size,
            len,
            origin,
        };
        let lm = [u32::MAX; 32];
        let (mut general, mut stepped) = ([0u32; 32], [0u32; 32]);
        let a = super::offsets::<32>(&idx, &lm, u32::MAX as u64, area, &mut general, false);
        let b = super::offsets::<32>(&idx, &lm, u32::MAX as u64, area, &mut stepped, true);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a, b);
                prop_assert_eq!(general, stepped);
            }
            (Err(a), Err(b)) => prop_assert_eq!(
                (a.lane, a.index, a.offset, a.misaligned),
                (b.lane, b.index, b.offset, b.misaligned)
            ),
            (a, b) => prop_assert!(false, "{:?} / {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

/// An LDS access's conflict cycles counted bank by bank: per phase, the
/// busiest bank's distinct words minus one.
fn lds_cycles_by_bank(offs: &[u32], phase: usize, geo: &Geometry) -> u64 {
    offs.chunks(phase)
        .map(|lanes| {
            let mut words: Vec<Vec<u32>> = vec![Vec::new(); geo.bank_mask as usize + 1];
            for &o in lanes {
                let word = o >> geo.bank_shift;
                let bank = &mut words[(word & geo.bank_mask) as usize];
                if !bank.contains(&word) {
                    bank.push(word);
                }
            }
            words.iter().map(Vec::len).max().unwrap_or(1) as u64 - 1
        })
        .sum()
}

proptest! {
    /// The formula path's LDS count of one block (`block::count_lds`) is
    /// the bank-by-bank count of its lanes' offsets.
    #[test]
    fn lds_block_formula_matches_the_bank_count(
        phase in 0u32..7,
        size in prop::sample::select(vec![1u32, 2, 4]),
        start in 0u32..5000,
    ) {
        let geo = geometry(1 << phase, 6, 6);
        let first = start * size;
        let block: [u32; 64] = std::array::from_fn(|l| first + l as u32 * size);
        for width in [32usize, 64] {
            let mut c = Counters::default();
            if width == 32 {
                super::block::count_lds::<32>(first, size, &geo, &mut c);
            } else {
                super::block::count_lds::<64>(first, size, &geo, &mut c);
            }
            let p = (geo.phase_lanes as usize).min(width);
            prop_assert_eq!(c.lds_conflict_cycles, lds_cycles_by_bank(&block[..width], p, &geo));
            prop_assert_eq!(c.lds_accesses, (width / p) as u64);
            prop_assert_eq!(c.lds_bytes_requested, width as u64 * u64::from(size));
        }
    }
}

/// A wave's element indices of one of the shapes the span path counts by
/// formula, or anything: `kind` picks rows of 16 lanes (each row `row`
/// apart, lanes `col` apart within one), a constant step, a narrow window
/// in any order, or arbitrary indices.
fn wave_indices(kind: u32, a: u32, row: u32, col: u32, step: i32, seed: [u32; 64]) -> [u32; 64] {
    std::array::from_fn(|l| {
        let l32 = l as u32;
        match kind {
            0 => a + (l32 / 16) * row + (l32 % 16) * col,
            1 => (i64::from(a) + 64 * 40 + i64::from(step) * l as i64) as u32,
            2 => a + seed[l] % (col + 1),
            _ => seed[l] % 20_000,
        }
    })
}

/// The distinct `(base + index * 4) >> shift` of each phase, summed: the
/// lines (or sectors) of a global access counted from a set per phase.
fn keys_by_set(idx: &[u32], phase: usize, base: u32, shift: u32) -> u64 {
    idx.chunks(phase)
        .map(|lanes| {
            let keys: std::collections::BTreeSet<u32> =
                lanes.iter().map(|&i| (base + i * 4) >> shift).collect();
            keys.len() as u64
        })
        .sum()
}

/// What the span path counts of the lanes of `exec` in phases of `P`:
/// the global lines and sectors, the LDS conflict cycles, the range of
/// active indices and the phases with an active lane.
type SpanCounts = (Option<(u64, u64)>, Option<u64>, Option<(u32, u32)>, u64);

fn counted<const W: usize, const P: usize>(
    idx: &[u32; W],
    exec: u64,
    base: u32,
    origin: u32,
    geo: &Geometry,
) -> SpanCounts {
    let spans = Spans::<P>::of::<W>(idx, &lane_words(exec), exec);
    let global = spans.global(idx, base, 4, geo);
    (
        global,
        spans.lds_cycles(idx, origin, geo),
        spans.range(),
        spans.phases(),
    )
}

/// The per-lane all-ones or zero words of `exec`.
fn lane_words<const W: usize>(exec: u64) -> [u32; W] {
    std::array::from_fn(|l| 0u32.wrapping_sub((exec >> l & 1) as u32))
}

proptest! {
    /// Where the span path counts an access (`span::Spans`), it counts what
    /// a set of each phase's lines and sectors, or a bank-by-bank count of
    /// its words, does, over the active lanes; and it counts every shape it
    /// is meant for (rows, windows no wider than a line or the banks, and,
    /// every lane active, steps).
    #[test]
    fn span_formulas_match_sets_of_lines_and_banks(
        kind in 0u32..4,
        a in 0u32..3000,
        row in 0u32..40,
        col in 0u32..4,
        step in -40i32..40,
        seed in prop::array::uniform32(any::<u32>()),
        more in prop::array::uniform32(any::<u32>()),
        phase in 4u32..7,
        line in 4u32..9,
        sector in 4u32..9,
        base in (0u32..64).prop_map(|b| b * 256),
        origin in (0u32..64).prop_map(|w| w * 4),
        exec in prop_oneof![Just(u64::MAX), any::<u64>(), (1u32..64).prop_map(|n| (1u64 << n) - 1)],
    ) {
        let seed: [u32; 64] = std::array::from_fn(|l| if l < 32 { seed[l] } else { more[l - 32] });
        let idx = wave_indices(kind, a, row, col, step, seed);
        let geo = geometry(1 << phase, line, sector.min(line));
        for width in [32usize, 64] {
            let exec = if width == 32 { exec & u64::from(u32::MAX) } else { exec };
            prop_assume!(exec != 0);
            let p = (geo.phase_lanes as usize).min(width);
            let (global, lds, range, phases) = if width == 32 {
                let idx: &[u32; 32] = idx[..32].try_into().unwrap();
                match p {
                    16 => counted::<32, 16>(idx, exec, base, origin, &geo),
                    _ => counted::<32, 32>(idx, exec, base, origin, &geo),
                }
            } else {
                match p {
                    16 => counted::<64, 16>(&idx, exec, base, origin, &geo),
                    32 => counted::<64, 32>(&idx, exec, base, origin, &geo),
                    _ => counted::<64, 64>(&idx, exec, base, origin, &geo),
                }
            };
            // The active lanes of each phase.
            let active: Vec<Vec<u32>> = (0..width / p)
                .map(|k| (k * p..(k + 1) * p).filter(|&l| exec >> l & 1 == 1).map(|l| idx[l]).collect())
                .filter(|lanes: &Vec<u32>| !lanes.is_empty())
                .collect();
            let all: Vec<u32> = active.concat();
            prop_assert_eq!(range, Some((*all.iter().min().unwrap(), *all.iter().max().unwrap())));
            prop_assert_eq!(phases, active.len() as u64);
            let sets = |shift: u32| active.iter().map(|lanes| keys_by_set(lanes, p, base, shift)).sum::<u64>();
            let (lines, sectors) = (sets(geo.line_shift), sets(geo.sector_shift));
            let cycles: u64 = active
                .iter()
                .map(|lanes| {
                    let offs: Vec<u32> = lanes.iter().map(|&i| i * 4 + origin).collect();
                    lds_cycles_by_bank(&offs, p, &geo)
                })
                .sum();
            if let Some(counted) = global {
                prop_assert_eq!(counted, (lines, sectors), "global, {} lanes", width);
            }
            if let Some(counted) = lds {
                prop_assert_eq!(counted, cycles, "LDS, {} lanes", width);
            }
            // What the path is for, it counts.
            let whole = exec == if width == 32 { u64::from(u32::MAX) } else { u64::MAX };
            let stepped = kind == 1 && whole;
            let window = kind == 2 && col < 16;
            let rows = (p as u32 / 16 - 1) * row + 15 * col;
            if stepped || window || (kind == 0 && rows <= geo.bank_mask) {
                prop_assert!(lds.is_some(), "LDS not counted: kind {}", kind);
            }
            if stepped || (window && (col + 1) * 4 <= 1 << geo.sector_shift) {
                prop_assert!(global.is_some(), "global not counted: kind {}", kind);
            }
        }
    }
}

proptest! {
    /// The span path's gather reads element `idx[l]` of the bytes, with
    /// AVX2 as without, indices past the end reading the last element.
    #[test]
    fn element_gathers_read_each_lane_s_element(
        len in 0usize..600,
        idx in prop::array::uniform32(0u32..200),
    ) {
        let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
        let elements = len / 4;
        let expected: [u32; 32] = std::array::from_fn(|l| {
            let at = (idx[l] as usize).min(elements.saturating_sub(1)) * 4;
            data.get(at..at + 4).map_or(7, |b| u32::from_ne_bytes(b.try_into().unwrap()))
        });
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        for fast in [false, avx2] {
            let mut out = [7u32; 32];
            super::gather_elements::<32>(&data, &idx, &mut out, fast);
            prop_assert_eq!(out, expected, "avx2: {}", fast);
        }
    }
}
