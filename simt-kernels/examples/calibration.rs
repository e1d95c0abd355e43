//! Prints the timing model beside the H200's measurements: every row of
//! `calibration/h200/timings.csv`, or those whose name contains the
//! argument.
fn main() {
    use simt_kernels::calibration;
    let filter = std::env::args().nth(1).unwrap_or_default();
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
}
