//! Memory and issue counters against hand-computed values, and against a naive
//! oracle (sets of lines, sectors and bank words per phase) on random patterns.

use crate::exec_util;

use exec_util::*;
use simt_core::{
    Arg, BinOp, CmpOp, CmpType, Counters, ElemType, LaunchConfig, MemoryModel, ProgramBuilder,
    ScalarType, Stats,
};
use std::collections::{HashMap, HashSet};

/// One LDS load per lane at element `lane * stride` (u32 array), lanes below
/// `active` only.
fn lds_stride(stride: u32, width: u32, active: u32) -> Stats {
    let mut p = ProgramBuilder::new("lds_stride");
    let tile = p.lds("tile", ElemType::U32, 64 * 32 + 1);
    let k = p.scalar("stride", ScalarType::U32);
    p.extend([
        bin(BinOp::MulU32, 0, lane(), arg(k)),
        lt(0, lane(), imm(active)),
        if_(0),
        lds_load(ElemType::U32, 1, lref(tile, v(0))),
        endif(),
    ]);
    let program = p.build().expect("valid");
    run(&program, &cfg(1, width, width), &mut [Arg::U32(stride)])
}

#[test]
fn lds_bank_conflicts_by_stride() {
    for (stride, cycles) in [
        (1, 0),
        (2, 1),
        (3, 0),
        (4, 3),
        (16, 15),
        (32, 31),
        (0, 0),
        (33, 0),
    ] {
        let s = lds_stride(stride, 32, 32);
        assert_eq!(s.totals.lds_conflict_cycles, cycles, "stride {stride}");
        assert_eq!(s.totals.lds_accesses, 1);
        assert_eq!(s.totals.lds_bytes_requested, 128);
    }
    // wave64: two 32-lane phases.
    for (stride, cycles) in [(1, 0), (2, 2), (32, 62), (0, 0)] {
        let s = lds_stride(stride, 64, 64);
        assert_eq!(
            s.totals.lds_conflict_cycles, cycles,
            "wave64 stride {stride}"
        );
        assert_eq!(s.totals.lds_accesses, 2);
        assert_eq!(s.totals.lds_bytes_requested, 256);
    }
    // Partial masks: 8 lanes at stride 32 share bank 0; a phase with no active
    // lane counts nothing.
    let s = lds_stride(32, 32, 8);
    assert_eq!(
        (s.totals.lds_accesses, s.totals.lds_conflict_cycles),
        (1, 7)
    );
    assert_eq!(s.totals.lds_bytes_requested, 32);
    let s = lds_stride(32, 64, 8);
    assert_eq!(
        (s.totals.lds_accesses, s.totals.lds_conflict_cycles),
        (1, 7)
    );
    let s = lds_stride(32, 64, 40);
    assert_eq!(
        (s.totals.lds_accesses, s.totals.lds_conflict_cycles),
        (2, 31 + 7)
    );
}

#[test]
fn lds_sub_word_accesses_share_words() {
    let mut p = ProgramBuilder::new("lds_bytes");
    let bytes = p.lds("bytes", ElemType::U8, 4096);
    let halves = p.lds("halves", ElemType::U16, 4096);
    p.extend([
        // u8 at byte `lane`: 8 words, 8 banks.
        lds_load(ElemType::U8, 0, lref(bytes, lane())),
        // u16 at element `lane * 64`: byte lane * 128, word lane * 32: bank 0.
        bin(BinOp::MulU32, 1, lane(), imm(64)),
        lds_load(ElemType::U16, 2, lref(halves, v(1))),
        // u8 broadcast of one byte.
        lds_load(ElemType::U8, 3, lref(bytes, imm(5))),
        // u16 at element `lane`: 16 words.
        lds_store(ElemType::U16, lref(halves, lane()), v(3)),
    ]);
    let program = p.build().expect("valid");
    let s = run(&program, &cfg(1, 32, 32), &mut []);
    let c: Vec<(u64, u64)> = s.per_instruction[..5]
        .iter()
        .map(|c| (c.lds_conflict_cycles, c.lds_bytes_requested))
        .collect();
    assert_eq!(c, vec![(0, 32), (0, 0), (31, 64), (0, 32), (0, 64)]);
}

/// One global u32 load per lane at element `gid * stride + offset` of the first
/// buffer, lanes below `active`, under `model`.
fn global_stride(stride: u32, width: u32, active: u32, model: MemoryModel, ty: ElemType) -> Stats {
    let mut p = ProgramBuilder::new("global_stride");
    let (data, size) = match ty {
        ElemType::U8 => (p.buffer::<u8>("data"), 1),
        ElemType::U16 => (p.buffer::<u16>("data"), 2),
        _ => (p.buffer::<u32>("data"), 4),
    };
    let k = p.scalar("stride", ScalarType::U32);
    p.extend([
        bin(BinOp::MulU32, 0, gid(), arg(k)),
        lt(0, lane(), imm(active)),
        if_(0),
        load(ty, 1, gref(data, v(0))),
        endif(),
    ]);
    let program = p.build().expect("valid");
    let (b8, b16, b32) = (vec![0u8; 4096], vec![0u16; 4096], vec![0u32; 4096]);
    let arg = match size {
        1 => Arg::buffer(&b8),
        2 => Arg::buffer(&b16),
        _ => Arg::buffer(&b32),
    };
    let config = LaunchConfig::new(1, width).wave_width(width).model(model);
    run(&program, &config, &mut [arg, Arg::U32(stride)])
}

#[test]
fn global_coalescing_by_stride() {
    let reference = MemoryModel::reference;
    let t = |s: &Stats| {
        (
            s.totals.global_accesses,
            s.totals.global_transactions,
            s.totals.global_bytes_requested,
            s.totals.global_bytes_moved,
        )
    };
    // Contiguous 4-byte: 128 bytes, two 64-byte lines.
    assert_eq!(
        t(&global_stride(1, 32, 32, reference(), ElemType::U32)),
        (1, 2, 128, 128)
    );
    // 64-byte stride: one line per lane.
    assert_eq!(
        t(&global_stride(16, 32, 32, reference(), ElemType::U32)),
        (1, 32, 128, 2048)
    );
    // Broadcast: one line.
    assert_eq!(
        t(&global_stride(0, 32, 32, reference(), ElemType::U32)),
        (1, 1, 128, 64)
    );
    // wave64 contiguous: two phases of two lines.
    assert_eq!(
        t(&global_stride(1, 64, 64, reference(), ElemType::U32)),
        (2, 4, 256, 256)
    );
    // Partial masks: 8 lanes in one line; lanes 0..40 of a wave64.
    assert_eq!(
        t(&global_stride(1, 32, 8, reference(), ElemType::U32)),
        (1, 1, 32, 64)
    );
    assert_eq!(
        t(&global_stride(1, 64, 40, reference(), ElemType::U32)),
        (2, 3, 160, 192)
    );
    assert_eq!(
        t(&global_stride(16, 64, 33, reference(), ElemType::U32)),
        (2, 33, 132, 2112)
    );
    // Sub-word: 32 bytes and 64 bytes, one line each.
    assert_eq!(
        t(&global_stride(1, 32, 32, reference(), ElemType::U8)),
        (1, 1, 32, 64)
    );
    assert_eq!(
        t(&global_stride(1, 32, 32, reference(), ElemType::U16)),
        (1, 1, 64, 64)
    );
    // Stride 2 u32: 256 bytes, four lines.
    assert_eq!(
        t(&global_stride(2, 32, 32, reference(), ElemType::U32)),
        (1, 4, 128, 256)
    );
    // NVIDIA model: one 128-byte line of four 32-byte sectors.
    let s = global_stride(1, 32, 32, MemoryModel::nvidia(), ElemType::U32);
    assert_eq!(t(&s), (1, 1, 128, 128));
    assert_eq!(s.totals.global_sectors, 4);
    // 32-byte stride: four lanes per line, one sector each.
    let s = global_stride(8, 32, 32, MemoryModel::nvidia(), ElemType::U32);
    assert_eq!(
        (s.totals.global_transactions, s.totals.global_sectors),
        (8, 32)
    );
    let s = global_stride(2, 32, 32, MemoryModel::nvidia(), ElemType::U32);
    assert_eq!(
        (s.totals.global_transactions, s.totals.global_sectors),
        (2, 8)
    );
}

#[test]
fn buffers_are_aligned_to_256_bytes() {
    // A 4-byte buffer first; the second buffer starts at 256, so its first 16
    // words are one line.
    let mut p = ProgramBuilder::new("align");
    let first = p.buffer::<u32>("first");
    let second = p.buffer::<u32>("second");
    p.extend([
        load(ElemType::U32, 0, gref(first, imm(0))),
        lt(0, lane(), imm(16)),
        if_(0),
        load(ElemType::U32, 1, gref(second, lane())),
        endif(),
    ]);
    let program = p.build().expect("valid");
    let a = [0u32; 1];
    let b = [0u32; 16];
    let s = run(
        &program,
        &cfg(1, 32, 32),
        &mut [Arg::buffer(&a), Arg::buffer(&b)],
    );
    assert_eq!(s.per_instruction[0].global_transactions, 1);
    assert_eq!(s.per_instruction[3].global_transactions, 1);
}

/// The oracle: per phase of `phase` lanes, sets of lines, sectors and bank words.
fn oracle(
    width: usize,
    active: &[bool],
    addrs: &[u32],
    size: u32,
    model: &MemoryModel,
    lds: bool,
) -> Counters {
    let mut c = Counters::default();
    let phase = (model.phase_lanes as usize).min(width);
    for wave in 0..active.len() / width {
        for start in (0..width).step_by(phase) {
            let lanes: Vec<usize> = (wave * width + start..wave * width + start + phase)
                .filter(|&i| active[i])
                .collect();
            if lanes.is_empty() {
                continue;
            }
            if lds {
                c.lds_accesses += 1;
                c.lds_bytes_requested += lanes.len() as u64 * size as u64;
                let mut per_bank: HashMap<u32, HashSet<u32>> = HashMap::new();
                for &i in &lanes {
                    let word = addrs[i] / model.lds_bank_bytes;
                    per_bank
                        .entry(word % model.lds_banks)
                        .or_default()
                        .insert(word);
                }
                let worst = per_bank.values().map(|w| w.len()).max().unwrap_or(1);
                c.lds_conflict_cycles += worst as u64 - 1;
            } else {
                let lines: HashSet<u32> =
                    lanes.iter().map(|&i| addrs[i] / model.line_bytes).collect();
                let sectors: HashSet<u32> = lanes
                    .iter()
                    .map(|&i| addrs[i] / model.sector_bytes)
                    .collect();
                c.global_accesses += 1;
                c.global_transactions += lines.len() as u64;
                c.global_sectors += sectors.len() as u64;
                c.global_bytes_requested += lanes.len() as u64 * size as u64;
                c.global_bytes_moved += lines.len() as u64 * model.line_bytes as u64;
            }
        }
    }
    c
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

#[test]
fn random_patterns_match_the_oracle() {
    let models = [
        MemoryModel::reference(),
        MemoryModel::nvidia(),
        MemoryModel {
            name: "narrow".into(),
            phase_lanes: 16,
            line_bytes: 32,
            sector_bytes: 16,
            lds_banks: 16,
            lds_bank_bytes: 8,
            l1: None,
            compute_units: 1,
        },
        MemoryModel {
            name: "wide".into(),
            phase_lanes: 64,
            line_bytes: 256,
            sector_bytes: 64,
            lds_banks: 64,
            lds_bank_bytes: 4,
            l1: None,
            compute_units: 1,
        },
    ];
    let mut p = ProgramBuilder::new("random");
    let data = p.buffer::<u32>("data");
    let idx = p.buffer::<u32>("idx");
    let on = p.buffer::<u32>("on");
    let tile = p.lds("tile", ElemType::U32, 1024);
    p.extend([
        load(ElemType::U32, 0, gref(idx, gid())),
        load(ElemType::U32, 1, gref(on, gid())),
        cmp(CmpOp::Ne, CmpType::U32, 0, v(1), imm(0)),
        if_(0),
        load(ElemType::U32, 2, gref(data, v(0))),
        bin(BinOp::And, 3, v(0), imm(1023)),
        lds_load(ElemType::U32, 4, lref(tile, v(3))),
        endif(),
    ]);
    let program = p.build().expect("valid");
    let n = 256usize;
    let data_buf = vec![0u32; 4096];
    let mut rng = Lcg(42);
    for round in 0..60 {
        // Mix of patterns: random words, clustered, strided, few distinct.
        let kind = round % 4;
        let idx_buf: Vec<u32> = (0..n as u32)
            .map(|i| match kind {
                0 => rng.next() % 4096,
                1 => (i * 3 + rng.next() % 8) % 4096,
                2 => (i * (1 + rng.next() % 40)) % 4096,
                _ => (rng.next() % 6) * 33,
            })
            .collect();
        let on_buf: Vec<u32> = (0..n)
            .map(|_| !rng.next().is_multiple_of(5) as u32)
            .collect();
        let active: Vec<bool> = on_buf.iter().map(|&o| o != 0).collect();
        for model in &models {
            for width in [32usize, 64] {
                let config = LaunchConfig::new(n as u32 / 64, 64)
                    .wave_width(width as u32)
                    .model(model.clone());
                let s = run(
                    &program,
                    &config,
                    &mut [
                        Arg::buffer(&data_buf),
                        Arg::buffer(&idx_buf),
                        Arg::buffer(&on_buf),
                    ],
                );
                let gaddr: Vec<u32> = idx_buf.iter().map(|&i| i * 4).collect();
                let laddr: Vec<u32> = idx_buf.iter().map(|&i| (i & 1023) * 4).collect();
                let g = oracle(width, &active, &gaddr, 4, model, false);
                let l = oracle(width, &active, &laddr, 4, model, true);
                let what = format!("round {round} model {} wave{width}", model.name);
                let got = &s.per_instruction[4];
                assert_eq!(got.global_accesses, g.global_accesses, "{what}");
                assert_eq!(got.global_transactions, g.global_transactions, "{what}");
                assert_eq!(got.global_sectors, g.global_sectors, "{what}");
                assert_eq!(
                    got.global_bytes_requested, g.global_bytes_requested,
                    "{what}"
                );
                assert_eq!(got.global_bytes_moved, g.global_bytes_moved, "{what}");
                let got = &s.per_instruction[6];
                assert_eq!(got.lds_accesses, l.lds_accesses, "{what}");
                assert_eq!(got.lds_conflict_cycles, l.lds_conflict_cycles, "{what}");
                assert_eq!(got.lds_bytes_requested, l.lds_bytes_requested, "{what}");
            }
        }
    }
}

#[test]
fn per_instruction_counters_sum_to_totals_and_runs_are_deterministic() {
    let mut p = ProgramBuilder::new("mixed");
    let x = p.buffer::<u32>("x");
    let y = p.buffer_mut::<u32>("y");
    let tile = p.lds("tile", ElemType::U32, 256);
    p.extend([
        load(ElemType::U32, 0, gref(x, gid())),
        bin(BinOp::RemU32, 1, v(0), imm(3)),
        eq(0, v(1), imm(0)),
        if_(0),
        bin(BinOp::MulU32, 2, lid(), imm(7)),
        bin(BinOp::RemU32, 2, v(2), imm(256)),
        lds_store(ElemType::U32, lref(tile, v(2)), v(0)),
        else_(),
        lds_store(ElemType::U32, lref(tile, lid()), v(1)),
        endif(),
        simt_core::Inst::Barrier,
        lds_load(ElemType::U32, 3, lref(tile, lid())),
        store(ElemType::U32, gref(y, gid()), v(3)),
    ]);
    let program = p.build().expect("valid");
    let xs: Vec<u32> = (0..1024u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    for width in [32, 64] {
        let config = cfg(4, 256, width);
        let mut y1 = vec![0u32; 1024];
        let s1 = run(
            &program,
            &config,
            &mut [Arg::buffer(&xs), Arg::buffer_mut(&mut y1)],
        );
        let mut y2 = vec![0u32; 1024];
        let s2 = run(
            &program,
            &config,
            &mut [Arg::buffer(&xs), Arg::buffer_mut(&mut y2)],
        );
        assert_eq!(s1, s2);
        assert_eq!(y1, y2);
        let mut sum = Counters::default();
        for c in &s1.per_instruction {
            sum.add(c);
        }
        assert_eq!(sum, s1.totals);
        let hist: u64 = s1.active_lanes_histogram.iter().sum();
        assert_eq!(hist, s1.totals.vector_instructions);
        let lanes: u64 = s1
            .active_lanes_histogram
            .iter()
            .enumerate()
            .map(|(k, n)| k as u64 * n)
            .sum();
        assert_eq!(lanes, s1.totals.active_lanes);
        assert_eq!(s1.active_lanes_histogram.len(), width as usize + 1);
        let waves = 1024 / width as u64;
        assert_eq!(s1.waves, waves);
        assert_eq!(s1.workgroups, 4);
        assert_eq!(s1.totals.barriers, waves);
        // Both branch bodies are divergent in every wave (about a third of the
        // values are multiples of 3); everything outside is not.
        assert_eq!(s1.per_instruction[6].divergent_vector_instructions, waves);
        assert_eq!(s1.per_instruction[8].divergent_vector_instructions, waves);
        assert_eq!(s1.per_instruction[11].divergent_vector_instructions, 0);
        // Machine reuse gives the same statistics.
        let mut m = simt_core::Machine::new();
        let mut y3 = vec![0u32; 1024];
        let s3 = m
            .launch(
                &program,
                &config,
                &mut [Arg::buffer(&xs), Arg::buffer_mut(&mut y3)],
            )
            .expect("launch");
        let s4 = m
            .launch(
                &program,
                &config,
                &mut [Arg::buffer(&xs), Arg::buffer_mut(&mut y3)],
            )
            .expect("launch");
        assert_eq!(s3, s1);
        assert_eq!(s4, s1);
    }
}

#[test]
fn contiguous_lds_blocks_match_the_oracle() {
    // Fully active waves reading consecutive elements from `start`, for every
    // access width, under models whose phases span more words than banks.
    let models = [
        MemoryModel::reference(),
        MemoryModel {
            name: "few_banks".into(),
            phase_lanes: 32,
            line_bytes: 64,
            sector_bytes: 64,
            lds_banks: 8,
            lds_bank_bytes: 4,
            l1: None,
            compute_units: 1,
        },
        MemoryModel {
            name: "wide_banks".into(),
            phase_lanes: 64,
            line_bytes: 64,
            sector_bytes: 32,
            lds_banks: 4,
            lds_bank_bytes: 8,
            l1: None,
            compute_units: 1,
        },
    ];
    for (ty, size) in [(ElemType::U8, 1u32), (ElemType::U16, 2), (ElemType::U32, 4)] {
        for start in [0u32, 3, 17] {
            let mut p = ProgramBuilder::new("block");
            let tile = p.lds("tile", ty, 512);
            p.extend([
                add(0, lane(), imm(start)),
                lds_load(ty, 1, lref(tile, v(0))),
            ]);
            let program = p.build().expect("valid");
            for model in &models {
                for width in [32usize, 64] {
                    let config = LaunchConfig::new(1, width as u32)
                        .wave_width(width as u32)
                        .model(model.clone());
                    let s = run(&program, &config, &mut []);
                    let addrs: Vec<u32> = (0..width as u32).map(|l| (l + start) * size).collect();
                    let want = oracle(width, &vec![true; width], &addrs, size, model, true);
                    let got = &s.per_instruction[1];
                    let what = format!("{ty:?} start {start} {} wave{width}", model.name);
                    assert_eq!(got.lds_accesses, want.lds_accesses, "{what}");
                    assert_eq!(got.lds_conflict_cycles, want.lds_conflict_cycles, "{what}");
                }
            }
        }
    }
}
