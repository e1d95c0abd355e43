//! A declared workgroup shape (`#[workgroup_size(..)]`) is static data of the
//! kernel and every launch is checked against it; without one, the races the
//! facts prove for a launch's own shape are reported before it runs, as
//! findings of their own kind, even where its inputs never reach them.
use simt::core::{
    Error, FindingKind, Inst, LaunchConfig, LaunchErrorKind, Program, RaceFree, Scope, Space,
};
use simt::simt_kernel;

simt_kernel! {
    /// One row of 64 work-items.
    #[workgroup_size(64)]
    kernel row(out: &mut [u32]) {
        global_store out[global_id.x], local_id.x
    }

    /// A 16 x 16 tile.
    #[workgroup_size(16, 16)]
    kernel tile(out: &mut [u32]) {
        vreg i;
        v_mad_u32 i, local_id.y, 16, local_id.x
        global_store out[i], local_id.y
    }

    #[workgroup_size(4, 2, 8)]
    kernel cube(out: &mut [u32]) {
        vreg i;
        v_mad_u32 i, local_id.z, 2, local_id.y
        v_mad_u32 i, i, 4, local_id.x
        global_store out[i], local_id.z
    }

    /// Work-item `i` stores its id to `t[i]`, then, when `reverse` is not
    /// zero, reads `t[group_size.x - 1 - i]` with no barrier between: a
    /// word another wave wrote once the workgroup has two waves.
    kernel exchange(reverse: u32, out: &mut [u32]) {
        lds t: [u32; 1024];
        vreg v, j;
        mreg on;
        lds_store t[local_id.x], local_id.x
        v_cmp_ne_u32 on, reverse, 0
        if on
            v_sub_u32 j, group_size.x, local_id.x
            v_sub_u32 j, j, 1
            lds_load v, t[j]
            global_store out[global_id.x], v
        endif
    }
}

simt_kernel! {
    /// Proved race-free for one-dimensional grids: each work-item stores its
    /// own element of a row of workgroups along x.
    #[workgroup_size(64)]
    #[race_free]
    kernel row_free(out: &mut [u32]) {
        global_store out[global_id.x], local_id.x
    }
}

/// `#[race_free]` was proved for one-dimensional grids: a launch with
/// workgroups along y would have two workgroups store every element
/// (groups [0, 0, 0] and [0, 1, 0] both store `out[0..64]`), so it is
/// refused before it runs, and a grid along x alone runs.
#[test]
fn a_race_free_kernel_refuses_a_grid_its_proof_does_not_cover() {
    assert_eq!(row_free::PROGRAM.race_free, Some(RaceFree::AnyLaneOrder));
    let mut out = vec![7u32; 256];
    let two_d = LaunchConfig::new([2u32, 2, 1], 64);
    match row_free::launch(&two_d, &mut out) {
        Err(Error::Launch(e)) => {
            assert!(
                matches!(
                    &e.kind,
                    LaunchErrorKind::RaceFreeAssumption {
                        grid: [2, 2, 1],
                        shape: [64, 1, 1],
                        ..
                    }
                ),
                "{e:?}"
            );
            assert!(
                e.to_string().contains("proved for one-dimensional grids"),
                "{e}"
            );
        }
        other => panic!("expected a refused launch, got {other:?}"),
    }
    assert!(out.iter().all(|&v| v == 7), "nothing ran");
    let stats = row_free::launch(&LaunchConfig::new(4u32, 64), &mut out).expect("runs");
    assert_eq!(
        stats.totals.instructions,
        4 * 2 * 2,
        "4 workgroups of 2 waves, a store and `end` each"
    );
    assert_eq!(out[0..64], (0..64).collect::<Vec<u32>>()[..]);
}

simt_kernel! {
    /// A workgroup stores `t[i]` or loads `t[63 - i]`, as `store` says, never
    /// both: the two arms of one workgroup-uniform `if` do not race.
    kernel either(store: u32, out: &mut [u32]) {
        lds t: [u32; 64];
        vreg v, j;
        mreg on;
        v_cmp_ne_u32 on, store, 0
        if on
            lds_store t[local_id.x], local_id.x
        else
            v_sub_u32 j, 63, local_id.x
            lds_load v, t[j]
            global_store out[global_id.x], v
        endif
    }
}

fn refused(result: Result<simt::core::Stats, Error>) -> LaunchErrorKind {
    match result {
        Err(Error::Launch(e)) => e.kind,
        other => panic!("expected a launch error, got {other:?}"),
    }
}

#[test]
fn the_declared_shape_is_static_data_of_the_kernel() {
    assert_eq!(row::PROGRAM.workgroup_size, Some([64, 1, 1]));
    assert_eq!(tile::PROGRAM.workgroup_size, Some([16, 16, 1]));
    assert_eq!(cube::PROGRAM.workgroup_size, Some([4, 2, 8]));
    assert_eq!(exchange::PROGRAM.workgroup_size, None);
}

#[test]
fn a_launch_of_another_shape_is_refused_before_it_runs() {
    let mut out = vec![7u32; 128];
    let kind = refused(row::launch(&LaunchConfig::new(2, 32), &mut out));
    assert_eq!(
        kind,
        LaunchErrorKind::WorkgroupShape {
            declared: [64, 1, 1],
            launched: [32, 1, 1]
        }
    );
    assert!(out.iter().all(|&v| v == 7), "nothing ran");
    assert!(kind.to_string().contains("#[workgroup_size(64, 1, 1)]"));
    let kind = refused(tile::launch(&LaunchConfig::new(1, [16, 8]), &mut out));
    assert_eq!(
        kind,
        LaunchErrorKind::WorkgroupShape {
            declared: [16, 16, 1],
            launched: [16, 8, 1]
        }
    );
    // The declared shapes run.
    row::launch(&LaunchConfig::new(2, 64), &mut out).expect("the declared shape");
    assert_eq!(out[64..128], (0..64).collect::<Vec<u32>>()[..]);
    let mut out = vec![0u32; 256];
    tile::launch(&LaunchConfig::new(1, [16, 16]), &mut out).expect("the declared shape");
    // Element 16·y + x holds y.
    assert!(out.iter().enumerate().all(|(n, &v)| v as usize == n / 16));
}

/// The instruction index of the first instruction `pick` accepts.
fn index(program: &Program, pick: impl Fn(&Inst) -> bool) -> u32 {
    program.insts.iter().position(pick).expect("in the program") as u32
}

#[test]
fn a_race_certain_for_the_launch_shape_is_found_though_the_inputs_skip_it() {
    let store = index(&exchange::PROGRAM, |i| matches!(i, Inst::LdsStore { .. }));
    let load = index(&exchange::PROGRAM, |i| matches!(i, Inst::LdsLoad { .. }));
    let mut out = vec![0u32; 64];
    // 64 work-items at wave32 are two waves; `reverse` = 0 skips the load,
    // so the run itself shows nothing.
    let config = LaunchConfig::new(1, 64).sanitize(true);
    let stats = exchange::launch(&config, 0, &mut out).unwrap();
    let [f] = &stats.findings.list[..] else {
        panic!("one finding: {:#?}", stats.findings);
    };
    assert_eq!(
        f.kind,
        FindingKind::ProvedRace {
            space: Space::Lds,
            scope: Scope::Waves
        }
    );
    // Work-item 0 (wave 0, lane 0) stores t[0]; work-item 63 (wave 1, lane
    // 31) loads t[64 - 1 - 63] = t[0], byte 0.
    let other = f.other.expect("the store");
    assert_eq!((other.inst, other.wave, other.lane), (store, 0, 0));
    assert_eq!((f.at.inst, f.at.wave, f.at.lane), (load, 1, 31));
    assert_eq!(f.address, Some(0));
    assert!(f.to_string().contains("proved for this launch's shape"));

    // Inputs that reach it: the sanitizer's own finding joins the proved one.
    let stats = exchange::launch(&config, 1, &mut out).unwrap();
    let kinds: Vec<bool> = stats
        .findings
        .list
        .iter()
        .map(|f| matches!(f.kind, FindingKind::ProvedRace { .. }))
        .collect();
    assert_eq!(kinds.first(), Some(&true), "{:#?}", stats.findings);
    assert!(stats
        .findings
        .list
        .iter()
        .any(|f| matches!(f.kind, FindingKind::Race { .. })));
}

#[test]
fn a_shape_of_one_wave_proves_no_race() {
    // 32 work-items are one wave at either width: ordered by issue.
    let mut out = vec![0u32; 32];
    for width in [32, 64] {
        let config = LaunchConfig::new(1, 32).wave_width(width).sanitize(true);
        let stats = exchange::launch(&config, 1, &mut out).unwrap();
        stats.findings.assert_none();
        assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
    }
    // At wave64, 64 work-items are one wave too.
    let mut out = vec![0u32; 64];
    let config = LaunchConfig::new(1, 64).wave_width(64).sanitize(true);
    let stats = exchange::launch(&config, 0, &mut out).unwrap();
    assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
}

#[test]
fn proved_races_are_sanitizer_findings_off_unless_asked_for() {
    let mut out = vec![0u32; 64];
    let stats = exchange::launch(&LaunchConfig::new(1, 64), 0, &mut out).unwrap();
    assert!(stats.findings.is_empty());
}

#[test]
fn two_arms_of_a_workgroup_uniform_if_are_never_a_proved_race() {
    let mut out = vec![0u32; 64];
    let config = LaunchConfig::new(1, 64).sanitize(true);
    for store in [0, 1] {
        let stats = either::launch(&config, store, &mut out).unwrap();
        assert!(
            !stats
                .findings
                .list
                .iter()
                .any(|f| matches!(f.kind, FindingKind::ProvedRace { .. })),
            "{:#?}",
            stats.findings
        );
    }
}
