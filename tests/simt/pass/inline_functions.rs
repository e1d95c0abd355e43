//! An inline function is written out at each call, its parameters replaced by
//! the call's arguments: calls nest, a constant parameter stands wherever a
//! number goes, and the registers a function declares are the kernel's,
//! declared once however often it is called.
use simt::simt_kernel;

simt_kernel! {
    const SCALE = 2;

    /// `y = x * N * SCALE`, through a register of its own.
    fn scaled(y: vreg, x: vreg, const N: u32) {
        vreg t;
        v_mov t, x
        v_mul_u32 y, t, N * SCALE
    }

    fn twice(y: vreg, x: vreg) {
        call scaled(y, x, 1)
        call scaled(y, y, 3)
    }

    /// Adds one to `x` across a barrier: allowed where the call is uniform.
    fn bump_after_barrier(x: vreg, tile: lds) {
        lds_store tile[lane_id], x
        barrier
        lds_load x, tile[lane_id]
        v_add_u32 x, x, 1
    }

    /// A parameter named as an axis leaves the axes of special values alone.
    fn lane_plus(x: vreg, y: vreg) {
        v_add_u32 x, y, local_id.x
    }

    /// A function's declarations stay after its own constants.
    fn staged(v: vreg) {
        const K: u32 = 16;
        lds s: [u32; K];
        lds_store s[local_id.x], v
    }

    /// `call` names a register where no function's name follows it, or
    /// after a `,`.
    kernel named_call(out: &mut [u32]) {
        vreg call, v;
        v_mov call, 1
        call lane_plus(v, call,)
        v_add_u32 v, v, call
        v_sub_u32 v, v, call
        call staged(v)
        global_store out[global_id.x], v
    }

    kernel k(out: &mut [u32]) {
        lds words: [u32; 64];
        vreg i, v;
        v_mov i, global_id.x
        call twice(v, i)
        call bump_after_barrier(v, words)
        global_store out[i], v
    }
}

#[test]
fn runs() {
    // One register each for `i`, `v` and the function's `t`.
    assert_eq!(k::PROGRAM.vregs, 3);
    let mut out = vec![0u32; 64];
    let stats = k::launch(&simt::core::LaunchConfig::new(2, 32), &mut out).unwrap();
    assert_eq!(out, (0..64).map(|i| i * 12 + 1).collect::<Vec<u32>>());
    assert_eq!(stats.totals.barriers, 2);
    assert_eq!(named_call::PROGRAM.lds_bytes, 16 * 4);
    named_call::launch(&simt::core::LaunchConfig::new(1, 16), &mut out[..16]).unwrap();
    assert_eq!(out[..16], (1..17).collect::<Vec<u32>>());
}
