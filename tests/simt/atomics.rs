//! Every global and LDS atomic mnemonic, at wave32 and wave64 with lanes masked
//! off, against a host model that applies the updates one lane at a time in lane
//! order: each lane's old value, the final words, and the contention counter on
//! words hit by different numbers of lanes, under the reference and cdna3 models.

use simt::core::{Error, LaunchConfig, MemoryModel, Stats};
use simt::simt_kernel;

/// What inactive lanes' `old` registers hold.
const UNTOUCHED: u32 = 0xdead;
const GROUPS: u32 = 2;
const SIZE: u32 = 128;
const ITEMS: usize = (GROUPS * SIZE) as usize;
/// Words per atomic target (global) or per workgroup (LDS).
const WORDS: usize = 16;

/// Declares one kernel per global atomic; `$inst` reads `t` (the word), `x`
/// (the value) and `c` (the compared value) and writes the old word to `o`.
/// Lanes whose `lane_id % 8 == 7` are masked off.
macro_rules! global_atomics {
    ($($name:ident: [$($inst:tt)*])*) => {
        simt_kernel! {$(
            kernel $name(targets: &[u32], src: &[u32], cmp: &[u32], words: &mut [u32], old: &mut [u32]) {
                vreg i, t, x, c, o, k;
                mreg on;
                v_mov i, global_id
                global_load t, targets[lane_id]
                global_load x, src[i]
                global_load c, cmp[i]
                v_mov o, 0xdead
                v_and k, lane_id, 7
                v_cmp_ne_u32 on, k, 7
                if on
                    $($inst)*
                endif
                global_store old[i], o
            }
        )*}
    };
}

/// As [`global_atomics`], on an LDS array each workgroup starts from `init`
/// and copies to `words[16 * group_id ..]` at the end.
macro_rules! lds_atomics {
    ($($name:ident: [$($inst:tt)*])*) => {
        simt_kernel! {$(
            kernel $name(targets: &[u32], src: &[u32], cmp: &[u32], init: &[u32], words: &mut [u32], old: &mut [u32]) {
                lds cell: [u32; 16];
                vreg i, t, x, c, o, k, w;
                mreg on, low;
                v_mov i, global_id
                v_cmp_lt_u32 low, local_id, 16
                if low
                    global_load w, init[local_id]
                    lds_store cell[local_id], w
                endif
                barrier
                global_load t, targets[lane_id]
                global_load x, src[i]
                global_load c, cmp[i]
                v_mov o, 0xdead
                v_and k, lane_id, 7
                v_cmp_ne_u32 on, k, 7
                if on
                    $($inst)*
                endif
                global_store old[i], o
                barrier
                if low
                    lds_load w, cell[local_id]
                    v_mad_u32 k, group_id, 16, local_id
                    global_store words[k], w
                endif
            }
        )*}
    };
}

global_atomics! {
    g_add_u32: [global_atomic_add_u32 o, words[t], x]
    g_add_i32: [global_atomic_add_i32 o, words[t], x]
    g_sub_u32: [global_atomic_sub_u32 o, words[t], x]
    g_sub_i32: [global_atomic_sub_i32 o, words[t], x]
    g_min_u32: [global_atomic_min_u32 o, words[t], x]
    g_min_i32: [global_atomic_min_i32 o, words[t], x]
    g_max_u32: [global_atomic_max_u32 o, words[t], x]
    g_max_i32: [global_atomic_max_i32 o, words[t], x]
    g_and: [global_atomic_and o, words[t], x]
    g_or: [global_atomic_or o, words[t], x]
    g_xor: [global_atomic_xor o, words[t], x]
    g_xchg: [global_atomic_xchg o, words[t], x]
    g_cmpswap: [global_atomic_cmpswap o, words[t], c, x]
}

lds_atomics! {
    l_add_u32: [lds_atomic_add_u32 o, cell[t], x]
    l_add_i32: [lds_atomic_add_i32 o, cell[t], x]
    l_sub_u32: [lds_atomic_sub_u32 o, cell[t], x]
    l_sub_i32: [lds_atomic_sub_i32 o, cell[t], x]
    l_min_u32: [lds_atomic_min_u32 o, cell[t], x]
    l_min_i32: [lds_atomic_min_i32 o, cell[t], x]
    l_max_u32: [lds_atomic_max_u32 o, cell[t], x]
    l_max_i32: [lds_atomic_max_i32 o, cell[t], x]
    l_and: [lds_atomic_and o, cell[t], x]
    l_or: [lds_atomic_or o, cell[t], x]
    l_xor: [lds_atomic_xor o, cell[t], x]
    l_xchg: [lds_atomic_xchg o, cell[t], x]
    l_cmpswap: [lds_atomic_cmpswap o, cell[t], c, x]
}

simt_kernel! {
    /// `global_atomic_add_f32` on the same lanes and words.
    kernel g_add_f32(targets: &[u32], src: &[f32], words: &mut [f32], old: &mut [f32]) {
        vreg i, t, x, o, k;
        mreg on;
        v_mov i, global_id
        global_load t, targets[lane_id]
        global_load x, src[i]
        v_mov o, 0xdead
        v_and k, lane_id, 7
        v_cmp_ne_u32 on, k, 7
        if on
            global_atomic_add_f32 o, words[t], x
        endif
        global_store old[i], o
    }

    /// `lds_atomic_add_f32` on the same lanes and words.
    kernel l_add_f32(targets: &[u32], src: &[f32], init: &[f32], words: &mut [f32], old: &mut [f32]) {
        lds cell: [f32; 16];
        vreg i, t, x, o, k, w;
        mreg on, low;
        v_mov i, global_id
        v_cmp_lt_u32 low, local_id, 16
        if low
            global_load w, init[local_id]
            lds_store cell[local_id], w
        endif
        barrier
        global_load t, targets[lane_id]
        global_load x, src[i]
        v_mov o, 0xdead
        v_and k, lane_id, 7
        v_cmp_ne_u32 on, k, 7
        if on
            lds_atomic_add_f32 o, cell[t], x
        endif
        global_store old[i], o
        barrier
        if low
            lds_load w, cell[local_id]
            v_mad_u32 k, group_id, 16, local_id
            global_store words[k], w
        endif
    }
}

/// The word lane `l` aims at: word `k` takes `k + 1` consecutive lanes, so the
/// words are hit by different numbers of lanes: 0 | 1-2 | 3-5 | 6-9 | 10-14 |
/// 15-20 | 21-27 | 28-35 | 36-44 | 45-54 | 55-63.
fn target(l: usize) -> u32 {
    let (mut k, mut start) = (0, 0);
    while start + k < l {
        start += k + 1;
        k += 1;
    }
    k as u32
}

fn active(g: usize) -> bool {
    g % 8 != 7
}

fn targets() -> Vec<u32> {
    (0..64).map(target).collect()
}

/// Values with the sign bit both set and clear, so that signed and unsigned
/// minimum and maximum disagree.
fn src() -> Vec<u32> {
    (0..ITEMS as u32)
        .map(|g| g.wrapping_mul(2_654_435_761).rotate_left(g % 13) ^ 0x5a5a)
        .collect()
}

fn init() -> Vec<u32> {
    (0..WORDS as u32)
        .map(|k| k.wrapping_mul(0x9e37_79b9) | (k % 2) << 31)
        .collect()
}

/// Compare values that make a compare-and-swap succeed for two lanes in three
/// and fail for the third: the word the lane will find, or that word plus one.
fn cmp_values(src: &[u32], width: usize, per_group: bool) -> Vec<u32> {
    let mut cmp = vec![0u32; ITEMS];
    simulate(
        |old, x, c| if old == c { x } else { old },
        &init(),
        src,
        &mut |g, word| {
            cmp[g] = if g.is_multiple_of(3) {
                word.wrapping_add(1)
            } else {
                word
            };
            cmp[g]
        },
        width,
        per_group,
    );
    cmp
}

/// Applies `op(old, x, c)` lane by lane in launch order (workgroups, then
/// waves, then lanes: one thread runs global atomics in that order) to words
/// starting at `start`, restarted per workgroup for LDS; `c` is `cmp(item,
/// the word it finds)`. Returns each item's old value ([`UNTOUCHED`] where
/// masked off) and the final words (per workgroup for LDS).
fn simulate(
    op: impl Fn(u32, u32, u32) -> u32,
    start: &[u32],
    src: &[u32],
    cmp: &mut dyn FnMut(usize, u32) -> u32,
    width: usize,
    per_group: bool,
) -> (Vec<u32>, Vec<u32>) {
    let mut old = vec![UNTOUCHED; ITEMS];
    let mut out = Vec::new();
    let mut words = start.to_vec();
    for g in 0..ITEMS {
        if per_group && g > 0 && g % SIZE as usize == 0 {
            out.extend(&words);
            words = start.to_vec();
        }
        if !active(g) {
            continue;
        }
        let t = target(g % width) as usize;
        old[g] = words[t];
        words[t] = op(words[t], src[g], cmp(g, words[t]));
    }
    out.extend(&words);
    (old, out)
}

type GlobalLaunch =
    fn(&LaunchConfig, &[u32], &[u32], &[u32], &mut [u32], &mut [u32]) -> Result<Stats, Error>;
type LdsLaunch = fn(
    &LaunchConfig,
    &[u32],
    &[u32],
    &[u32],
    &[u32],
    &mut [u32],
    &mut [u32],
) -> Result<Stats, Error>;
type Op = fn(u32, u32, u32) -> u32;

fn min_i32(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}
fn max_i32(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

/// Each mnemonic's kernels and its documented update `word = op(word, x, cmp)`.
fn cases() -> Vec<(&'static str, GlobalLaunch, LdsLaunch, Op)> {
    vec![
        (
            "add_u32",
            g_add_u32::launch,
            l_add_u32::launch,
            |w, x, _| w.wrapping_add(x),
        ),
        (
            "add_i32",
            g_add_i32::launch,
            l_add_i32::launch,
            |w, x, _| w.wrapping_add(x),
        ),
        (
            "sub_u32",
            g_sub_u32::launch,
            l_sub_u32::launch,
            |w, x, _| w.wrapping_sub(x),
        ),
        (
            "sub_i32",
            g_sub_i32::launch,
            l_sub_i32::launch,
            |w, x, _| w.wrapping_sub(x),
        ),
        (
            "min_u32",
            g_min_u32::launch,
            l_min_u32::launch,
            |w, x, _| w.min(x),
        ),
        (
            "min_i32",
            g_min_i32::launch,
            l_min_i32::launch,
            |w, x, _| min_i32(w, x),
        ),
        (
            "max_u32",
            g_max_u32::launch,
            l_max_u32::launch,
            |w, x, _| w.max(x),
        ),
        (
            "max_i32",
            g_max_i32::launch,
            l_max_i32::launch,
            |w, x, _| max_i32(w, x),
        ),
        ("and", g_and::launch, l_and::launch, |w, x, _| w & x),
        ("or", g_or::launch, l_or::launch, |w, x, _| w | x),
        ("xor", g_xor::launch, l_xor::launch, |w, x, _| w ^ x),
        ("xchg", g_xchg::launch, l_xchg::launch, |_, x, _| x),
        (
            "cmpswap",
            g_cmpswap::launch,
            l_cmpswap::launch,
            |w, x, c| {
                if w == c {
                    x
                } else {
                    w
                }
            },
        ),
    ]
}

/// The atomic phases and contention of one atomic instruction over the launch
/// (256 items, lanes with `lane_id % 8 == 7` off), counted from [`target`]:
///
/// - lanes 0-31 (a wave32, or the first half of a wave64): word 6 has lanes
///   21-27 less lane 23, 6 lanes; word 5 has 15-20 less 15, 5; word 4 has
///   10-14, 5; the rest fewer. Contention 6 - 1 = 5.
/// - lanes 32-63: word 7 has 32-35, 4; word 8 has 36-44 less 39, 8; word 9
///   has 45-54 less 47, 9; word 10 has 55-63 less 55 and 63, 7. Contention
///   9 - 1 = 8.
/// - all 64 lanes in one phase: word 7 has 28-35 less 31, 7; word 9 still
///   has the most, 9. Contention 8.
///
/// Reference model (32-lane phases): 256 / 32 = 8 phases at either width;
/// wave32: 8 waves x 5 = 40; wave64: 4 waves x (5 + 8) = 52. "Active lanes
/// minus one" would give 8 x 27 = 216 (28 active of 32 per phase), "distinct
/// words minus one" 8 x 7 at wave32.
/// cdna3 (64-lane phases): wave32: 8 phases of lanes 0-31, 8 x 5 = 40;
/// wave64: 4 phases of all 64 lanes, 4 x 8 = 32.
fn expected_atomic_counts(model: &str, width: u32) -> (u64, u64) {
    match (model, width) {
        ("reference", 32) => (8, 40),
        ("reference", 64) => (8, 52),
        ("cdna3", 32) => (8, 40),
        ("cdna3", 64) => (4, 32),
        _ => unreachable!(),
    }
}

fn models() -> [MemoryModel; 2] {
    [MemoryModel::reference(), MemoryModel::cdna3()]
}

#[test]
fn the_targets_hit_words_by_different_numbers_of_lanes() {
    // Guards the hand counts above.
    let t = targets();
    assert_eq!(&t[..10], &[0, 1, 1, 2, 2, 2, 3, 3, 3, 3]);
    assert_eq!(
        (t[20], t[21], t[27], t[28], t[35], t[36]),
        (5, 6, 6, 7, 7, 8)
    );
    assert_eq!((t[44], t[45], t[54], t[55], t[63]), (8, 9, 9, 10, 10));
}

#[test]
fn global_atomics_apply_in_lane_order() {
    let (targets, src) = (targets(), src());
    for (name, global, _, op) in cases() {
        for width in [32u32, 64] {
            let cmp = cmp_values(&src, width as usize, false);
            let (want_old, want_words) =
                simulate(op, &init(), &src, &mut |g, _| cmp[g], width as usize, false);
            if name == "cmpswap" {
                // Two in three active items swap (old == cmp), the third fails.
                let act: Vec<usize> = (0..ITEMS).filter(|&g| active(g)).collect();
                let swapped = act.iter().filter(|&&g| want_old[g] == cmp[g]).count();
                assert_eq!(
                    swapped,
                    act.iter().filter(|&&g| !g.is_multiple_of(3)).count()
                );
            }
            for model in models() {
                let model_name = model.name.to_string();
                let mut words = init();
                let mut old = vec![0u32; ITEMS];
                let config = LaunchConfig::new(GROUPS, SIZE)
                    .wave_width(width)
                    .model(model);
                let stats = global(&config, &targets, &src, &cmp, &mut words, &mut old).unwrap();
                let what = format!("global {name} wave{width} {model_name}");
                assert_eq!(old, want_old, "{what}: old values");
                assert_eq!(words, want_words, "{what}: words");
                let t = &stats.totals;
                assert_eq!(
                    (t.atomic_accesses, t.atomic_contention),
                    expected_atomic_counts(&model_name, width),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn lds_atomics_apply_in_lane_order() {
    let (targets, src, init) = (targets(), src(), init());
    for (name, _, lds, op) in cases() {
        for width in [32u32, 64] {
            let cmp = cmp_values(&src, width as usize, true);
            let (want_old, want_words) =
                simulate(op, &init, &src, &mut |g, _| cmp[g], width as usize, true);
            for model in models() {
                let model_name = model.name.to_string();
                let mut words = vec![0u32; WORDS * GROUPS as usize];
                let mut old = vec![0u32; ITEMS];
                let config = LaunchConfig::new(GROUPS, SIZE)
                    .wave_width(width)
                    .model(model);
                let stats =
                    lds(&config, &targets, &src, &cmp, &init, &mut words, &mut old).unwrap();
                let what = format!("LDS {name} wave{width} {model_name}");
                assert_eq!(old, want_old, "{what}: old values");
                assert_eq!(words, want_words, "{what}: words");
                let t = &stats.totals;
                assert_eq!(
                    (t.atomic_accesses, t.atomic_contention),
                    expected_atomic_counts(&model_name, width),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn float_atomics_add_in_lane_order() {
    let targets = targets();
    // Thirds do not add exactly, so the order of the additions shows in the bits.
    let src: Vec<f32> = (0..ITEMS).map(|g| (g as f32 + 1.0) / 3.0).collect();
    let init: Vec<f32> = (0..WORDS).map(|k| k as f32 * 0.1).collect();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let src_bits = bits(&src);
    let add = |w: u32, x: u32, _| (f32::from_bits(w) + f32::from_bits(x)).to_bits();
    for width in [32u32, 64] {
        let config = LaunchConfig::new(GROUPS, SIZE).wave_width(width);
        let host = |per_group| {
            let start = bits(&init);
            simulate(
                add,
                &start,
                &src_bits,
                &mut |_, _| 0,
                width as usize,
                per_group,
            )
        };

        let mut words = init.clone();
        let mut old = vec![0f32; ITEMS];
        let stats = g_add_f32::launch(&config, &targets, &src, &mut words, &mut old).unwrap();
        let (want_old, want_words) = host(false);
        assert_eq!(bits(&old), want_old, "global wave{width}");
        assert_eq!(bits(&words), want_words, "global wave{width}");
        assert_eq!(
            (stats.totals.atomic_accesses, stats.totals.atomic_contention),
            expected_atomic_counts("reference", width)
        );

        let mut words = vec![0f32; WORDS * GROUPS as usize];
        let mut old = vec![0f32; ITEMS];
        let stats =
            l_add_f32::launch(&config, &targets, &src, &init, &mut words, &mut old).unwrap();
        let (want_old, want_words) = host(true);
        assert_eq!(bits(&old), want_old, "LDS wave{width}");
        assert_eq!(bits(&words), want_words, "LDS wave{width}");
        assert_eq!(
            (stats.totals.atomic_accesses, stats.totals.atomic_contention),
            expected_atomic_counts("reference", width)
        );
    }
}

/// One wave of 8 lanes (lane 7 off) aiming at words 0, 1, 1, 2, 2, 2, 3.
fn eight_lanes(launch: GlobalLaunch, words: &mut [u32], src: &[u32], cmp: &[u32]) -> Vec<u32> {
    let mut old = vec![0u32; 8];
    let config = LaunchConfig::new(1, 8);
    launch(&config, &targets(), src, cmp, words, &mut old).unwrap();
    old
}

#[test]
fn a_failing_compare_exchange_keeps_the_word_and_returns_it() {
    let mut words = [10u32, 20, 30, 40];
    let src: Vec<u32> = (100..108).collect();
    let cmp = [10u32, 21, 20, 30, 30, 103, 0, 0];
    let old = eight_lanes(g_cmpswap::launch, &mut words, &src, &cmp);
    // lane 0: 10 == 10, word 0 = 100; lane 1: 20 != 21, fails; lane 2: 20 ==
    // 20, word 1 = 102; lane 3: 30 == 30, word 2 = 103; lane 4: 103 != 30,
    // fails (a swap regardless would leave 104); lane 5: 103 == 103, word 2 =
    // 105; lane 6: 40 != 0, fails; lane 7 is off.
    assert_eq!(old, [10, 20, 20, 30, 103, 103, 40, UNTOUCHED]);
    assert_eq!(words, [100, 102, 105, 40]);
}

#[test]
fn signed_minimum_and_maximum_order_negative_values() {
    let n = |x: i32| x as u32;
    let src = [n(-1), 7, n(-2), n(i32::MIN), n(-5), 1, n(-7), 0];
    let mut words = [5u32, n(-3), n(i32::MAX), 0];
    let old = eight_lanes(g_min_i32::launch, &mut words, &src, &[0; 8]);
    // word 0: min(5, -1) = -1; word 1: min(-3, 7) = -3, min(-3, -2) = -3;
    // word 2: min(MAX, MIN) = MIN, then MIN stays; word 3: min(0, -7) = -7.
    // Unsigned, -1 would lose to 5 and -7 to 0.
    assert_eq!(
        old,
        [
            5,
            n(-3),
            n(-3),
            n(i32::MAX),
            n(i32::MIN),
            n(i32::MIN),
            0,
            UNTOUCHED
        ]
    );
    assert_eq!(words, [n(-1), n(-3), n(i32::MIN), n(-7)]);

    let mut words = [5u32, n(-3), n(i32::MIN), 0];
    let old = eight_lanes(g_max_i32::launch, &mut words, &src, &[0; 8]);
    // word 0: max(5, -1) = 5; word 1: max(-3, 7) = 7, max(7, -2) = 7;
    // word 2: max(MIN, MIN) = MIN, max(MIN, -5) = -5, max(-5, 1) = 1;
    // word 3: max(0, -7) = 0.
    assert_eq!(
        old,
        [5, n(-3), 7, n(i32::MIN), n(i32::MIN), n(-5), 0, UNTOUCHED]
    );
    assert_eq!(words, [5, 7, 1, 0]);
}
