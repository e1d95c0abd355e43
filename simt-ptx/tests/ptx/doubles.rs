//! `corpus/doubles.cu`: double precision and 64-bit integers from nvcc's
//! PTX. Pointers to `double`, `long long` and `unsigned long long` become
//! buffers of 64-bit elements (`&[f64]`, `&[u64]`: a `long long` is loaded
//! with `ld.global.u64`, so it binds as `u64`), a `double` scalar is two
//! words set from its bits, and every output equals the host's, computed in
//! the CUDA source's order (nvcc contracts `a * x + y` into one `fma`).

use crate::corpus::{corpus, kernel, memory, nvidia, Rng, WIDTHS};
use simt_core::{Arg, Args};

fn f64s(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0)
        .collect()
}

#[test]
fn daxpy_fuses_and_counts_its_eight_byte_elements() {
    let m = corpus("doubles");
    let k = kernel(&m, "daxpy");
    let p = |i: usize| format!("_Z5daxpyidPKdPd_param_{i}");
    let mut rng = Rng::new(11);
    let (n, a) = (200usize, -1.375f64);
    let x = f64s(&mut rng, 256);
    let y0 = f64s(&mut rng, 256);
    let expected: Vec<f64> = (0..256)
        .map(|i| if i < n { a.mul_add(x[i], y0[i]) } else { y0[i] })
        .collect();
    for width in WIDTHS {
        let mut y = y0.clone();
        let bits = a.to_bits();
        let stats = Args::new(k)
            .set(&p(0), n as u32)
            .set(&p(1), bits as u32)
            .set(&format!("{}.hi", p(1)), (bits >> 32) as u32)
            .set(&p(2), Arg::buffer(&x))
            .set(&p(3), Arg::buffer_mut(&mut y))
            .launch(&nvidia(4, 64, width))
            .unwrap();
        assert_eq!(y, expected, "wave{width}");
        // Two loads and a store of the 200 elements inside `n`: a full
        // 32-lane phase moves 256 contiguous bytes, 8 sectors; the phase
        // holding 192..200 moves 64 bytes, 2 sectors. 6 full phases and
        // that one: 50 sectors per instruction.
        let mem = memory(k, &stats);
        assert_eq!(mem.global_loads.global_sectors, 2 * 50, "wave{width}");
        assert_eq!(mem.global_stores.global_sectors, 50, "wave{width}");
        assert_eq!(mem.global_loads.global_bytes_requested, 2 * 200 * 8);
    }
}

#[test]
fn a_dot_product_reduces_doubles_in_shared_memory() {
    let m = corpus("doubles");
    let k = kernel(&m, "dot_f64");
    let p = |i: usize| format!("_Z7dot_f64PKdS0_Pdi_param_{i}");
    let mut rng = Rng::new(12);
    let (grid, block, n) = (8usize, 256usize, 5000usize);
    let x = f64s(&mut rng, n);
    let y = f64s(&mut rng, n);
    // The host in the kernel's order: a grid-stride sum per thread, then
    // the shared-memory tree.
    let expected: Vec<f64> = (0..grid)
        .map(|b| {
            let mut s: Vec<f64> = (0..block)
                .map(|t| {
                    let mut acc = 0.0f64;
                    let mut i = b * block + t;
                    while i < n {
                        acc = x[i].mul_add(y[i], acc);
                        i += block * grid;
                    }
                    acc
                })
                .collect();
            let mut step = block / 2;
            while step > 0 {
                for t in 0..step {
                    s[t] += s[t + step];
                }
                step /= 2;
            }
            s[0]
        })
        .collect();
    for width in WIDTHS {
        let mut partial = vec![0f64; grid];
        let stats = Args::new(k)
            .set(&p(0), Arg::buffer(&x))
            .set(&p(1), Arg::buffer(&y))
            .set(&p(2), Arg::buffer_mut(&mut partial))
            .set(&p(3), n as u32)
            .launch(&nvidia(grid as u32, block as u32, width))
            .unwrap();
        assert_eq!(partial, expected, "wave{width}");
        // `s[t] = acc`: 32 lanes store 8 contiguous bytes each, in two
        // 16-lane sub-phases of 128 bytes: no bank conflict.
        let mem = memory(k, &stats);
        assert!(mem.lds_stores.lds_accesses > 0);
        assert_eq!(mem.lds_stores.lds_conflict_cycles, 0, "wave{width}");
    }
}

#[test]
fn sixty_four_bit_integers_mix_and_divide_as_the_host_does() {
    let m = corpus("doubles");
    let mut rng = Rng::new(13);
    let n = 150usize;
    let x: Vec<u64> = (0..192).map(|_| rng.next()).collect();
    let mix = |i: usize| {
        let mut z = x[i].wrapping_add(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1));
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let k = kernel(&m, "mix_u64");
    for width in WIDTHS {
        let mut out = vec![7u64; 192];
        Args::new(k)
            .set("_Z7mix_u64PKyPyi_param_0", Arg::buffer(&x))
            .set("_Z7mix_u64PKyPyi_param_1", Arg::buffer_mut(&mut out))
            .set("_Z7mix_u64PKyPyi_param_2", n as u32)
            .launch(&nvidia(3, 64, width))
            .unwrap();
        let expected: Vec<u64> = (0..192).map(|i| if i < n { mix(i) } else { 7 }).collect();
        assert_eq!(out, expected, "wave{width}");
    }

    // Signed: `long long` values of both signs, halved toward zero.
    let k = kernel(&m, "diff_i64");
    let n = 250usize;
    let xs: Vec<i64> = (0..256)
        .map(|_| (rng.next() as i64) >> (rng.next() % 40))
        .collect();
    let words: Vec<u64> = xs.iter().map(|&v| v as u64).collect();
    let diff = |i: usize| xs[i].wrapping_sub(if i > 0 { xs[i - 1] } else { 0 }) / 2;
    for width in WIDTHS {
        let mut d = vec![0u64; 256];
        let mut f = vec![0f64; 256];
        let p = |i: usize| format!("_Z8diff_i64PKxPxPdi_param_{i}");
        Args::new(k)
            .set(&p(0), Arg::buffer(&words))
            .set(&p(1), Arg::buffer_mut(&mut d))
            .set(&p(2), Arg::buffer_mut(&mut f))
            .set(&p(3), n as u32)
            .launch(&nvidia(2, 128, width))
            .unwrap();
        for i in 0..256 {
            let (want_d, want_f) = if i < n {
                (diff(i) as u64, diff(i) as f64 * 0.5)
            } else {
                (0, 0.0)
            };
            assert_eq!((d[i], f[i]), (want_d, want_f), "element {i}, wave{width}");
        }
    }
}
