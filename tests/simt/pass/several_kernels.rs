// Several kernels in one invocation, with docs, visibility and attributes,
// inside a module; an empty kernel and one without parameters.
mod kernels {
    simt::simt_kernel! {
        /// Fills `out` with `value`.
        pub kernel fill(out: &mut [u32], value: u32) {
            global_store out[global_id], value;
        }

        /// Doubles every element.
        pub(crate) kernel double(data: &mut [i32]) {
            vreg x;
            global_load x, data[global_id];
            v_add_i32 x, x, x;
            global_store data[global_id], x;
        }

        #[allow(dead_code)]
        pub kernel nothing() {}
    }
}

#[test]
fn runs() {
    let config = simt::core::LaunchConfig::new([2, 1], [32, 1, 1]);
    let mut a = vec![0u32; 64];
    kernels::fill::launch(&config, &mut a, 9).unwrap();
    assert!(a.iter().all(|&x| x == 9));
    let mut b: Vec<i32> = (0..64).map(|i| i - 32).collect();
    kernels::double::launch(&config, &mut b).unwrap();
    assert!(b.iter().enumerate().all(|(i, &x)| x == 2 * (i as i32 - 32)));
    let stats = kernels::nothing::launch(&config).unwrap();
    assert_eq!(stats.totals.vector_instructions, 0);
    assert_eq!(kernels::nothing::PROGRAM.insts.len(), 1);
    assert_eq!(kernels::double::PROGRAM.name, "double");
}
