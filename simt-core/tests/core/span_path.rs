//! The span path against the general path. A plain launch takes the span
//! path for a one-element access of 4-byte elements whose counts follow from
//! each memory phase's lowest and highest active index (lanes within two
//! lines or one sweep of the banks in any order, or, every lane active,
//! indices stepping by a constant); a sanitized launch never does, since its
//! instrument sees every lane's offset. Both must leave the same memory and
//! the same counters on every instruction, including where lanes share an
//! element (a store's last lane wins), where lanes are off, and where the
//! pattern is one the span path leaves to the general path; and an access
//! past its buffer must fault as the general path faults.

use crate::exec_util;

use exec_util::*;
use simt_core::{BinOp, ElemType, LaunchConfig, ProgramBuilder};

/// Work-items in the launch.
const ITEMS: u32 = 256;

/// Elements of `data` and of the LDS tile.
const ELEMENTS: u32 = 4096;

/// Lane `l`'s index: `k + (l / 16) * row + (l % 16) * col + l * step`.
#[derive(Clone, Copy, Debug)]
struct Pattern {
    k: u32,
    row: u32,
    col: u32,
    step: u32,
    /// Lanes `active..` of each wave sit the accesses out.
    active: u32,
}

/// With lane `l`'s index `i` (see [`Pattern`]), where `l < active`:
/// `x = data[i]`, `tile[i] = l` (lanes sharing an element store different
/// values), and after a barrier `out[gid] = tile[i] + x` and `out2[i] = x`.
fn program(p: Pattern) -> simt_core::Kernel {
    let mut b = ProgramBuilder::new("spans");
    let data = b.buffer::<u32>("data");
    let out = b.buffer_mut::<u32>("out");
    let out2 = b.buffer_mut::<u32>("out2");
    let tile = b.lds("tile", ElemType::U32, ELEMENTS);
    b.extend([
        bin(BinOp::ShrU32, 1, lane(), imm(4)),
        bin(BinOp::MulU32, 1, v(1), imm(p.row)),
        bin(BinOp::And, 2, lane(), imm(15)),
        bin(BinOp::MulU32, 2, v(2), imm(p.col)),
        add(1, v(1), v(2)),
        bin(BinOp::MulU32, 2, lane(), imm(p.step)),
        add(1, v(1), v(2)),
        add(1, v(1), imm(p.k)),
        lt(0, lane(), imm(p.active)),
        if_(0),
        load(ElemType::U32, 3, gref(data, v(1))),
        lds_store(ElemType::U32, lref(tile, v(1)), lane()),
        endif(),
        simt_core::Inst::Barrier,
        if_(0),
        lds_load(ElemType::U32, 4, lref(tile, v(1))),
        add(4, v(4), v(3)),
        store(ElemType::U32, gref(out, gid()), v(4)),
        store(ElemType::U32, gref(out2, v(1)), v(3)),
        endif(),
    ]);
    b.build().expect("valid")
}

/// The plain launch (span path where it applies) and the sanitized one
/// (general path) of `program(p)` on `data` agree.
fn agree(p: Pattern, data: &[u32], config: &LaunchConfig) -> Result<(), String> {
    let lens = (ITEMS as usize, ELEMENTS as usize);
    plain_agrees_with_sanitized(&program(p), data, lens, config, &format!("{p:?}"))
}

#[test]
fn span_accesses_count_and_move_as_the_general_path() {
    let data: Vec<u32> = (0..ELEMENTS).map(|i| 7000 + i * 3).collect();
    // Rows of 16 lanes (the tiled product's two tiles), a block, a
    // broadcast, steps shorter and longer than a line and across the banks,
    // rows too far apart and a step that changes midway (both left to the
    // general path), each with every lane active and with a prefix of lanes.
    let shapes = [
        (16, 0, 0),
        (0, 1, 0),
        (0, 0, 0),
        (0, 0, 1),
        (0, 0, 2),
        (0, 0, 5),
        (0, 0, 16),
        (0, 0, 32),
        (0, 0, 33),
        (40, 1, 0),
        (3, 2, 1),
    ];
    for width in [32, 64] {
        for (row, col, step) in shapes {
            for k in [0, 7, 16] {
                for active in [64, 13] {
                    let p = Pattern {
                        k,
                        row,
                        col,
                        step,
                        active,
                    };
                    agree(p, &data, &cfg(ITEMS / 128, 128, width)).expect("in bounds");
                }
            }
        }
    }
}

#[test]
fn a_span_past_its_buffer_faults_as_the_general_path() {
    // The highest lane's index is past `data` (and the tile): the first
    // lane out of bounds faults, on both paths.
    let data: Vec<u32> = (0..100).collect();
    for width in [32, 64] {
        let p = Pattern {
            k: 90,
            row: 0,
            col: 0,
            step: 1,
            active: 64,
        };
        let err = agree(p, &data, &cfg(ITEMS / 128, 128, width)).expect_err("out of bounds");
        assert!(err.contains("out-of-bounds load"), "{err}");
        assert!(err.contains("lane 10"), "{err}");
    }
}
