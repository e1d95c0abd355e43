//! The 64-bit atomics, global and LDS: each lane updates one 8-byte element
//! with a register pair, in lane order, and gets the element's value before
//! its update; checked against a host model that applies the updates one
//! lane at a time, at wave32 and wave64 with lanes masked off, and counted as
//! one 8-byte access per lane.

use simt::core::{Error, FaultKind, LaunchConfig, MemoryModel};
use simt::simt_kernel;

/// What inactive lanes' `old` pairs hold.
const UNTOUCHED: u64 = 0xdead_0000_dead;

/// Declares one kernel per global atomic; `$inst` updates `q[t]` (element
/// `lane_id % 4`) with `[x0, x1]` (and the compared `[c0, c1]`) and writes
/// the old element to `[o0, o1]`. Lanes whose `lane_id % 8 == 7` are off.
macro_rules! global_atomics {
    ($($name:ident($elem:ty): [$($inst:tt)*])*) => {
        simt_kernel! {$(
            kernel $name(q: &mut [$elem], src: &[u64], cmp: &[u64], old: &mut [u64]) {
                vreg t, x0, x1, c0, c1, o0, o1, k;
                mreg on;
                v_and t, lane_id, 3
                global_load_x2 [x0, x1], src[lane_id]
                global_load_x2 [c0, c1], cmp[lane_id]
                v_mov o0, 0xdead
                v_mov o1, 0xdead
                v_and k, lane_id, 7
                v_cmp_ne_u32 on, k, 7
                if on
                    $($inst)*
                endif
                global_store_x2 old[lane_id], [o0, o1]
            }
        )*}
    };
}

global_atomics! {
    g_add_u64(u64): [global_atomic_add_u64 [o0, o1], q[t], [x0, x1]]
    g_add_f64(f64): [global_atomic_add_f64 [o0, o1], q[t], [x0, x1]]
    g_min_i64(u64): [global_atomic_min_i64 [o0, o1], q[t], [x0, x1]]
    g_max_u64(u64): [global_atomic_max_u64 [o0, o1], q[t], [x0, x1]]
    g_xor_b64(u64): [global_atomic_xor_b64 [o0, o1], q[t], [x0, x1]]
    g_xchg_b64(u64): [global_atomic_xchg_b64 [o0, o1], q[t], [x0, x1]]
    g_cmpswap_b64(u64): [global_atomic_cmpswap_b64 [o0, o1], q[t], [c0, c1], [x0, x1]]
}

simt_kernel! {
    /// The LDS forms: `cell` starts from `init`, each lane updates element
    /// `lane_id % 4`, and the cells are copied out.
    kernel l_max_i64(init: &[u64], src: &[u64], cmp: &[u64], cells: &mut [u64], old: &mut [u64]) {
        lds cell: [u64; 4];
        vreg t, x0, x1, c0, c1, o0, o1, k;
        mreg on, low;
        v_cmp_lt_u32 low, lane_id, 4
        if low
            global_load_x2 [x0, x1], init[lane_id]
            lds_store_x2 cell[lane_id], [x0, x1]
        endif
        barrier
        v_and t, lane_id, 3
        global_load_x2 [x0, x1], src[lane_id]
        global_load_x2 [c0, c1], cmp[lane_id]
        v_mov o0, 0xdead
        v_mov o1, 0xdead
        v_and k, lane_id, 7
        v_cmp_ne_u32 on, k, 7
        if on
            lds_atomic_max_i64 [o0, o1], cell[t], [x0, x1]
        endif
        global_store_x2 old[lane_id], [o0, o1]
        barrier
        if low
            lds_load_x2 [x0, x1], cell[lane_id]
            global_store_x2 cells[lane_id], [x0, x1]
        endif
    }

    kernel l_cmpswap_b64(init: &[u64], src: &[u64], cmp: &[u64], cells: &mut [u64], old: &mut [u64]) {
        lds cell: [u64; 4];
        vreg t, x0, x1, c0, c1, o0, o1, k;
        mreg on, low;
        v_cmp_lt_u32 low, lane_id, 4
        if low
            global_load_x2 [x0, x1], init[lane_id]
            lds_store_x2 cell[lane_id], [x0, x1]
        endif
        barrier
        v_and t, lane_id, 3
        global_load_x2 [x0, x1], src[lane_id]
        global_load_x2 [c0, c1], cmp[lane_id]
        v_mov o0, 0xdead
        v_mov o1, 0xdead
        v_and k, lane_id, 7
        v_cmp_ne_u32 on, k, 7
        if on
            lds_atomic_cmpswap_b64 [o0, o1], cell[t], [c0, c1], [x0, x1]
        endif
        global_store_x2 old[lane_id], [o0, o1]
        barrier
        if low
            lds_load_x2 [x0, x1], cell[lane_id]
            global_store_x2 cells[lane_id], [x0, x1]
        endif
    }

    /// Each workgroup adds `src` into an array of `u64` that a word before
    /// it puts 4 bytes past a multiple of 8 (so that an element may span
    /// two of the LDS's zeroing blocks), and copies it out.
    kernel l_offset(src: &[u64], cells: &mut [u64]) {
        lds pad: [u32; 1];
        lds q: [u64; 16];
        vreg x0, x1, o0, o1, at;
        mreg low;
        v_cmp_lt_u32 low, lane_id, 16
        if low
            global_load_x2 [x0, x1], src[lane_id]
            lds_atomic_add_u64 [o0, o1], q[lane_id], [x0, x1]
            lds_store pad[0], 0
        endif
        barrier
        if low
            lds_load_x2 [x0, x1], q[lane_id]
            v_mad_u32 at, group_id.x, 16, lane_id
            global_store_x2 cells[at], [x0, x1]
        endif
    }

    /// An 8-byte atomic at byte `at` of `q`.
    kernel at_byte(q: &mut [u64], at: u32) {
        vreg x0, x1, o0, o1;
        v_mov x0, 1
        v_mov x1, 0
        global_atomic_add_u64 [o0, o1], q.bytes[at], [x0, x1]
    }
}

/// The host model: lanes in order, each off lane (`l % 8 == 7`) skipped;
/// the final elements and each lane's old value.
fn simulate(
    width: usize,
    init: [u64; 4],
    src: &[u64],
    cmp: &[u64],
    update: impl Fn(u64, u64, u64) -> u64,
) -> ([u64; 4], Vec<u64>) {
    let mut q = init;
    let mut old = vec![UNTOUCHED; width];
    for l in (0..width).filter(|l| l % 8 != 7) {
        let t = l % 4;
        old[l] = q[t];
        q[t] = update(q[t], src[l], cmp[l]);
    }
    (q, old)
}

/// Values that carry across the words and have both signs.
fn src(width: usize) -> Vec<u64> {
    (0..width as u64)
        .map(|l| (l + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (l << 40))
        .collect()
}

/// Compared values: the element's value where a lane should succeed (every
/// third lane guesses right), else off by one.
fn cmp(width: usize, init: [u64; 4], src: &[u64]) -> Vec<u64> {
    let mut q = init;
    (0..width)
        .map(|l| {
            let t = l % 4;
            let guess = if l % 3 == 0 { q[t] } else { q[t] ^ 1 };
            if l % 8 != 7 && guess == q[t] {
                q[t] = src[l];
            }
            guess
        })
        .collect()
}

const INIT: [u64; 4] = [5, 0xffff_ffff, 1 << 63, 0x1234_5678_9abc_def0];

type Launched = Result<simt::core::Stats, Error>;
/// A global atomic kernel's `launch`: `q`, `src`, `cmp`, `old`.
type Launch = fn(&LaunchConfig, &mut [u64], &[u64], &[u64], &mut [u64]) -> Launched;
/// An LDS atomic kernel's `launch`: `init`, `src`, `cmp`, `cells`, `old`.
type LdsLaunch = fn(&LaunchConfig, &[u64], &[u64], &[u64], &mut [u64], &mut [u64]) -> Launched;
/// A host model of an update: `(old, value, compared) -> new`.
type Update = fn(u64, u64, u64) -> u64;

#[test]
fn global_64_bit_atomics_apply_in_lane_order() {
    let cases: [(&str, Launch, Update); 6] = [
        ("add_u64", g_add_u64::launch, |o, v, _| o.wrapping_add(v)),
        ("min_i64", g_min_i64::launch, |o, v, _| {
            (o as i64).min(v as i64) as u64
        }),
        ("max_u64", g_max_u64::launch, |o, v, _| o.max(v)),
        ("xor_b64", g_xor_b64::launch, |o, v, _| o ^ v),
        ("xchg_b64", g_xchg_b64::launch, |_, v, _| v),
        ("cmpswap_b64", g_cmpswap_b64::launch, |o, v, c| {
            if o == c {
                v
            } else {
                o
            }
        }),
    ];
    for width in [32usize, 64] {
        let src = src(width);
        let cmp = cmp(width, INIT, &src);
        for (name, launch, update) in cases {
            let (want_q, want_old) = simulate(width, INIT, &src, &cmp, update);
            let mut q = INIT;
            let mut old = vec![0u64; width];
            let config = LaunchConfig::new(1, width as u32).wave_width(width as u32);
            launch(&config, &mut q, &src, &cmp, &mut old).unwrap();
            assert_eq!(q, want_q, "{name} wave{width}");
            assert_eq!(old, want_old, "{name} wave{width}");
        }
        // Every third lane guesses right: some swaps happen, some fail.
        let swaps = (0..width).filter(|l| l % 8 != 7 && l % 3 == 0).count();
        assert!(swaps > 0 && swaps < width);
    }
}

#[test]
fn double_atomic_adds_round_in_lane_order() {
    // Terms of very different sizes: the order of the additions shows in
    // the rounding (1e16 + 1 is 1e16; 1 + 1 + 1e16 is not).
    let terms = [1e16, 1.0, -1e16, 0.5, 3.0, -2.25, 1e-3, 7.0];
    for width in [32usize, 64] {
        let src: Vec<u64> = (0..width)
            .map(|l| f64::to_bits(terms[l % 8] * (l / 8 + 1) as f64))
            .collect();
        let init = [0.0f64, 1.0, -0.0, 1e300].map(f64::to_bits);
        let (want_q, want_old) = simulate(width, init, &src, &src, |o, v, _| {
            (f64::from_bits(o) + f64::from_bits(v)).to_bits()
        });
        let mut q = init.map(f64::from_bits);
        let mut old = vec![0u64; width];
        let config = LaunchConfig::new(1, width as u32).wave_width(width as u32);
        g_add_f64::launch(&config, &mut q, &src, &src, &mut old).unwrap();
        assert_eq!(q.map(f64::to_bits), want_q, "wave{width}");
        assert_eq!(old, want_old, "wave{width}");
    }
}

#[test]
fn lds_64_bit_atomics_apply_in_lane_order() {
    let cases: [(&str, LdsLaunch, Update); 2] = [
        ("max_i64", l_max_i64::launch, |o, v, _| {
            (o as i64).max(v as i64) as u64
        }),
        ("cmpswap_b64", l_cmpswap_b64::launch, |o, v, c| {
            if o == c {
                v
            } else {
                o
            }
        }),
    ];
    for width in [32usize, 64] {
        let src = src(width);
        let cmp = cmp(width, INIT, &src);
        for (name, launch, update) in cases {
            let (want_q, want_old) = simulate(width, INIT, &src, &cmp, update);
            let mut cells = [0u64; 4];
            let mut old = vec![0u64; width];
            let config = LaunchConfig::new(1, width as u32).wave_width(width as u32);
            launch(&config, &INIT, &src, &cmp, &mut cells, &mut old).unwrap();
            assert_eq!(cells, want_q, "{name} wave{width}");
            assert_eq!(old, want_old, "{name} wave{width}");
        }
    }
}

#[test]
fn a_64_bit_atomic_counts_eight_bytes_per_lane_and_its_contention() {
    let src = src(32);
    let mut q = INIT;
    let mut old = vec![0u64; 32];
    let config = LaunchConfig::new(1, 32).model(MemoryModel::nvidia());
    let stats = g_add_u64::launch(&config, &mut q, &src, &src, &mut old).unwrap();
    let atomic = stats
        .per_instruction
        .iter()
        .find(|c| c.atomic_accesses > 0)
        .expect("the atomic ran");
    // 28 lanes on (every eighth off), 8 bytes each; the 4 elements are 32
    // bytes in one sector of one line. Elements 0 to 2 are hit by 8 lanes
    // each, element 3 by 4 (lanes 7, 15, 23 and 31 are off): 7 updates wait
    // behind the first.
    assert_eq!(atomic.atomic_accesses, 1);
    assert_eq!(atomic.global_bytes_requested, 28 * 8);
    assert_eq!(atomic.global_transactions, 1);
    assert_eq!(atomic.global_sectors, 1);
    assert_eq!(atomic.atomic_contention, 7);
}

#[test]
fn a_64_bit_atomic_four_bytes_into_an_element_faults_as_misaligned() {
    let mut q = [0u64; 4];
    let err = at_byte::launch(&LaunchConfig::new(1, 32), &mut q, 4).unwrap_err();
    let Error::Fault(f) = err else {
        panic!("expected a fault, got {err}");
    };
    assert!(
        matches!(f.kind, FaultKind::GlobalMisaligned { size: 8, .. }),
        "{f}"
    );
    assert_eq!(q, [0; 4], "the faulting atomic has no effect");
    // At byte 8, element 1, all 32 lanes add 1.
    at_byte::launch(&LaunchConfig::new(1, 32), &mut q, 8).unwrap();
    assert_eq!(q, [0, 32, 0, 0]);
}

#[test]
fn an_lds_64_bit_atomic_across_two_zeroing_blocks_starts_each_workgroup_from_zero() {
    let src: Vec<u64> = (0..16u64).map(|l| (l + 1) << 32 | (l + 7)).collect();
    let groups = 3;
    let mut cells = vec![0u64; 16 * groups];
    // One worker runs the workgroups one after another on one LDS.
    let config = LaunchConfig::new(groups as u32, 32).threads(1);
    l_offset::launch(&config, &src, &mut cells).unwrap();
    let want: Vec<u64> = (0..groups).flat_map(|_| src.iter().copied()).collect();
    assert_eq!(cells, want);
}
