//! The timing model beside the H200: every row of
//! `calibration/h200/timings.csv` estimated from nvcc's PTX of the same
//! CUDA kernels, its validation error bounded so that a change that worsens
//! the fit fails here.

use simt_kernels::calibration::{self, FITTED_ON};

/// The validation rows' mean absolute error may not grow past this.
const MEAN_BOUND: f64 = 0.085;
/// Nor may any validation row's error.
const WORST_BOUND: f64 = 0.35;

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
    counters_equal_ncus(&rows);
}

/// The counters simt keeps exactly, beside Nsight Compute's for the same
/// launch: global load requests and sectors on every row (the cuts scale
/// them back to the launch, so within 0.01%), and the SASS instruction
/// count on the rows whose loops ptxas unrolls (ncu counts SASS, simt the
/// PTX with those loops unrolled as ptxas unrolls them).
fn counters_equal_ncus(rows: &[Result<calibration::Beside, calibration::LeftOut>]) {
    let near = |a: f64, b: f64, tolerance: f64| (a - b).abs() <= tolerance * b.max(1.0);
    let mut compared = 0;
    for (i, r) in rows.iter().enumerate() {
        let (Ok(b), Some(n)) = (r, calibration::ncu(calibration::ncu_launch(i))) else {
            continue;
        };
        let c = &b.counted;
        let name = b.row.name();
        assert!(
            near(c.load_requests, n.load_requests, 1e-4),
            "{name}: requests {c:?} {n:?}"
        );
        assert!(
            near(c.load_sectors, n.load_sectors, 1e-4),
            "{name}: sectors {c:?} {n:?}"
        );
        if ["divergence", "branch_split"]
            .iter()
            .any(|s| name.starts_with(s))
        {
            assert!(
                near(c.instructions, n.instructions, 0.005),
                "{name}: instructions {c:?} {n:?}"
            );
        }
        compared += 1;
    }
    assert_eq!(compared, rows.len());
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

#[test]
fn another_gpus_rows_run_on_the_part_its_device_line_names() {
    let (part, sms) = calibration::device_part(calibration::TIMINGS).unwrap();
    assert_eq!((part.name.as_ref(), sms), ("h200-sxm", 132));
    let h100 = "# device,NVIDIA H100 80GB HBM3,sms=132,l2_bytes=52428800\nstudy,kernel\n";
    let (part, sms) = calibration::device_part(h100).unwrap();
    assert_eq!((part.name.as_ref(), sms), ("h100-sxm", 132));
    // An H100 PCIe is not the SXM part simt has; an A100 is no part at all.
    let pcie = "# device,NVIDIA H100 PCIe,sms=114,l2_bytes=52428800\n";
    assert!(calibration::device_part(pcie)
        .unwrap_err()
        .contains("114 SMs"));
    let a100 = "# device,NVIDIA A100-SXM4-80GB,sms=108\n";
    assert!(calibration::device_part(a100).unwrap_err().contains("A100"));
    assert!(calibration::device_part("study,kernel\n").is_err());
}
