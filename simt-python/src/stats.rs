//! A launch's statistics: the row the `simt` command's JSON holds for it,
//! read from Python, written as the HTML report.

use crate::record::{to_object, Record};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use simt::core::{LaunchConfig, Program};
use simt_report::args::DEFAULT_SEED;
use simt_report::results::{self, Results};
use simt_report::{html, metrics, sweep};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What a launch counted. `to_dict()` is the `simt` command's JSON for the
/// launch (`simt run --json`), one schema with its `version`; the attributes
/// are its row's fields (`counters`, `listing`, `findings`, `occupancy`,
/// `estimate`, ...) as objects with `to_dict()`.
#[pyclass(module = "simt", frozen)]
pub struct Stats {
    kernel: Arc<simt::core::Kernel>,
    config: LaunchConfig,
    results: Results,
    json: serde_json::Value,
}

impl Stats {
    /// The statistics of a launch of `kernel`; `source`, for a kernel
    /// lowered from PTX, is the text its lines number, which its listing
    /// shows.
    pub fn new(
        kernel: Arc<simt::core::Kernel>,
        source: Option<&str>,
        config: &LaunchConfig,
        stats: simt::core::Stats,
        elapsed: Duration,
    ) -> Stats {
        let program = kernel.program();
        let mut row = results::row(&program.name, program, config, stats, &mut [elapsed]);
        if let Some(source) = source {
            row.listing.set_source(source);
        }
        let results = Results {
            version: env!("CARGO_PKG_VERSION"),
            seed: DEFAULT_SEED,
            model: config.model.clone(),
            schedule: config.schedule,
            metrics: metrics::METRICS,
            rows: vec![row],
            failures: Vec::new(),
            studies: Vec::new(),
            study_failures: Vec::new(),
        };
        let json = serde_json::to_value(&results).unwrap_or_default();
        Stats {
            kernel,
            config: config.clone(),
            results,
            json,
        }
    }

    fn row(&self) -> &serde_json::Value {
        &self.json["rows"][0]
    }

    fn program(&self) -> &Program {
        self.kernel.program()
    }

    fn page(&self) -> String {
        let program = self.program();
        html::render_with(&self.results, 1, &|name: &str| {
            (name == program.name).then_some(program)
        })
    }
}

#[pymethods]
impl Stats {
    /// The launch's totals: `instructions`, `divergent_branches`,
    /// `lds_bank_conflicts`, `global_transactions`, ...
    #[getter]
    fn counters(&self) -> Record {
        Record::new(serde_json::to_value(self.results.rows[0].totals).unwrap_or_default())
    }

    /// The static facts of the kernel's memory instructions beside what the
    /// launch measured, per source line that has any: records of `line`,
    /// `text` and `facts` (`"LDS conflicts: predicted 32-way, measured
    /// 32-way"`).
    #[getter]
    fn facts(&self) -> Vec<Record> {
        let lines = self.row()["listing"]["lines"].as_array();
        lines
            .into_iter()
            .flatten()
            .filter(|line| line.get("facts").is_some())
            .map(|line| {
                Record::new(serde_json::json!({
                    "line": line["line"],
                    "text": line["text"],
                    "facts": line["facts"],
                }))
            })
            .collect()
    }

    /// The timing model's estimate (`cycles`, `microseconds`, `stalls`,
    /// `utilization`, ...) when the launch named a part, else `None`.
    #[getter]
    fn estimate(&self) -> Option<Record> {
        self.row().get("estimate").cloned().map(Record::new)
    }

    /// What limits the launch by the timing model's estimate (`"DRAM"`,
    /// `"L2"`, `"L1"`, `"LDS"`, `"issue"`, `"atomics"` or `"latency"`) when
    /// the launch named a part, else `None`.
    #[getter]
    fn limited_by(&self) -> Option<&'static str> {
        let estimate = self.results.rows[0].estimate.as_ref();
        estimate.map(|t| t.bound().name())
    }

    /// The sweep record of this launch at `point` (`simt_report::sweep`'s,
    /// the shape `simt sweep` writes): the launch's kernel, shape, options
    /// and counts, and the point's other values (as `point.NAME` where a
    /// field has their name).
    fn _sweep_record<'py>(
        &self,
        py: Python<'py>,
        point: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let row = &self.results.rows[0];
        let head = sweep::Point {
            kernel: &self.program().name,
            groups: self.config.grid,
            size: self.config.workgroup,
            wave_width: self.config.wave_width,
            model: &self.config.model.name,
            part: self.config.timing.as_ref().map(|p| p.name.as_ref()),
        };
        let counted = sweep::Counted {
            workgroups: row.workgroups,
            waves: row.waves,
            totals: &row.totals,
            estimate: row.estimate.as_ref(),
        };
        let fields = sweep::record(&head, [], Ok(counted));
        let record = PyDict::new(py);
        for (k, v) in &fields {
            record.set_item(k, to_object(py, v, false)?)?;
        }
        for (k, v) in point.iter() {
            let name: String = k.extract()?;
            // The launch's own options are its fields already.
            if matches!(name.as_str(), "wave_width" | "model" | "part") {
                continue;
            }
            record.set_item(sweep::value_key(&fields, &name), v)?;
        }
        Ok(record)
    }

    /// Any field of the launch's row, as the JSON names it.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match self.row().get(name) {
            Some(v) => to_object(py, v, true),
            None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "no field `{name}`"
            ))),
        }
    }

    /// The whole result, in the schema of the `simt` command's JSON.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_object(py, &self.json, false)
    }

    /// Writes the HTML report of the launch to `path`.
    fn html(&self, path: PathBuf) -> PyResult<()> {
        html::write_page(&self.page(), &path)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))
    }

    /// The HTML report, which Jupyter shows.
    fn _repr_html_(&self) -> String {
        self.page()
    }

    fn __repr__(&self) -> String {
        let t = &self.results.rows[0].totals;
        format!(
            "<simt.Stats {}: {} instructions, {} workgroups>",
            self.program().name,
            t.instructions,
            self.results.rows[0].workgroups
        )
    }
}
