//! Each kernel's statistics per wave width, in the compact form of
//! `Stats::snapshot` (totals and per-line counters with the instruction text), as
//! reviewed insta snapshots (`tests/snapshots/stats__<kernel>__wave<width>.snap`). The instruction and
//! divergence figures depend on how each kernel is written, so they are pinned
//! here rather than against the reference simulator; review changes with
//! `cargo insta review`.

use simt::core::MemoryModel;
use simt_kernels::registry;

fn check(name: &str) {
    let spec = registry::find(name).unwrap();
    for width in [32, 64] {
        let run = spec
            .run(42, &spec.config(width, MemoryModel::reference()))
            .unwrap();
        assert!(run.passed(), "{name} wave{width}: {:?}", run.mismatch());
        insta::with_settings!({ prepend_module_to_snapshot => false, snapshot_path => "../snapshots" }, {
            insta::assert_yaml_snapshot!(
                format!("stats__{name}__wave{width}"),
                run.stats.snapshot(spec.program)
            );
        });
    }
}

macro_rules! snapshot_tests {
    ($($name:ident)*) => {$(
        #[test]
        fn $name() {
            check(stringify!($name));
        }
    )*};
}

snapshot_tests! {
    vecadd_i32 vecadd_f32 saxpy_f32 divergent_collatz_i32 reduce_i32 reduce_f32
    matmul_naive_f32 matmul_tiled_f32 copy_coalesced_f32 copy_strided_f32
    lds_conflict_heavy_i32
}

#[test]
fn every_kernel_has_a_snapshot_test() {
    let tested = [
        "vecadd_i32",
        "vecadd_f32",
        "saxpy_f32",
        "divergent_collatz_i32",
        "reduce_i32",
        "reduce_f32",
        "matmul_naive_f32",
        "matmul_tiled_f32",
        "copy_coalesced_f32",
        "copy_strided_f32",
        "lds_conflict_heavy_i32",
    ];
    assert_eq!(registry::names().collect::<Vec<_>>(), tested);
}
