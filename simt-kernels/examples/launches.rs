//! Launches one reference kernel a number of times at wave32 on one thread:
//! plain on the native runner (`native`), plain on the interpreter
//! (`interpreter`) or with the sanitizers (`sanitized`). Under callgrind, the
//! instructions of `N + 1` launches minus those of `1` are the cost of `N`
//! launches, start-up cancelled out: how the book's table of what the
//! sanitizers cost is measured.
//!
//! ```text
//! cargo build --release -p simt-kernels --example launches
//! valgrind --tool=callgrind target/release/examples/launches saxpy_f32 sanitized 2
//! ```

use simt::core::{Engine, MemoryModel};
use simt_kernels::KERNELS;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: launches KERNEL native|interpreter|sanitized LAUNCHES";
    let [name, mode, count] = &args[..] else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let (Some(spec), Ok(count)) = (
        KERNELS.iter().find(|s| s.name == name),
        count.parse::<u32>(),
    ) else {
        let names: Vec<&str> = KERNELS.iter().map(|s| s.name).collect();
        eprintln!("{usage} (kernels: {})", names.join(", "));
        return ExitCode::from(2);
    };
    let config = spec.config(32, MemoryModel::reference()).threads(1);
    let config = match mode.as_str() {
        "native" => config,
        "interpreter" => config.engine(Engine::Interpreter),
        "sanitized" => config.sanitize(true),
        _ => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    let mut workload = (spec.prepare)(42);
    for _ in 0..count {
        workload.reset();
        if let Err(e) = workload.launch(&config) {
            eprintln!("{name}: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
