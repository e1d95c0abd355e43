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
}
