//! The studies of seeds 001 to 003: every variant matches its oracle, its counters
//! are pinned as reviewed snapshots (`tests/snapshots/study__<study>__<variant>__wave<width>.snap`),
//! and each seed's claim holds as a relation between the variants. Besides trusting
//! the study's own `holds`, each test re-derives its key relation from the counters.
//!
//! The `_with_l1` tests check the claims about the L1 and DRAM traffic, which need
//! the interpreter to fill the cache counters under a model with an L1.

use simt::core::Counters;
use simt_kernels::studies::{self, StudyResult, VariantRow};

fn run(name: &str, width: u32) -> StudyResult {
    let study = studies::find(name).unwrap_or_else(|| panic!("no study {name}"));
    (study.run)(42, width).unwrap_or_else(|e| panic!("{name} wave{width}: {e}"))
}

/// Runs `name` at `width`, checks every oracle and snapshots every variant.
fn run_checked(name: &str, width: u32) -> StudyResult {
    let result = run(name, width);
    assert_eq!(result.study, name);
    for v in &result.variants {
        assert!(
            v.oracle_ok,
            "{name} wave{width}: {} differs from its oracle",
            v.name
        );
        insta::with_settings!({ prepend_module_to_snapshot => false, snapshot_path => "../snapshots" }, {
            insta::assert_yaml_snapshot!(format!("study__{name}__{}__wave{width}", v.name), v);
        });
    }
    result
}

fn assert_all_hold(result: &StudyResult) {
    assert!(
        result.relations.iter().all(|r| r.holds),
        "a relation does not hold:\n{}",
        result.table()
    );
    assert!(result.passed);
}

fn variant<'a>(result: &'a StudyResult, name: &str) -> &'a VariantRow {
    result
        .variant(name)
        .unwrap_or_else(|| panic!("{}: no variant {name}", result.study))
}

fn region(result: &StudyResult, name: &str) -> Counters {
    variant(result, name)
        .region
        .expect("the variant has a region")
}

fn stats(result: &StudyResult, name: &str) -> Counters {
    variant(result, name).stats
}

#[test]
fn every_study_is_listed_once_and_found_by_name() {
    let names: Vec<_> = studies::STUDIES.iter().map(|s| s.name).collect();
    for (k, name) in names.iter().enumerate() {
        assert!(!names[..k].contains(name), "{name} twice");
        assert_eq!(studies::find(name).map(|s| s.name), Some(*name));
        let study = studies::find(name).unwrap();
        assert!(["001", "002", "003"].contains(&study.seed));
        assert!(!study.claim.is_empty());
    }
    assert!(studies::find("no_such_study").is_none());
}

#[test]
fn every_variant_reports_occupancy_on_every_hardware_preset() {
    let result = run("transpose", 32);
    for v in &result.variants {
        assert_eq!(v.occupancy.len(), simt::core::Hardware::PRESETS.len());
        assert!(v
            .occupancy
            .iter()
            .all(|(_, o)| (0.0..=1.0).contains(o) && *o > 0.0));
    }
    let table = result.table();
    assert!(table.contains("| relation | stated | measured | holds |"));
    assert!(table.contains("transpose_padded"));
}

// Seed 001: divergence.

#[test]
fn divergent_paths_issue_two_to_one() {
    for width in [32, 64] {
        let result = run_checked("divergent_paths", width);
        assert_all_hold(&result);
        let (lanes, warps) = (
            region(&result, "divergent_lanes"),
            region(&result, "divergent_warps"),
        );
        assert_eq!(lanes.instructions, 2 * warps.instructions);
        assert_eq!(
            stats(&result, "divergent_warps").divergent_vector_instructions,
            0
        );
    }
}

#[test]
fn switch32_issues_32_case_bodies() {
    for width in [32, 64] {
        let result = run_checked("switch32", width);
        assert_all_hold(&result);
        let (one, all) = (region(&result, "one_case"), region(&result, "lane_mod_32"));
        assert_eq!(all.instructions, 32 * one.instructions);
        assert_eq!(all.skipped_instructions, 0);
    }
}

#[test]
fn a_rare_branch_is_almost_free() {
    for width in [32, 64] {
        let result = run_checked("rare_branch", width);
        assert_all_hold(&result);
        let (never, rare) = (
            stats(&result, "no_lane"),
            stats(&result, "one_in_1000_waves"),
        );
        let body = region(&result, "one_in_1000_waves").instructions;
        assert_eq!(rare.instructions, never.instructions + body);
        assert_eq!(region(&result, "one_per_wave").instructions, 1000 * body);
    }
}

#[test]
fn mandelbrot_scattered_is_the_worst_mapping() {
    for width in [32, 64] {
        let result = run_checked("mandelbrot", width);
        assert_all_hold(&result);
        let lanes = |n| stats(&result, n).simd_efficiency();
        assert!(lanes("scattered") < lanes("coherent"));
        assert!(lanes("scattered") < lanes("tiled_8x4"));
    }
}

// Seed 001: coalescing.

#[test]
fn strided_reads_ask_4_8_16_32_32_32_sectors() {
    for width in [32, 64] {
        let result = run_checked("strided_read", width);
        assert_all_hold(&result);
        for (stride, sectors) in [(1, 4), (2, 8), (4, 16), (8, 32), (16, 32), (32, 32)] {
            let load = region(&result, &format!("stride{stride}"));
            assert_eq!(
                load.global_sectors,
                sectors * load.global_accesses,
                "stride {stride}"
            );
        }
    }
}

#[test]
fn eight_per_thread_requests_sectors_1_8_8() {
    for width in [32, 64] {
        let result = run_checked("eight_per_thread", width);
        let ws = region(&result, "warp_strided").global_sectors;
        assert_eq!(region(&result, "thread_contiguous").global_sectors, 8 * ws);
        assert_eq!(region(&result, "strided").global_sectors, 8 * ws);
        for r in result
            .relations
            .iter()
            .filter(|r| r.what.starts_with("requested"))
        {
            assert!(r.holds, "{}", result.table());
        }
    }
}

#[test]
fn eight_per_thread_dram_with_l1() {
    for width in [32, 64] {
        let result = run("eight_per_thread", width);
        assert_all_hold(&result);
        let ws = region(&result, "warp_strided").dram_sectors;
        assert!(ws > 0);
        assert_eq!(region(&result, "thread_contiguous").dram_sectors, ws);
        assert_eq!(region(&result, "strided").dram_sectors, 8 * ws);
    }
}

#[test]
fn packed_pixels_ask_three_times_the_sectors_of_planar() {
    for width in [32, 64] {
        let result = run_checked("grayscale", width);
        let (packed, planar) = (region(&result, "packed"), region(&result, "planar"));
        assert_eq!(packed.global_bytes_requested, planar.global_bytes_requested);
        assert_eq!(packed.global_sectors, 3 * planar.global_sectors);
        for r in result
            .relations
            .iter()
            .filter(|r| !r.what.contains("DRAM") && !r.what.contains("L1"))
        {
            assert!(r.holds, "{}", result.table());
        }
    }
}

#[test]
fn packed_and_planar_pixels_move_the_same_dram_sectors_with_l1() {
    for width in [32, 64] {
        let result = run("grayscale", width);
        assert_all_hold(&result);
        let (packed, planar) = (region(&result, "packed"), region(&result, "planar"));
        assert!(planar.dram_sectors > 0);
        assert_eq!(packed.dram_sectors, planar.dram_sectors);
    }
}

#[test]
fn gathered_rows_against_the_minimum() {
    for width in [32, 64] {
        let result = run_checked("embedding_bag", width);
        assert_all_hold(&result);
        let per_feature = region(&result, "lane_per_feature");
        assert_eq!(
            per_feature.global_sectors * 32,
            per_feature.global_bytes_requested
        );
        let per_bag = region(&result, "lane_per_bag");
        assert!(per_bag.global_sectors * 32 > 4 * per_bag.global_bytes_requested);
    }
}

// Seed 002.

#[test]
fn transpose_padding_removes_the_32_way_conflict() {
    for width in [32, 64] {
        let result = run_checked("transpose", width);
        assert_all_hold(&result);
        let (tiled, padded) = (
            region(&result, "transpose_lds"),
            region(&result, "transpose_padded"),
        );
        assert_eq!(tiled.lds_conflict_cycles, 31 * tiled.lds_accesses);
        assert_eq!(padded.lds_conflict_cycles, 0);
    }
}

#[test]
fn aos_reads_one_field_at_three_times_the_sectors() {
    for width in [32, 64] {
        let result = run_checked("aos_soa", width);
        assert_all_hold(&result);
        assert_eq!(
            region(&result, "aos").global_sectors,
            3 * region(&result, "soa").global_sectors
        );
    }
}

#[test]
fn a_misaligned_start_costs_one_more_line_per_request() {
    for width in [32, 64] {
        let result = run_checked("misaligned", width);
        assert_all_hold(&result);
        let (aligned, misaligned) = (region(&result, "aligned"), region(&result, "misaligned"));
        assert_eq!(
            misaligned.global_transactions,
            aligned.global_transactions + aligned.global_accesses
        );
    }
}

#[test]
fn one_atomic_per_workgroup_removes_the_contention() {
    for width in [32, 64] {
        let result = run_checked("atomics", width);
        assert_all_hold(&result);
        let (item, group) = (
            stats(&result, "every_item"),
            stats(&result, "per_workgroup"),
        );
        assert_eq!(item.atomic_contention, 31 * item.atomic_accesses);
        assert_eq!(group.atomic_contention, 0);
        assert!(item.atomic_accesses > group.atomic_accesses);
    }
}

#[test]
fn the_reduction_ladder_trades_divergence_for_conflicts_then_neither() {
    for width in [32, 64] {
        let result = run_checked("reduction_ladder", width);
        assert_all_hold(&result);
        let (modulo, strided, sequential) = (
            stats(&result, "interleaved_modulo"),
            stats(&result, "interleaved_strided"),
            stats(&result, "sequential"),
        );
        assert!(modulo.divergent_vector_instructions > strided.divergent_vector_instructions);
        assert!(strided.lds_conflict_cycles > 0);
        assert_eq!(sequential.lds_conflict_cycles, 0);
    }
}

#[test]
fn a_wave_tree_takes_one_more_step_at_wave64() {
    let [narrow, wide] = [32, 64].map(|width| {
        let result = run_checked("wave_tree", width);
        assert_all_hold(&result);
        result
    });
    for (result, steps) in [(&narrow, 5), (&wide, 6)] {
        let tree = region(result, "shuffle_tree");
        let waves = u64::from(simt_kernels::studies::reduction::ITEMS / result.width);
        // Each step issues a shuffle and an add per wave.
        assert_eq!(tree.vector_instructions, 2 * steps * waves);
    }
}

// Seed 003.

#[test]
fn kway_issues_grow_as_k_and_lanes_fall_as_width_over_k() {
    for width in [32, 64] {
        let result = run_checked("kway", width);
        assert_all_hold(&result);
        let one = region(&result, "k1");
        for k in [1u64, 2, 4, 8, 16, 32] {
            let r = region(&result, &format!("k{k}"));
            assert_eq!(r.instructions, k * one.instructions);
            assert_eq!(r.active_lanes * k, r.vector_instructions * u64::from(width));
        }
    }
}

#[test]
fn predication_halves_the_issues_and_removes_divergence() {
    for width in [32, 64] {
        let result = run_checked("predication", width);
        assert_all_hold(&result);
        let (branch, predicated) = (region(&result, "branch"), region(&result, "predicated"));
        // The region runs from after the condition's compare to the store, per
        // wave (WORK = 64 trips of fma, s_add, s_cmp, endloop: 256 issues):
        // branch: if, 2 v_mov, s_mov, loop, 256, else, 2 v_mov, s_mov, loop,
        // 256, endif = 523; predicated: v_select, v_select, s_mov, loop, 256 =
        // 260. 8 workgroups of 256 are 2048 / width waves: a ratio of 523/260,
        // 2.01.
        assert_eq!(simt_kernels::studies::branch::WORK, 64);
        let waves = 2048 / u64::from(width);
        assert_eq!(branch.instructions, 523 * waves, "wave{width}");
        assert_eq!(predicated.instructions, 260 * waves, "wave{width}");
        assert_eq!(
            stats(&result, "predicated").divergent_vector_instructions,
            0
        );
    }
}

#[test]
fn the_32_way_penalty_does_not_change_with_occupancy() {
    for width in [32, 64] {
        let result = run_checked("occupancy_invariance", width);
        assert_all_hold(&result);
        for per_unit in [1, 2, 4, 8] {
            let one = region(&result, &format!("k1_{per_unit}_per_unit"));
            let split = region(&result, &format!("k32_{per_unit}_per_unit"));
            assert_eq!(split.instructions, 32 * one.instructions);
        }
    }
}

// The seeds' claims about time, under the timing model.

/// The timing model's cycles of variant `name`.
/// A variant's waves' time, without the launch's fixed cost (as the
/// studies' relations take it).
fn cycles(result: &StudyResult, name: &str) -> f64 {
    let t = variant(result, name)
        .timing
        .as_ref()
        .expect("a time study's variants are timed");
    t.cycles - t.launch_cycles
}

#[test]
fn the_seeds_time_claims_hold_at_both_widths() {
    for name in [
        "warp_split_time",
        "predication_time",
        "l1_trio_time",
        "saxpy_time",
        "occupancy_hiding",
        "conflict_time",
        "atomics_time",
    ] {
        for width in [32, 64] {
            assert_all_hold(&run_checked(name, width));
        }
    }
}

#[test]
fn kway_time_is_a_line_with_a_32_way_penalty_of_28_to_33() {
    for width in [32, 64] {
        let result = run_checked("kway_time", width);
        assert_all_hold(&result);
        // The line through T(k), fitted here by least squares.
        let points: Vec<(f64, f64)> = [1u32, 2, 4, 8, 16, 32]
            .iter()
            .map(|&k| (f64::from(k), cycles(&result, &format!("k{k}"))))
            .collect();
        let n = points.len() as f64;
        let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
        let my = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
        assert!(sxy * sxy / (sxx * syy) >= 0.99, "wave{width}");
        let penalty = cycles(&result, "k32") / cycles(&result, "k1");
        assert!((28.0..=33.0).contains(&penalty), "wave{width}: {penalty}");
    }
}

#[test]
fn the_32_way_penalty_in_time_holds_from_one_wave_per_scheduler_to_the_most() {
    for width in [32, 64] {
        let result = run_checked("occupancy_time", width);
        assert_all_hold(&result);
        for n in [1, 2, 4, 8, 16] {
            let one = cycles(&result, &format!("k1_{n}_per_scheduler"));
            let split = cycles(&result, &format!("k32_{n}_per_scheduler"));
            assert!(
                (28.0..=33.0).contains(&(split / one)),
                "wave{width}, {n}: {}",
                split / one
            );
        }
    }
}

#[test]
fn a_warp_split_branch_takes_half_the_time_of_a_lane_split_one() {
    let result = run("warp_split_time", 32);
    let ratio = cycles(&result, "split_by_warps") / cycles(&result, "split_in_warps");
    assert!((0.45..=0.55).contains(&ratio), "{ratio}");
    let issues = stats(&result, "split_by_warps").instructions as f64
        / stats(&result, "split_in_warps").instructions as f64;
    assert!((issues - 0.5).abs() < 0.01, "{issues}");
}

// The sanitizers.

/// Every variant of every study runs with the sanitizers on, at both widths: none
/// races, reads a register or an LDS word it never wrote, or has two lanes of one
/// store disagree.
#[test]
fn the_sanitizers_find_nothing_in_the_studies() {
    for study in studies::STUDIES {
        for width in [32, 64] {
            let result = run(study.name, width);
            for v in &result.variants {
                assert!(
                    v.findings.is_empty(),
                    "{} wave{width} {}: {:#?}",
                    study.name,
                    v.name,
                    v.findings
                );
            }
            assert!(!result.table().contains("findings"), "{}", study.name);
        }
    }
}
