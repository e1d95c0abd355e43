//! The timing model beside the H200: every row of
//! `calibration/h200/timings.csv` estimated from nvcc's PTX of the same
//! CUDA kernels, its validation error bounded so that a change that worsens
//! the fit fails here.

use simt_kernels::calibration::{self, FITTED_ON};

/// The validation rows' mean absolute error may not grow past this.
const MEAN_BOUND: f64 = 0.14;
/// Nor may any validation row's error.
const WORST_BOUND: f64 = 0.55;

#[test]
fn every_row_is_estimated_within_the_bounds() {
    let rows = calibration::beside_all();
    println!("{}", calibration::table(&rows));
    let left: Vec<String> = rows
        .iter()
        .filter_map(|r| r.as_ref().err().map(ToString::to_string))
        .collect();
    assert!(left.is_empty(), "rows left out: {left:?}");
    // Every row of the file: 46 launch shapes.
    assert_eq!(rows.len(), 46);
    let (fitted, validation) = calibration::split(&rows);
    assert_eq!(fitted.len(), FITTED_ON.len());
    let mean = calibration::mean_abs_error(&validation);
    let worst = calibration::worst_error(&validation);
    assert!(mean <= MEAN_BOUND, "validation mean absolute error {mean}");
    assert!(worst <= WORST_BOUND, "worst validation error {worst}");
    // The limiters the hardware's counters name: DRAM for the streams, the
    // LDS for the conflicted transposes, one address for the counter.
    let bound = |name: &str| {
        rows.iter()
            .filter_map(|r| r.as_ref().ok())
            .find(|b| b.row.name() == name)
            .map(|b| b.bound)
            .unwrap()
    };
    use simt::core::Bound;
    assert_eq!(bound("saxpy/saxpy/n=2^28"), Bound::Dram);
    assert_eq!(bound("transpose/conflicted/rep=16"), Bound::Lds);
    assert_eq!(bound("atomics/one_counter/n=1.67772e+07"), Bound::Atomics);
}

#[test]
fn a_loop_row_is_affine_in_its_trip_count() {
    // The loop rows are estimated from 256 and 512 trips: a third point,
    // 1,024, lies on their line within 1%.
    let row = calibration::measured()
        .into_iter()
        .find(|r| r.name() == "divergence/diverge/k=4")
        .unwrap();
    assert_eq!(
        calibration::affine_in_trip_count(&row, 1024, 0.01),
        Ok(true)
    );
}
