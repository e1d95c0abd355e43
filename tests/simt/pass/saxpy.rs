// The typed launch runs the kernel and the results and counters are exact.
use simt::simt_kernel;

simt_kernel! {
    /// y[i] = a * x[i] + y[i] for i < n
    pub kernel saxpy(x: &[f32], y: &mut [f32], a: f32, n: u32) {
        vreg i, xi, yi;          // named vector registers
        mreg inside;             // a lane mask
        v_mov        i, global_id
        v_cmp_lt_u32 inside, i, n
        if inside
            global_load  xi, x[i]
            global_load  yi, y[i]
            v_fma_f32    yi, a, xi, yi
            global_store y[i], yi
        endif
    }
}

#[test]
fn runs() {
    let n = 100;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut y = vec![1.0f32; 128];
    let config = simt::core::LaunchConfig::new(4, 32);
    let stats = saxpy::launch(&config, &x, &mut y, 2.0, n as u32).unwrap();
    for (i, &yi) in y.iter().enumerate() {
        let expected = if i < n {
            2.0f32.mul_add(x[i], 1.0)
        } else {
            1.0
        };
        assert_eq!(yi, expected, "y[{i}]");
    }
    assert_eq!(stats.waves, 4);
    // Per wave: v_mov and v_cmp, then 4 instructions under the `if`; in the last
    // wave only lanes 96..100 are inside, so its 4 are divergent.
    assert_eq!(stats.totals.vector_instructions, 4 * 6);
    assert_eq!(stats.totals.divergent_vector_instructions, 4);
    assert_eq!(
        (saxpy::VREGS, saxpy::SREGS, saxpy::MREGS, saxpy::LDS_BYTES),
        (3, 0, 1, 0)
    );
    // Source locations: the mnemonic of each instruction, `end` at the closing brace.
    let program = &saxpy::PROGRAM;
    assert_eq!(program.name, "saxpy");
    assert!(program.file.ends_with("saxpy.rs"), "{}", program.file);
    let lines: Vec<u32> = program.locs.iter().map(|l| l.line).collect();
    assert_eq!(lines, [9, 10, 11, 12, 13, 14, 15, 16, 17]);
    assert_eq!(program.locs[0].column, 9);
    assert_eq!(program.locs[3].column, 13);
}
