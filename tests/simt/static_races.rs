//! Race verdicts of the static facts on the classic bugs: each gives a race
//! with a witness (two work-items, their ids, the two lines, the address), the
//! witness's launch makes the sanitizer report a race between the same two
//! lines, and the fixed kernel is proved free.

use simt::core::facts::{Pair, Verdict, Witness};
use simt::core::{facts, FindingKind, LaunchConfig, Program, Stats};
use simt::simt_kernel;

simt_kernel! {
    /// A tree step that reads past the half it wrote: work-items below 64 add
    /// the word 32 past their own, which work-items 32..64 overwrite in the
    /// same interval.
    kernel tree_past_half(input: &[u32], out: &mut [u32]) {
        lds sums: [u32; 128];
        vreg x, y, partner;
        mreg lower;
        global_load x, input[global_id.x]
        lds_store sums[local_id.x], x
        barrier
        v_cmp_lt_u32 lower, local_id.x, 64
        if lower
            v_add_u32 partner, local_id.x, 32
            lds_load  y, sums[partner]
            v_add_u32 x, x, y
            lds_store sums[local_id.x], x
        endif
        barrier
        global_store out[global_id.x], x
    }

    /// The same step reading the half it did not write.
    kernel tree_upper_half(input: &[u32], out: &mut [u32]) {
        lds sums: [u32; 128];
        vreg x, y, partner;
        mreg lower;
        global_load x, input[global_id.x]
        lds_store sums[local_id.x], x
        barrier
        v_cmp_lt_u32 lower, local_id.x, 64
        if lower
            v_add_u32 partner, local_id.x, 64
            lds_load  y, sums[partner]
            v_add_u32 x, x, y
            lds_store sums[local_id.x], x
        endif
        barrier
        global_store out[global_id.x], x
    }

    /// Work-items read the word work-item `127 - id` stored, in another wave,
    /// with no barrier between.
    kernel reverse_without_barrier(input: &[u32], out: &mut [u32]) {
        lds t: [u32; 128];
        vreg v, w, j;
        global_load v, input[global_id.x]
        lds_store t[local_id.x], v
        v_sub_u32 j, 127, local_id.x
        lds_load w, t[j]
        global_store out[global_id.x], w
    }

    /// The same with the barrier.
    kernel reverse_with_barrier(input: &[u32], out: &mut [u32]) {
        lds t: [u32; 128];
        vreg v, w, j;
        global_load v, input[global_id.x]
        lds_store t[local_id.x], v
        barrier
        v_sub_u32 j, 127, local_id.x
        lds_load w, t[j]
        global_store out[global_id.x], w
    }

    /// Every workgroup's first work-item stores its partial sum to one word.
    kernel partial_to_one_word(input: &[u32], partial: &mut [u32]) {
        vreg x;
        mreg first;
        global_load x, input[global_id.x]
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            global_store partial[0], x
        endif
    }

    /// Every work-item of a workgroup stores to the workgroup's word: two
    /// waves of one workgroup race on it.
    kernel partial_every_item(input: &[u32], partial: &mut [u32]) {
        vreg x;
        global_load x, input[global_id.x]
        global_store partial[group_id.x], x
    }

    /// Each workgroup's partial sum to its own word.
    kernel partial_per_group(input: &[u32], partial: &mut [u32]) {
        vreg x;
        mreg first;
        global_load x, input[global_id.x]
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            global_store partial[group_id.x], x
        endif
    }
}

/// The pairs of `program` that race, under workgroups of `size`.
fn races(program: &Program, size: u32) -> Vec<(Pair, Witness)> {
    facts(program, Some([size, 1, 1]))
        .pairs
        .into_iter()
        .filter_map(|p| match &p.verdict {
            Verdict::Race(w) => Some((p.clone(), w.clone())),
            _ => None,
        })
        .collect()
}

fn all_free(program: &Program, shape: Option<[u32; 3]>) -> bool {
    let f = facts(program, shape);
    !f.pairs.is_empty()
        && f.pairs
            .iter()
            .all(|p| matches!(p.verdict, Verdict::Free(_)))
}

/// The instruction pairs (lower index first) the sanitizer reported races between.
fn sanitizer_races(stats: &Stats) -> Vec<(u32, u32)> {
    stats
        .findings
        .list
        .iter()
        .filter(|f| matches!(f.kind, FindingKind::Race { .. }))
        .map(|f| {
            let other = f.other.map_or(f.at.inst, |o| o.inst);
            (f.at.inst.min(other), f.at.inst.max(other))
        })
        .collect()
}

fn line(program: &Program, inst: u32) -> u32 {
    program.loc(inst as usize).line
}

#[test]
fn a_tree_reading_past_its_half_races_and_the_sanitizer_agrees() {
    let program = &tree_past_half::PROGRAM;
    let found = races(program, 128);
    // The load of `sums[partner]` against the store of `sums[local_id.x]`: work-item
    // p (below 32) reads word p + 32, which work-item p + 32 stores; at wave32
    // they are in different waves.
    let (pair, w) = found
        .iter()
        .find(|(p, _)| p.a != p.b)
        .expect("a race between the load and the store");
    let load = program
        .insts
        .iter()
        .position(|i| matches!(i, simt::core::Inst::LdsLoad { .. }))
        .unwrap() as u32;
    assert!(pair.a == load || pair.b == load, "{pair:?}");
    let [p, q] = w.items;
    // One reads the word the other stores: 4 bytes per word.
    let (reader, writer) = if pair.a == load { (p, q) } else { (q, p) };
    assert_eq!(reader.local[0] + 32, writer.local[0], "{w:?}");
    assert_eq!(w.address, 4 * u64::from(writer.local[0]));
    assert_ne!(reader.local[0] / w.width, writer.local[0] / w.width);
    assert!(line(program, pair.a) != line(program, pair.b));

    let input = vec![1u32; 128];
    let mut out = vec![0u32; 128];
    let config = LaunchConfig::new(1, 128).wave_width(w.width).sanitize(true);
    let stats = tree_past_half::launch(&config, &input, &mut out).unwrap();
    assert!(
        sanitizer_races(&stats).contains(&(pair.a.min(pair.b), pair.a.max(pair.b))),
        "{:?}",
        stats.findings.list
    );

    assert!(all_free(&tree_upper_half::PROGRAM, Some([128, 1, 1])));
    assert!(
        all_free(&tree_upper_half::PROGRAM, None),
        "proved for any shape"
    );
    let stats = tree_upper_half::launch(&config, &input, &mut out).unwrap();
    assert!(sanitizer_races(&stats).is_empty());
}

#[test]
fn a_missing_barrier_between_waves_races_at_both_widths() {
    let program = &reverse_without_barrier::PROGRAM;
    let found = races(program, 128);
    let (pair, w) = found.first().expect("the store and the load race");
    // Work-item 127 - i reads what i stored: the witness's two ids sum to 127,
    // and they are in different waves.
    let [p, q] = w.items;
    assert_eq!(p.local[0] + q.local[0], 127, "{w:?}");
    assert_ne!(p.local[0] / w.width, q.local[0] / w.width);
    for width in [32, 64] {
        let input: Vec<u32> = (0..128).collect();
        let mut out = vec![0u32; 128];
        let config = LaunchConfig::new(1, 128).wave_width(width).sanitize(true);
        let stats = reverse_without_barrier::launch(&config, &input, &mut out).unwrap();
        assert!(
            sanitizer_races(&stats).contains(&(pair.a.min(pair.b), pair.a.max(pair.b))),
            "wave{width}: {:?}",
            stats.findings.list
        );
    }
    assert!(all_free(&reverse_with_barrier::PROGRAM, Some([128, 1, 1])));
}

#[test]
fn a_partial_sum_every_workgroup_stores_to_one_word_races() {
    let program = &partial_to_one_word::PROGRAM;
    let found = races(program, 64);
    let (pair, w) = found.first().expect("the store races with itself");
    assert_eq!(pair.a, pair.b);
    assert_eq!(w.address, 0);
    let [p, q] = w.items;
    assert_ne!(p.group, q.group);
    assert_eq!((p.local[0], q.local[0]), (0, 0));
    let input: Vec<u32> = (0..128).collect();
    let mut partial = vec![0u32; 2];
    let config = LaunchConfig::new(2, 64).sanitize(true);
    let stats = partial_to_one_word::launch(&config, &input, &mut partial).unwrap();
    assert!(sanitizer_races(&stats).contains(&(pair.a, pair.a)));

    assert!(all_free(&partial_per_group::PROGRAM, None));
    let stats = partial_per_group::launch(&config, &input, &mut partial).unwrap();
    assert!(sanitizer_races(&stats).is_empty());
}

#[test]
fn one_word_per_workgroup_stored_by_every_work_item_is_a_race() {
    let program = &partial_every_item::PROGRAM;
    for shape in [None, Some([64, 1, 1])] {
        let f = facts(program, shape);
        let store = f
            .pairs
            .iter()
            .find(|p| p.a == p.b)
            .expect("the store's pair");
        match (&store.verdict, shape) {
            (Verdict::Unknown, None) => {}
            // Within one workgroup: work-item 0 of wave 0 and work-item 32
            // of wave 1 store `partial[0]`.
            (Verdict::Race(w), Some(_)) => {
                assert_eq!(
                    (w.width, w.items[0].local[0], w.items[1].local[0]),
                    (32, 0, 32)
                );
                assert_eq!((w.items[0].group, w.items[1].group), ([0; 3], [0; 3]));
            }
            (v, _) => panic!("{v:?}"),
        }
    }
    let input: Vec<u32> = (0..128).collect();
    let mut partial = vec![0u32; 2];
    let config = LaunchConfig::new(2, 64).sanitize(true);
    let stats = partial_every_item::launch(&config, &input, &mut partial).unwrap();
    assert!(!sanitizer_races(&stats).is_empty());
}
