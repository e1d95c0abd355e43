//! An `if` on the workgroup's id and a loop counted by a scalar keep every
//! lane of a wave together.
use simt::simt_kernel;

simt_kernel! {
    kernel k(n: u32, out: &mut [u32]) {
        mreg first, more;
        sreg i;
        vreg acc;
        v_mov acc, 0
        s_mov i, 0
        #[uniform]
        loop
            v_add_u32 acc, acc, 1
            s_add_u32 i, i, 1
            s_cmp_lt_u32 more, i, n
        endloop more
        v_cmp_eq_u32 first, group_id.x, 0
        #[uniform]
        if first
            global_store out[global_id.x], acc
        endif
    }
}

#[test]
fn runs() {
    let mut out = vec![0u32; 64];
    k::launch(&simt::core::LaunchConfig::new(2, 32), 5, &mut out).unwrap();
    assert_eq!(out[..32], [5; 32]);
    assert_eq!(out[32..], [0; 32]);
}
