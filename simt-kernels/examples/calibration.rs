//! Prints the timing model beside the H200's measurements: every row of
//! `calibration/h200/timings.csv`, or those whose name contains FILTER.
//!
//! ```text
//! cargo run --release -p simt-kernels --example calibration -- [--dir DIR] [FILTER]
//! ```
//!
//! `--dir DIR` takes the rows `calibration/run.sh DIR` measured on another
//! GPU (an H100 or H200) instead.
fn main() -> std::process::ExitCode {
    use simt_kernels::calibration;
    let mut args = std::env::args().skip(1);
    let mut filter = String::new();
    while let Some(arg) = args.next() {
        if arg == "--dir" {
            let Some(dir) = args.next() else {
                eprintln!("--dir takes the folder calibration/run.sh wrote");
                return std::process::ExitCode::FAILURE;
            };
            if let Err(e) = calibration::measure_from(std::path::Path::new(&dir)) {
                eprintln!("{e}");
                return std::process::ExitCode::FAILURE;
            }
        } else {
            filter = arg;
        }
    }
    let rows: Vec<_> = calibration::measured()
        .iter()
        .filter(|r| r.name().contains(&filter))
        .map(calibration::estimate)
        .collect();
    print!("{}", calibration::table(&rows));
    if filter.is_empty() {
        println!();
        print!("{}", calibration::counters_table(&rows));
    }
    // What the timed launches cost: warp instructions per second of wall
    // time, each launch on one thread.
    let (instructions, seconds) = rows.iter().flatten().fold((0.0, 0.0), |(i, s), b| {
        (i + b.simulated.0, s + b.simulated.1)
    });
    println!(
        "\nTimed launches: {:.1} M warp instructions in {seconds:.2} s, {:.2} M per second.",
        instructions / 1e6,
        instructions / seconds.max(1e-9) / 1e6
    );
    std::process::ExitCode::SUCCESS
}
