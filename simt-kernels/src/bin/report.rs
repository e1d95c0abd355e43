//! `cargo run --release -p simt-kernels --bin report [-- --help]`: runs the
//! reference kernels, checks them against their oracles, prints their counters and
//! writes `results/results.json`.

use simt_kernels::cli::{self, Command, USAGE};
use simt_kernels::report;
use std::process::ExitCode;

fn main() -> ExitCode {
    let options = match cli::parse(std::env::args().skip(1)) {
        Ok(Command::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Command::Run(options)) => options,
        Err(e) => {
            eprintln!("report: {e}");
            return ExitCode::from(2);
        }
    };
    println!(
        "seed {}, model {}, median of {} launches per row\n",
        options.seed, options.model.name, options.launches
    );
    let results = report::run(&options);
    print!("{}", report::table(&results.rows));
    if let Some(line) = report::reference_summary(&results.rows) {
        println!("\n{line}");
    }
    for row in results.rows.iter().filter(|r| !r.oracle_pass) {
        eprintln!(
            "report: {} at wave{} differs from its oracle: {}",
            row.kernel,
            row.wave_width,
            row.mismatch.as_deref().unwrap_or("?")
        );
    }
    for f in &results.failures {
        eprintln!(
            "report: {} at wave{} failed: {}",
            f.kernel, f.wave_width, f.error
        );
    }
    let mut ok = results.all_passed();
    match report::write_json(&results, &options.out) {
        Ok(()) => println!("\nwrote {}", options.out.display()),
        Err(e) => {
            eprintln!("report: cannot write {}: {e}", options.out.display());
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
