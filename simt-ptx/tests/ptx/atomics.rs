//! `corpus/atomics.cu`: CUDA's 64-bit atomics from nvcc's PTX (`atom.add.f64`
//! on shared and global doubles, `atom.add/max/or.u64`, `atom.min.s64`,
//! `atom.exch.b64` and the `atom.cas.b64` loop that added doubles before
//! GPUs could), checked against the host. The doubles are multiples of a
//! quarter, small enough that every sum is exact in any order.

use crate::corpus::{corpus, kernel, nvidia, Rng, WIDTHS};
use simt_core::{Arg, Args};

fn quarters(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| (rng.next() % 64) as f64 * 0.25 - 8.0)
        .collect()
}

#[test]
fn doubles_sum_through_shared_and_global_atomic_adds() {
    let m = corpus("atomics");
    let mut rng = Rng::new(41);
    let n = 700usize;
    let x = quarters(&mut rng, 768);
    let sum: f64 = x[..n].iter().sum();
    for (name, mangled) in [
        ("sum_f64", "_Z7sum_f64PKdPdi"),
        ("sum_by_cas", "_Z10sum_by_casPKdPdi"),
    ] {
        let k = kernel(&m, name);
        let p = |i: usize| format!("{mangled}_param_{i}");
        for width in WIDTHS {
            let mut total = vec![0.5f64];
            let mut total_bits = vec![0.5f64.to_bits()];
            let args = Args::new(k)
                .set(&p(0), Arg::buffer(&x))
                .set(&p(2), n as u32);
            // `sum_by_cas` reads its total as `unsigned long long`.
            let args = if name == "sum_by_cas" {
                args.set(&p(1), Arg::buffer_mut(&mut total_bits))
            } else {
                args.set(&p(1), Arg::buffer_mut(&mut total))
            };
            let stats = args.launch(&nvidia(6, 128, width)).unwrap();
            let got = if name == "sum_by_cas" {
                f64::from_bits(total_bits[0])
            } else {
                total[0]
            };
            assert_eq!(got, 0.5 + sum, "{name} wave{width}");
            assert!(stats.totals.atomic_accesses > 0, "{name}");
        }
    }
}

#[test]
fn sixty_four_bit_counters_maxima_and_unions_match_the_host() {
    let m = corpus("atomics");
    let k = kernel(&m, "key_stats");
    let p = |i: usize| format!("_Z9key_statsPKyPyS1_S1_i_param_{i}");
    let mut rng = Rng::new(43);
    let n = 500usize;
    let keys: Vec<u64> = (0..512).map(|_| rng.next() >> (rng.next() % 48)).collect();
    let mut want_counts = [3u64; 16];
    for &key in &keys[..n] {
        let c = &mut want_counts[(key & 15) as usize];
        *c = c.wrapping_add((1 << 33) | 1);
    }
    let want_largest = keys[..n].iter().copied().fold(7, u64::max);
    let want_bits = keys[..n].iter().fold(1u64 << 63, |a, &b| a | b);
    for width in WIDTHS {
        let mut counts = vec![3u64; 16];
        let (mut largest, mut bits) = (vec![7u64], vec![1u64 << 63]);
        Args::new(k)
            .set(&p(0), Arg::buffer(&keys))
            .set(&p(1), Arg::buffer_mut(&mut counts))
            .set(&p(2), Arg::buffer_mut(&mut largest))
            .set(&p(3), Arg::buffer_mut(&mut bits))
            .set(&p(4), n as u32)
            .launch(&nvidia(4, 128, width))
            .unwrap();
        assert_eq!(counts, want_counts, "wave{width}");
        assert_eq!(
            (largest[0], bits[0]),
            (want_largest, want_bits),
            "wave{width}"
        );
    }
}

#[test]
fn a_signed_minimum_and_the_last_exchange_match_the_host() {
    let m = corpus("atomics");
    let k = kernel(&m, "lowest_and_last");
    let p = |i: usize| format!("_Z15lowest_and_lastPKxPxPyi_param_{i}");
    let mut rng = Rng::new(47);
    let n = 300usize;
    let v: Vec<i64> = (0..320)
        .map(|_| (rng.next() as i64) >> (rng.next() % 50))
        .collect();
    let bits: Vec<u64> = v.iter().map(|&x| x as u64).collect();
    let want_lowest = v[..n].iter().copied().fold(i64::MAX, i64::min);
    assert!(want_lowest < 0, "the inputs have negative values");
    for width in WIDTHS {
        let (mut lowest, mut last) = (vec![i64::MAX], vec![0u64]);
        Args::new(k)
            .set(&p(0), Arg::buffer(&bits))
            .set(&p(1), Arg::buffer_mut(&mut lowest))
            .set(&p(2), Arg::buffer_mut(&mut last))
            .set(&p(3), n as u32)
            .launch(&nvidia(3, 128, width))
            .unwrap();
        assert_eq!(lowest[0], want_lowest, "wave{width}");
        // A launch with global atomics runs its workgroups, waves and lanes
        // in order: the last exchange is the last thread's.
        assert_eq!(last[0], bits[n - 1], "wave{width}");
    }
}
