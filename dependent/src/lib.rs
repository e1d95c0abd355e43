//! Kernels of a crate that depends on simt: written with `simt_kernel!`,
//! launched through the typed `launch` functions the macro generates.

simt::simt_kernel! {
    /// `c[i] = a[i] + b[i]` for `i < n`.
    pub kernel vecadd(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
        vreg i, x, y;
        mreg inside;
        v_mov        i, global_id.x
        v_cmp_lt_u32 inside, i, n
        if inside
            global_load  x, a[i]
            global_load  y, b[i]
            v_add_f32    x, x, y
            global_store c[i], x
        endif
    }

    /// Each workgroup's sum of `input` into `partial[group_id.x]`, by a
    /// halving tree in LDS.
    #[workgroup_size(64)]
    pub kernel block_sum(input: &[u32], partial: &mut [u32]) {
        lds sums: [u32; 64];
        vreg x, y, partner;
        sreg stride;
        mreg active, more, first;
        global_load x, input[global_id.x]
        lds_store   sums[local_id.x], x
        barrier
        s_mov stride, 32
        loop
            v_cmp_lt_u32 active, local_id.x, stride
            if active
                v_add_u32 partner, local_id.x, stride
                lds_load  y, sums[partner]
                v_add_u32 x, x, y
                lds_store sums[local_id.x], x
            endif
            barrier
            s_shr_u32    stride, stride, 1
            s_cmp_ne_u32 more, stride, 0
        endloop more
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            global_store partial[group_id.x], x
        endif
    }
}

/// The median time of `launches` launches of `vecadd` over `n` elements
/// (at least one), on one thread: how fast the interpreter runs under the
/// profile this crate is built with; `None` when a launch fails or its sums
/// are wrong.
pub fn vecadd_median(n: u32, launches: usize) -> Option<std::time::Duration> {
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b = vec![1.0f32; n as usize];
    let mut c = vec![0.0f32; n as usize];
    let config = simt::core::LaunchConfig::new(n.div_ceil(256), 256).threads(1);
    let mut times = Vec::new();
    for _ in 0..launches.max(1) {
        c.fill(0.0);
        let start = std::time::Instant::now();
        vecadd::launch(&config, &a, &b, &mut c, n).ok()?;
        times.push(start.elapsed());
        if c.iter().zip(&a).any(|(c, a)| *c != a + 1.0) {
            return None;
        }
    }
    times.sort();
    Some(times[times.len() / 2])
}
