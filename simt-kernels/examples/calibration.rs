//! Prints the timing model beside the H200's measurements.
fn main() {
    let rows = simt_kernels::calibration::beside_all();
    print!("{}", simt_kernels::calibration::table(&rows));
}
