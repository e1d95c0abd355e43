//! Every shipped kernel, compiled from its source file's text at run time,
//! gives the IR the `simt_kernel!` macro built when the crate compiled: the
//! same instructions, parameters, LDS arrays, register counts and names, and
//! the same line and column for every instruction.

use simt::core::Program;
use simt_kernels::{kernels, studies};

/// Each source file holding kernels, with the macro's programs of its kernels
/// in the order it defines them.
fn shipped() -> Vec<(&'static str, Vec<&'static Program>)> {
    use kernels::{branch, elementwise, lds, matmul, reduce};
    use studies::{atomics, coalescing, divergence_time, kway, layout, mandelbrot};
    use studies::{memory_time, reduction, transpose};
    vec![
        (
            "src/kernels/branch.rs",
            vec![&branch::divergent_collatz_i32::PROGRAM],
        ),
        (
            "src/kernels/elementwise.rs",
            vec![
                &elementwise::vecadd_i32::PROGRAM,
                &elementwise::vecadd_f32::PROGRAM,
                &elementwise::saxpy_f32::PROGRAM,
                &elementwise::copy_coalesced_f32::PROGRAM,
                &elementwise::copy_strided_f32::PROGRAM,
            ],
        ),
        (
            "src/kernels/lds.rs",
            vec![&lds::lds_conflict_heavy_i32::PROGRAM],
        ),
        (
            "src/kernels/matmul.rs",
            vec![
                &matmul::matmul_naive_f32::PROGRAM,
                &matmul::matmul_tiled_f32::PROGRAM,
            ],
        ),
        (
            "src/kernels/reduce.rs",
            vec![
                &reduce::reduce_i32::PROGRAM,
                &reduce::reduce_f32::PROGRAM,
                &reduce::interleaved_modulo::PROGRAM,
                &reduce::interleaved_strided::PROGRAM,
                &reduce::sequential::PROGRAM,
            ],
        ),
        (
            "src/studies/atomics.rs",
            vec![
                &atomics::sum_every_item::PROGRAM,
                &atomics::sum_per_workgroup::PROGRAM,
            ],
        ),
        (
            "src/studies/branch.rs",
            vec![
                &studies::branch::divergent_lanes::PROGRAM,
                &studies::branch::divergent_warps::PROGRAM,
                &studies::branch::rare_branch::PROGRAM,
            ],
        ),
        (
            "src/studies/coalescing.rs",
            vec![
                &coalescing::strided_read::PROGRAM,
                &coalescing::warp_strided::PROGRAM,
                &coalescing::thread_contiguous::PROGRAM,
                &coalescing::strided::PROGRAM,
                &coalescing::grayscale_packed::PROGRAM,
                &coalescing::grayscale_planar::PROGRAM,
                &coalescing::bag_lane_per_feature::PROGRAM,
                &coalescing::bag_lane_per_bag::PROGRAM,
            ],
        ),
        (
            "src/studies/divergence_time.rs",
            vec![
                &divergence_time::switch_rounds::PROGRAM,
                &divergence_time::one_path::PROGRAM,
            ],
        ),
        (
            "src/studies/kway.rs",
            vec![&kway::switch_cases::PROGRAM, &kway::predicated::PROGRAM],
        ),
        (
            "src/studies/layout.rs",
            vec![
                &layout::aos_x::PROGRAM,
                &layout::soa_x::PROGRAM,
                &layout::offset_copy::PROGRAM,
            ],
        ),
        (
            "src/studies/mandelbrot.rs",
            vec![
                &mandelbrot::coherent::PROGRAM,
                &mandelbrot::scattered::PROGRAM,
                &mandelbrot::tiled_8x4::PROGRAM,
            ],
        ),
        (
            "src/studies/memory_time.rs",
            vec![
                &memory_time::add_12::PROGRAM,
                &memory_time::add_25::PROGRAM,
                &memory_time::add_37::PROGRAM,
                &memory_time::add_50::PROGRAM,
                &memory_time::add_75::PROGRAM,
                &memory_time::add_100::PROGRAM,
                &memory_time::chains_25::PROGRAM,
                &memory_time::chains_100::PROGRAM,
                &memory_time::tile_rows_conflicted::PROGRAM,
                &memory_time::tile_rows_padded::PROGRAM,
            ],
        ),
        (
            "src/studies/reduction.rs",
            vec![&reduction::shuffle_tree::PROGRAM],
        ),
        (
            "src/studies/transpose.rs",
            vec![
                &transpose::transpose_naive::PROGRAM,
                &transpose::transpose_lds::PROGRAM,
                &transpose::transpose_padded::PROGRAM,
            ],
        ),
    ]
}

#[test]
fn every_shipped_kernel_compiles_from_its_text_to_the_macros_program() {
    let root = env!("CARGO_MANIFEST_DIR");
    let shipped = shipped();
    let mut listed: Vec<&str> = shipped.iter().map(|(file, _)| *file).collect();
    listed.sort_unstable();
    // Every file of kernels is listed, so a new one cannot be left unchecked.
    let mut on_disk = Vec::new();
    for dir in ["src/kernels", "src/studies"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).expect(dir) {
            let path = entry.expect("entry").path();
            let source = std::fs::read_to_string(&path).expect("source");
            let name = path.file_name().and_then(|n| n.to_str()).expect("name");
            let relative = format!("{dir}/{name}");
            if !simt::compile_rust_file(&relative, &source)
                .expect("shipped kernels compile")
                .is_empty()
            {
                on_disk.push(relative);
            }
        }
    }
    on_disk.sort_unstable();
    assert_eq!(listed, on_disk, "files holding kernels");
    let mut compared = 0;
    for (file, programs) in shipped {
        let source = std::fs::read_to_string(format!("{root}/{file}")).expect("source");
        // The macro names the file as rustc was given it.
        let named = &programs[0].file;
        assert!(named.ends_with(file), "{named} is not {file}");
        let texts = simt::compile_rust_file(named, &source)
            .unwrap_or_else(|d| panic!("{file} does not compile as text:\n{d}"));
        let names = |ps: &mut dyn Iterator<Item = &Program>| -> Vec<String> {
            ps.map(|p| p.name.to_string()).collect()
        };
        assert_eq!(
            names(&mut texts.iter().map(|k| k.program())),
            names(&mut programs.iter().copied()),
            "{file}: kernels"
        );
        for (text, &program) in texts.iter().zip(&programs) {
            // `Program`'s equality covers the file, the parameters, the LDS
            // arrays, the instructions, each one's line and column, the
            // register counts, the LDS bytes and the register names.
            assert!(
                text.program() == program,
                "{file}: `{}` differs:\ntext:  {:#?}\nmacro: {program:#?}",
                program.name,
                text.program()
            );
            compared += 1;
        }
    }
    // The eleven reference kernels, the count studies' 28 variants and the
    // time studies' 12 kernels of their own.
    assert_eq!(compared, 11 + 28 + 12);
}
