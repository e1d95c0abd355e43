//! The memory columns of the reference simulator's published table (DESIGN.md,
//! "Figures to reproduce"), reproduced exactly at wave32 and wave64: they follow
//! from each kernel's algorithm and the reference model alone.

use simt::core::{Counters, MemoryModel};
use simt_kernels::registry;

/// kernel, lds acc, lds conflict cycles, glb acc, glb trans, trans/acc as printed.
const PUBLISHED: [(&str, u64, u64, u64, u64, &str); 11] = [
    ("vecadd_i32", 0, 0, 384, 768, "2.00"),
    ("vecadd_f32", 0, 0, 384, 768, "2.00"),
    ("saxpy_f32", 0, 0, 384, 768, "2.00"),
    ("divergent_collatz_i32", 0, 0, 256, 512, "2.00"),
    ("reduce_i32", 720, 0, 144, 272, "1.89"),
    ("reduce_f32", 720, 0, 144, 272, "1.89"),
    ("matmul_naive_f32", 0, 0, 16512, 24832, "1.50"),
    ("matmul_tiled_f32", 17408, 0, 1152, 2304, "2.00"),
    ("copy_coalesced_f32", 0, 0, 256, 512, "2.00"),
    ("copy_strided_f32", 0, 0, 256, 4352, "17.00"),
    ("lds_conflict_heavy_i32", 256, 7936, 128, 256, "2.00"),
];

fn totals(name: &str, width: u32, model: MemoryModel) -> Counters {
    let spec = registry::find(name).unwrap();
    let run = spec.run(42, &spec.config(width, model)).unwrap();
    assert!(run.passed(), "{name} wave{width}: {:?}", run.mismatch());
    run.stats.totals
}

#[test]
fn the_published_table_covers_every_kernel() {
    for (name, ..) in PUBLISHED {
        assert!(registry::find(name).is_some(), "{name}");
    }
}

#[test]
fn the_library_carries_the_same_published_figures() {
    // The report compares against `simt_kernels::reference`; it must be this table.
    assert_eq!(PUBLISHED.len(), simt_kernels::reference::TABLE.len());
    for ((name, lds_acc, lds_conflicts, glb_acc, glb_trans, _), p) in
        PUBLISHED.iter().zip(simt_kernels::reference::TABLE)
    {
        assert_eq!(
            (*name, *lds_acc, *lds_conflicts, *glb_acc, *glb_trans),
            (
                p.kernel,
                p.lds_accesses,
                p.lds_conflict_cycles,
                p.global_accesses,
                p.global_transactions
            )
        );
    }
    for (name, ..) in PUBLISHED {
        let p = simt_kernels::reference::find(name).unwrap();
        assert!(
            p.memory_matches(&totals(name, 64, MemoryModel::reference())),
            "{name}"
        );
    }
}

#[test]
fn memory_columns_match_the_reference_simulator_at_both_widths() {
    for (name, lds_acc, lds_conflicts, glb_acc, glb_trans, ratio) in PUBLISHED {
        for width in [32, 64] {
            let t = totals(name, width, MemoryModel::reference());
            let got = (
                t.lds_accesses,
                t.lds_conflict_cycles,
                t.global_accesses,
                t.global_transactions,
                format!("{:.2}", t.transactions_per_access()),
            );
            let want = (lds_acc, lds_conflicts, glb_acc, glb_trans, ratio.to_owned());
            assert_eq!(got, want, "{name} at wave{width}");
            // Under the reference model a sector is a whole line.
            assert_eq!(t.global_sectors, t.global_transactions, "{name}");
            assert_eq!(t.global_bytes_moved, 64 * t.global_transactions, "{name}");
        }
    }
}

#[test]
fn requested_bytes_follow_from_the_active_lanes() {
    // 4 bytes per active lane per access: every lane of every phase is active in
    // vecadd (3 x 4096 lanes); the reduction adds 16 single-lane stores.
    let t = totals("vecadd_f32", 32, MemoryModel::reference());
    assert_eq!(t.global_bytes_requested, 3 * 4096 * 4);
    let t = totals("reduce_f32", 64, MemoryModel::reference());
    assert_eq!(t.global_bytes_requested, (4096 + 16) * 4);
    // LDS: 4096 stores, then 2 loads and a store per active lane of the tree
    // (255 lanes per workgroup), and one load per workgroup.
    assert_eq!(t.lds_bytes_requested, (4096 + 16 * (3 * 255 + 1)) * 4);
}

#[test]
fn the_nvidia_model_counts_128_byte_lines_of_32_byte_sectors() {
    let m = MemoryModel::nvidia;
    // A coalesced 32-lane phase of words: 128 aligned bytes, one line, four sectors.
    let t = totals("vecadd_f32", 32, m());
    assert_eq!(
        (t.global_accesses, t.global_transactions, t.global_sectors),
        (384, 384, 1536)
    );
    // Strided loads: one word every 64 bytes, so 16 lines and 32 sectors per phase;
    // the coalesced stores add one line and four sectors per phase.
    let t = totals("copy_strided_f32", 64, m());
    assert_eq!(
        (t.global_accesses, t.global_transactions, t.global_sectors),
        (256, 128 * 16 + 128, 128 * 32 + 128 * 4)
    );
    // Naive matmul: a phase's A loads are one broadcast sector, its B loads one line.
    let t = totals("matmul_naive_f32", 32, m());
    assert_eq!(
        (t.global_transactions, t.global_sectors),
        (128 * 64 * 2 + 128, 128 * 64 * (1 + 4) + 128 * 4)
    );
    // LDS geometry is the same as the reference's.
    let t = totals("lds_conflict_heavy_i32", 32, m());
    assert_eq!((t.lds_accesses, t.lds_conflict_cycles), (256, 7936));
}
