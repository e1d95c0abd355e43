//! The compile-time LDS bounds check against the run: for kernels whose LDS
//! index is an affine form of `local_id` (random coefficients, offset, array
//! length and workgroup shape), compiling under `#[workgroup_size]` reports
//! an index out of bounds exactly when running the same kernel faults with
//! one, at wave32 and at wave64.

use proptest::prelude::*;
use simt::core::{Arg, Args, Error, FaultKind, LaunchConfig};

/// The kernel for workgroups of `shape`: `t[kx * local_id.x + ky *
/// local_id.y + c] = local_id.x`, then each work-item stores its index to
/// its own word of `out`; the shape is declared when `declared`.
fn source(shape: [u32; 2], declared: bool, len: u32, kx: i32, ky: i32, c: i32) -> String {
    let [x_size, y_size] = shape;
    let attr = if declared {
        format!("#[workgroup_size({x_size}, {y_size})]\n")
    } else {
        String::new()
    };
    format!(
        "{attr}kernel k(out: &mut [u32]) {{\n\
         \x20   lds t: [u32; {len}];\n\
         \x20   vreg j;\n\
         \x20   v_mul_i32 j, local_id.x, {kx}\n\
         \x20   v_mad_i32 j, local_id.y, {ky}, j\n\
         \x20   v_add_i32 j, j, {c}\n\
         \x20   lds_store t[j], local_id.x\n\
         \x20   v_mad_u32 j, local_id.y, {x_size}, local_id.x\n\
         \x20   global_store out[j], j\n\
         }}\n"
    )
}

proptest! {
    // 256 cases unless `PROPTEST_CASES` asks for more.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn compile_time_bounds_agree_with_the_run(
        x in 1u32..24,
        y in 1u32..6,
        len in 1u32..160,
        kx in -3i32..6,
        ky in -4i32..30,
        c in -8i32..40,
    ) {
        let checked = simt::compile(&source([x, y], true, len, kx, ky, c));
        let proved = match &checked {
            Ok(_) => false,
            Err(d) => d.iter().any(|d| d.message.starts_with("index out of bounds")),
        };
        let kernel = simt::compile(&source([x, y], false, len, kx, ky, c)).expect("compiles without a shape");
        for width in [32, 64] {
            let mut out = vec![0u32; (x * y) as usize];
            let ran = Args::new(&kernel)
                .set("out", Arg::buffer_mut(&mut out))
                .launch(&LaunchConfig::new(1, [x, y, 1]).wave_width(width));
            let faulted = matches!(
                &ran,
                Err(Error::Fault(f)) if matches!(f.kind, FaultKind::LdsOutOfBounds { .. })
            );
            prop_assert_eq!(
                proved, faulted,
                "shape {}x{}, len {}, index {}*x + {}*y + {}, wave{}: {:?}",
                x, y, len, kx, ky, c, width, ran.err()
            );
        }
    }
}

/// Both outcomes occur in the space searched above: a tile one short faults
/// and is refused, one long enough runs and compiles.
#[test]
fn both_outcomes_are_searched() {
    let refused = simt::compile(&source([16, 4], true, 63, 1, 16, 0)).unwrap_err();
    assert!(
        refused
            .iter()
            .any(|d| d.message
                == "index out of bounds under `#[workgroup_size(16, 4)]`: work-item (15, 3, 0) writes `t[63]`, and `t` has 63 elements"),
        "{refused}"
    );
    assert!(simt::compile(&source([16, 4], true, 64, 1, 16, 0)).is_ok());
}
