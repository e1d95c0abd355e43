//! Lowers a PTX file and prints each kernel as simt text:
//! `cargo run -p simt-ptx --example lower -- FILE.ptx [KERNEL]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: lower FILE.ptx [KERNEL]");
        std::process::exit(2);
    };
    let which = args.next();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    match simt_ptx::compile_ptx(&path, &text) {
        Ok(m) => {
            for k in &m.kernels {
                if which
                    .as_deref()
                    .is_some_and(|w| w != k.name && w != k.mangled)
                {
                    continue;
                }
                println!("// {} ({})", k.demangled, k.mangled);
                println!("{}", k.kernel.display());
            }
        }
        Err(d) => {
            eprint!("{}", d.render(false));
            std::process::exit(1);
        }
    }
}
