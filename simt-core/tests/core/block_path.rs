//! The formula path against the general path. A plain launch takes the
//! formula path for an access of every lane of a wave to one block of
//! 4-byte elements whose index steps by one (range checked once, counts by
//! formula, one copy); a sanitized launch never does, since its instrument
//! sees every lane's offset. Both must leave the same memory and the same
//! counters on every instruction, and an access whose block leaves its
//! buffer must fault as the general path faults.

use crate::exec_util;

use exec_util::*;
use simt_core::{ElemType, Inst, LaunchConfig, Operand, ProgramBuilder};

/// Work-items in the launch.
const ITEMS: u32 = 256;

/// `out[gid + k] = data[v0 + k]`, `tile[lid + k] = that`, then after a
/// barrier `out2[gid] = tile[lane + k] + that`: global and LDS block loads
/// and stores through a register copy, the x ids and the lane id, at a
/// uniform offset `k` that moves the block across lines and banks. The tile
/// follows a 3-word array, so that its first byte is not the LDS's.
fn program(k: u32) -> simt_core::Kernel {
    let mut p = ProgramBuilder::new("blocks");
    let data = p.buffer::<u32>("data");
    let out = p.buffer_mut::<u32>("out");
    let out2 = p.buffer_mut::<u32>("out2");
    let pad = p.lds("pad", ElemType::U32, 3);
    let tile = p.lds("tile", ElemType::U32, ITEMS + 64);
    let at = |r: simt_core::GlobalRef| simt_core::GlobalRef {
        offset: Operand::Imm(k),
        ..r
    };
    let lat = |r: simt_core::LdsRef| simt_core::LdsRef {
        offset: Operand::Imm(k),
        ..r
    };
    p.extend([
        lds_store(ElemType::U32, lref(pad, imm(0)), imm(1)),
        mov(0, gid()),
        load(ElemType::U32, 1, at(gref(data, v(0)))),
        store(ElemType::U32, at(gref(out, gid())), v(1)),
        mov(2, lid()),
        lds_store(ElemType::U32, lat(lref(tile, v(2))), v(1)),
        Inst::Barrier,
        lds_load(ElemType::U32, 3, lat(lref(tile, lane()))),
        add(3, v(3), v(1)),
        store(ElemType::U32, gref(out2, v(0)), v(3)),
    ]);
    p.build().expect("valid")
}

/// The plain launch (formula path where it applies) and the sanitized one
/// (general path) of `program(k)` on `data` agree.
fn agree(k: u32, data: &[u32], config: &LaunchConfig) -> Result<(), String> {
    let lens = ((ITEMS + 64) as usize, ITEMS as usize);
    plain_agrees_with_sanitized(&program(k), data, lens, config, &format!("k = {k}"))
}

#[test]
fn block_accesses_count_and_move_as_the_general_path() {
    let data: Vec<u32> = (0..ITEMS + 64).map(|i| 7000 + i).collect();
    for width in [32, 64] {
        // 128-item groups hold whole waves; 96-item groups of wave64 do not
        // (the x ids do not step within a wave, and the second wave is half
        // empty), so those accesses take the general path on both launches.
        for size in [128, 96] {
            for k in [0, 1, 5, 16, 33] {
                let config = cfg(ITEMS / size.min(128), size, width);
                agree(k, &data, &config).expect("in bounds");
            }
        }
    }
}

#[test]
fn a_block_past_its_buffer_faults_as_the_general_path() {
    // Every index but the last wave's is in bounds: the last wave's block
    // ends past `data`, and the first lane out of bounds faults.
    let data: Vec<u32> = (0..ITEMS - 5).collect();
    for width in [32, 64] {
        let err = agree(0, &data, &cfg(2, 128, width)).expect_err("out of bounds");
        assert!(err.contains("out-of-bounds load"), "{err}");
        assert!(err.contains("lane 27") || err.contains("lane 59"), "{err}");
    }
}
