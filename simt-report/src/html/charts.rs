//! The studies as pictures: per study, its variants side by side on the figures
//! its claim is about (one horizontal bar per variant, its number beside it),
//! the seed's stated figure beside the measured one where the seed states one
//! per variant, and every relation with its stated figure drawn beside the
//! measured one and whether it holds.
//!
//! One function draws every study: what differs between studies is only which
//! figures they are about, declared once per study in [`figures`].

use super::{colors, esc};
use crate::results::{format_figure, Relation, StudyResult, VariantRow};
use simt::core::{Counters, Timing};
use std::fmt::Write as _;

/// Which counters of a variant a figure is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The whole launch.
    Totals,
    /// The region the claim is about (the totals' zero when a variant has none).
    Region,
    /// The timing model's estimate of the launch (zero without one).
    Time,
}

/// How a figure is computed.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// From the counters of the figure's scope.
    Counters(fn(&Counters) -> f64),
    /// From the timing model's estimate.
    Timing(fn(&Timing) -> f64),
}

/// One figure a study's chart draws for each of its variants.
#[derive(Clone, Copy, Debug)]
pub struct Figure {
    /// What the figure is, as the chart's title says it.
    pub label: &'static str,
    /// Where it is read.
    pub scope: Scope,
    /// How it is computed.
    pub value: Value,
    /// The start of the `what` of the relations that state this figure once per
    /// variant, in variant order; their stated figures are drawn beside the bars.
    pub stated_by: Option<&'static str>,
}

impl Figure {
    const fn new(label: &'static str, scope: Scope, value: fn(&Counters) -> f64) -> Self {
        Figure {
            label,
            scope,
            value: Value::Counters(value),
            stated_by: None,
        }
    }

    /// A figure of the timing model's estimate.
    pub const fn time(label: &'static str, value: fn(&Timing) -> f64) -> Self {
        Figure {
            label,
            scope: Scope::Time,
            value: Value::Timing(value),
            stated_by: None,
        }
    }

    const fn stated_by(mut self, prefix: &'static str) -> Self {
        self.stated_by = Some(prefix);
        self
    }

    /// The figure for `variant`.
    pub fn of(&self, variant: &VariantRow) -> f64 {
        let counters = match self.scope {
            Scope::Region => variant.region.unwrap_or_default(),
            Scope::Totals | Scope::Time => variant.stats,
        };
        match self.value {
            Value::Counters(f) => f(&counters),
            Value::Timing(f) => variant.timing.as_ref().map_or(0.0, f),
        }
    }

    /// The relations stating this figure for each variant, in variant order, when
    /// the study has one per variant.
    pub fn stated<'r>(&self, result: &'r StudyResult) -> Option<Vec<&'r Relation>> {
        let prefix = self.stated_by?;
        let relations: Vec<&Relation> = result
            .relations
            .iter()
            .filter(|r| r.what.starts_with(prefix))
            .collect();
        (relations.len() == result.variants.len()).then_some(relations)
    }
}

fn issues(c: &Counters) -> f64 {
    c.instructions as f64
}
fn lanes_per_issue(c: &Counters) -> f64 {
    c.simd_efficiency()
}
fn divergence_pct(c: &Counters) -> f64 {
    c.divergence_pct()
}
fn divergent_issues(c: &Counters) -> f64 {
    c.divergent_vector_instructions as f64
}
fn sectors(c: &Counters) -> f64 {
    c.global_sectors as f64
}
fn sectors_per_request(c: &Counters) -> f64 {
    if c.global_accesses == 0 {
        0.0
    } else {
        c.global_sectors as f64 / c.global_accesses as f64
    }
}
fn lines_per_request(c: &Counters) -> f64 {
    c.transactions_per_access()
}
fn dram_sectors(c: &Counters) -> f64 {
    c.dram_sectors as f64
}
fn l1_hit_rate(c: &Counters) -> f64 {
    c.l1_hit_rate()
}
fn conflict_cycles(c: &Counters) -> f64 {
    c.lds_conflict_cycles as f64
}
fn contention(c: &Counters) -> f64 {
    c.atomic_contention as f64
}
fn atomic_phases(c: &Counters) -> f64 {
    c.atomic_accesses as f64
}

use Scope::{Region, Totals};

const CYCLES: Figure = Figure::time("estimated cycles", |t| t.cycles);
const DRAM_SHARE: Figure = Figure::time("DRAM % of peak", |t| 100.0 * t.utilization.dram);
const LDS_SHARE: Figure = Figure::time("LDS % of peak", |t| 100.0 * t.utilization.lds);
const ISSUE_SHARE: Figure = Figure::time("issue slots busy %", |t| 100.0 * t.utilization.issue);
const OCCUPANCY: Figure = Figure::time("achieved occupancy %", |t| 100.0 * t.achieved_occupancy);
const REGION_ISSUES: Figure = Figure::new("issues in the region", Region, issues);
const REGION_LANES: Figure = Figure::new("lanes per issue in the region", Region, lanes_per_issue);

/// The figures each study's claim is about, in the order its chart draws them.
pub static FIGURES: &[(&str, &[Figure])] = &[
    ("divergent_paths", &[REGION_ISSUES, REGION_LANES]),
    ("switch32", &[REGION_ISSUES, REGION_LANES]),
    ("predication", &[REGION_ISSUES, REGION_LANES]),
    ("rare_branch", &[REGION_ISSUES]),
    (
        "mandelbrot",
        &[
            Figure::new("lanes per issue", Totals, lanes_per_issue),
            Figure::new("divergence %", Totals, divergence_pct),
            Figure::new("issues", Totals, issues),
        ],
    ),
    (
        "strided_read",
        &[
            Figure::new(
                "sectors per request in the region",
                Region,
                sectors_per_request,
            )
            .stated_by("sectors per request, stride "),
            Figure::new("DRAM sectors in the region", Region, dram_sectors),
        ],
    ),
    (
        "eight_per_thread",
        &[
            Figure::new("sectors requested in the region", Region, sectors),
            Figure::new("DRAM sectors in the region", Region, dram_sectors),
            Figure::new("L1 hit rate in the region", Region, l1_hit_rate),
        ],
    ),
    (
        "grayscale",
        &[
            Figure::new(
                "sectors per request in the region",
                Region,
                sectors_per_request,
            ),
            Figure::new("DRAM sectors in the region", Region, dram_sectors),
            Figure::new("L1 hit rate in the region", Region, l1_hit_rate),
        ],
    ),
    (
        "embedding_bag",
        &[
            Figure::new("sectors requested in the region", Region, sectors),
            Figure::new("DRAM sectors in the region", Region, dram_sectors),
        ],
    ),
    (
        "transpose",
        &[
            Figure::new("LDS conflict cycles", Totals, conflict_cycles),
            Figure::new("sectors per request", Totals, sectors_per_request),
        ],
    ),
    (
        "aos_soa",
        &[Figure::new(
            "sectors requested in the region",
            Region,
            sectors,
        )],
    ),
    (
        "misaligned",
        &[
            Figure::new("lines per request in the region", Region, lines_per_request),
            Figure::new(
                "sectors per request in the region",
                Region,
                sectors_per_request,
            ),
        ],
    ),
    (
        "atomics",
        &[
            Figure::new("atomic contention", Totals, contention),
            Figure::new("atomic phases", Totals, atomic_phases),
        ],
    ),
    (
        "reduction_ladder",
        &[
            Figure::new("divergent vector issues", Totals, divergent_issues),
            Figure::new("LDS conflict cycles", Totals, conflict_cycles),
            Figure::new("lanes per issue", Totals, lanes_per_issue),
        ],
    ),
    ("wave_tree", &[REGION_ISSUES, REGION_LANES]),
    (
        "kway",
        &[
            REGION_LANES.stated_by("lanes per issue in region, "),
            REGION_ISSUES,
        ],
    ),
    ("occupancy_invariance", &[REGION_ISSUES, REGION_LANES]),
    (
        "warp_split_time",
        &[CYCLES, Figure::new("issues", Totals, issues)],
    ),
    ("kway_time", &[CYCLES, ISSUE_SHARE]),
    (
        "predication_time",
        &[CYCLES, Figure::new("issues", Totals, issues)],
    ),
    ("occupancy_time", &[CYCLES, OCCUPANCY]),
    (
        "l1_trio_time",
        &[
            CYCLES,
            DRAM_SHARE,
            Figure::new("sectors requested", Totals, sectors),
        ],
    ),
    ("saxpy_time", &[DRAM_SHARE, ISSUE_SHARE]),
    ("occupancy_hiding", &[CYCLES, OCCUPANCY, DRAM_SHARE]),
    ("conflict_time", &[CYCLES, LDS_SHARE]),
    (
        "atomics_time",
        &[CYCLES, Figure::new("atomic contention", Totals, contention)],
    ),
];

/// The figures of `study`; none for a study [`FIGURES`] does not list (a test
/// keeps it complete).
pub fn figures(study: &str) -> &'static [Figure] {
    FIGURES
        .iter()
        .find(|(name, _)| *name == study)
        .map_or(&[], |(_, f)| f)
}

/// How a stated figure bounds the measured one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The measured figure should equal it.
    Equal,
    /// Below it (`< 1`).
    Below,
    /// Above it (`> 0`).
    Above,
    /// At most it (`up to 8`).
    AtMost,
}

/// The number a relation's stated text leads with, e.g. 32 for `32/1 (hardware
/// 31.9)`, 2 for `2:1`, 0.875 for `7/8`, a bound of 1 for `< 1`; `None` when it
/// leads with no number.
pub fn stated_figure(text: &str) -> Option<(Bound, f64)> {
    let text = text.trim();
    let (bound, rest) = if let Some(rest) = text.strip_prefix('<') {
        (Bound::Below, rest)
    } else if let Some(rest) = text.strip_prefix('>') {
        (Bound::Above, rest)
    } else if let Some(rest) = text.strip_prefix("up to") {
        (Bound::AtMost, rest)
    } else {
        (Bound::Equal, text)
    };
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '/' | ':')))
        .unwrap_or(rest.len());
    let number = &rest[..end];
    let value = match number.split_once(['/', ':']) {
        Some((a, b)) => a.parse::<f64>().ok()? / b.parse::<f64>().ok()?,
        None => number.parse().ok()?,
    };
    value.is_finite().then_some((bound, value))
}

/// The figure measured on hardware that a stated text quotes, e.g. 31.9 for
/// `32/1 (hardware 31.9)`; `None` without one, or for a range (`28-31x`).
pub fn hardware_figure(text: &str) -> Option<f64> {
    let rest = &text[text.find("hardware ")? + "hardware ".len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    if rest[end..].starts_with('-') {
        return None;
    }
    rest[..end].parse().ok()
}

/// The anchor of a study's section.
pub fn anchor(result: &StudyResult) -> String {
    format!("study-{}-wave{}", result.study, result.width)
}

/// The title of a study's section, as the table of contents lists it.
pub fn title(result: &StudyResult) -> String {
    format!("{}, wave{}", result.study, result.width)
}

/// The width of a chart: variant names, then the bars, then room for the
/// longest number printed beside a bar.
pub const CHART_W: usize = 760;
const NAMES_W: usize = 150;
/// The length of a chart's longest bar.
pub const PLOT_W: usize = 420;
const BAR_H: usize = 12;
const BAR_STEP: usize = 14;
const GROUP_GAP: usize = 8;
const TITLE_H: usize = 22;
const LEGEND_H: usize = 22;

/// One study's section: its claim and whether it holds, a chart per figure,
/// and its relations, stated beside measured.
pub fn study_section(out: &mut String, result: &StudyResult) {
    let holds = result.relations.iter().all(|r| r.holds);
    let _ = writeln!(
        out,
        "<section class=\"study\" id=\"{}\">\n<h2>Study {}</h2>",
        anchor(result),
        esc(&title(result))
    );
    let _ = writeln!(
        out,
        "<p class=\"claim\">seed {}: {} <strong class=\"verdict{}\">{}</strong></p>",
        esc(result.source),
        esc(result.claim),
        if holds { "" } else { " fail" },
        if holds { "holds" } else { "does not hold" }
    );
    if !result.passed && holds {
        out.push_str(
            "<p class=\"fail\">A variant differs from its oracle or has a sanitizer finding.</p>\n",
        );
    }
    for figure in figures(result.study) {
        chart(out, result, figure);
    }
    claims(out, result);
    out.push_str("</section>\n");
}

/// One bar of a chart: its class, colour, value and the text printed beside it.
struct Bar {
    class: &'static str,
    color: &'static str,
    value: f64,
    text: String,
}

fn chart(out: &mut String, result: &StudyResult, figure: &Figure) {
    let stated = figure.stated(result);
    let groups: Vec<(&str, Vec<Bar>)> = result
        .variants
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let value = figure.of(v);
            let mut bars = vec![Bar {
                class: "bar measured",
                color: colors::MEASURED,
                value,
                text: format_figure(value),
            }];
            if let Some(r) = stated.as_ref().map(|s| s[k]) {
                if let Some((_, value)) = stated_figure(&r.stated) {
                    let lead = r.stated.split('(').next().unwrap_or("").trim();
                    bars.push(Bar {
                        class: "bar stated",
                        color: colors::STATED,
                        value,
                        text: format!("stated {lead}"),
                    });
                }
                if let Some(value) = hardware_figure(&r.stated) {
                    bars.push(Bar {
                        class: "bar hardware",
                        color: colors::HARDWARE,
                        value,
                        // As the seed writes it: 4.25, not 4.250.
                        text: format!("hardware {value}"),
                    });
                }
            }
            (v.name.as_str(), bars)
        })
        .collect();
    let max = groups
        .iter()
        .flat_map(|(_, bars)| bars.iter().map(|b| b.value))
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    let scale = if max > 0.0 { PLOT_W as f64 / max } else { 0.0 };
    let bars_h: usize = groups
        .iter()
        .map(|(_, bars)| bars.len() * BAR_STEP + GROUP_GAP)
        .sum();
    let legend = groups.iter().any(|(_, bars)| bars.len() > 1);
    let height = TITLE_H + bars_h + if legend { LEGEND_H } else { 4 };
    let label = format!("{}: {} per variant", result.study, figure.label);
    let _ = writeln!(
        out,
        "<figure class=\"chart\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" aria-label=\"{}\" width=\"{CHART_W}\" height=\"{height}\" viewBox=\"0 0 {CHART_W} {height}\">",
        esc(&label)
    );
    let _ = writeln!(out, "<title>{}</title>", esc(&label));
    let _ = writeln!(
        out,
        "<rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\"/>",
        CHART_W - 1,
        height - 1,
        colors::FRAME
    );
    let _ = writeln!(
        out,
        "<text class=\"heading\" x=\"8\" y=\"15\">{}</text>",
        esc(figure.label)
    );
    let mut y = TITLE_H;
    for (name, bars) in &groups {
        let group_h = bars.len() * BAR_STEP;
        let _ = writeln!(
            out,
            "<text class=\"variant\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            NAMES_W - 6,
            y + group_h / 2 + 3,
            esc(name)
        );
        for bar in bars {
            let w = if bar.value.is_finite() {
                (bar.value.max(0.0) * scale).round() as usize
            } else {
                0
            };
            let _ = writeln!(
                out,
                "<rect class=\"{}\" x=\"{NAMES_W}\" y=\"{y}\" width=\"{w}\" height=\"{BAR_H}\" fill=\"{}\"/>",
                bar.class, bar.color
            );
            let _ = writeln!(
                out,
                "<text class=\"value\" x=\"{}\" y=\"{}\">{}</text>",
                NAMES_W + w + 4,
                y + BAR_H - 2,
                esc(&bar.text)
            );
            y += BAR_STEP;
        }
        y += GROUP_GAP;
    }
    if legend {
        let mut x = NAMES_W;
        let drawn = |class: &str| {
            groups
                .iter()
                .any(|(_, bars)| bars.iter().any(|b| b.class == class))
        };
        for (class, name, color) in [
            ("bar measured", "measured", colors::MEASURED),
            ("bar stated", "stated by the seed", colors::STATED),
            (
                "bar hardware",
                "measured on hardware by the seed",
                colors::HARDWARE,
            ),
        ] {
            if !drawn(class) {
                continue;
            }
            let _ = writeln!(
                out,
                "<rect class=\"key\" x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{color}\"/><text x=\"{}\" y=\"{}\">{name}</text>",
                y + 2,
                x + 14,
                y + 11
            );
            x += 14 + name.len() * 6 + 16;
        }
    }
    out.push_str("</svg>\n");
    let _ = writeln!(
        out,
        "<figcaption>{} ({}), one bar per variant{}</figcaption>\n</figure>",
        esc(figure.label),
        match figure.scope {
            Scope::Totals => "whole launch",
            Scope::Region => "the region the claim is about",
            Scope::Time => "the timing model's estimate",
        },
        if stated.is_some() {
            "; the seed's figure beside each"
        } else {
            ""
        }
    );
}

const PAIR_W: usize = 220;
const PAIR_BAR: usize = 130;
const PAIR_H: usize = 30;

/// The relations as a table: what is compared, the stated and the measured
/// figure, the two drawn side by side, and whether the claim holds.
fn claims(out: &mut String, result: &StudyResult) {
    out.push_str(
        "<table class=\"claims\">\n<tr><th class=\"text\">relation</th><th>stated</th><th>measured</th><th class=\"text\">measured beside stated</th><th class=\"text\">claim</th></tr>\n",
    );
    for r in &result.relations {
        let _ = write!(
            out,
            "<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td class=\"pair\">",
            esc(&r.what),
            esc(&r.stated),
            format_figure(r.measured)
        );
        if let Some(stated) = stated_figure(&r.stated) {
            pair(out, r, stated);
        }
        let _ = writeln!(
            out,
            "</td><td class=\"text{}\">{}</td></tr>",
            if r.holds { " holds" } else { " fail" },
            if r.holds { "holds" } else { "does not hold" }
        );
    }
    out.push_str("</table>\n");
}

/// The measured figure as a bar above the stated one: a bar for a figure, a
/// line for a bound, both on the larger one's scale.
fn pair(out: &mut String, r: &Relation, (bound, stated): (Bound, f64)) {
    let max = if r.measured.is_finite() {
        r.measured.abs().max(stated.abs())
    } else {
        stated.abs()
    };
    let scale = if max > 0.0 {
        PAIR_BAR as f64 / max
    } else {
        0.0
    };
    let len = |v: f64| {
        if v.is_finite() {
            (v.max(0.0) * scale).round() as usize
        } else {
            0
        }
    };
    let (m, s) = (len(r.measured), len(stated));
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pair\" role=\"img\" aria-label=\"measured {} beside stated {}\" width=\"{PAIR_W}\" height=\"{PAIR_H}\" viewBox=\"0 0 {PAIR_W} {PAIR_H}\">",
        format_figure(r.measured),
        esc(&r.stated)
    );
    let _ = write!(
        out,
        "<rect class=\"bar measured\" x=\"0\" y=\"2\" width=\"{m}\" height=\"11\" fill=\"{}\"/><text x=\"{}\" y=\"11\">{}</text>",
        colors::MEASURED,
        m + 4,
        format_figure(r.measured)
    );
    let lead = r.stated.split('(').next().unwrap_or("").trim();
    if bound == Bound::Equal {
        let _ = write!(
            out,
            "<rect class=\"bar stated\" x=\"0\" y=\"16\" width=\"{s}\" height=\"11\" fill=\"{}\"/>",
            colors::STATED
        );
    } else {
        let _ = write!(
            out,
            "<line class=\"bound stated\" x1=\"{x}\" y1=\"0\" x2=\"{x}\" y2=\"{PAIR_H}\" stroke=\"{}\" stroke-width=\"2\"/>",
            colors::STATED,
            x = s.max(1)
        );
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"25\">{}</text></svg>",
        s + 4,
        esc(lead)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stated_figure_is_read_from_its_leading_number() {
        assert_eq!(
            stated_figure("32/1 (hardware 31.9)"),
            Some((Bound::Equal, 32.0))
        );
        assert_eq!(
            stated_figure("2:1 (1.97x in time)"),
            Some((Bound::Equal, 2.0))
        );
        assert_eq!(
            stated_figure("7/8 (seven of eight)"),
            Some((Bound::Equal, 0.875))
        );
        assert_eq!(
            stated_figure("< 1 (scattered worst)"),
            Some((Bound::Below, 1.0))
        );
        assert_eq!(
            stated_figure("> 0 (bank conflicts)"),
            Some((Bound::Above, 0.0))
        );
        assert_eq!(
            stated_figure("up to 8 (a sector)"),
            Some((Bound::AtMost, 8.0))
        );
        assert_eq!(stated_figure("31 (32-way)"), Some((Bound::Equal, 31.0)));
        assert_eq!(stated_figure("every lane"), None);
        assert_eq!(stated_figure("1/0"), None);
    }

    #[test]
    fn a_hardware_figure_is_read_unless_it_is_a_range() {
        assert_eq!(hardware_figure("32/2 (hardware 16.2)"), Some(16.2));
        assert_eq!(
            hardware_figure("2:1 (hardware 2.00x within 0.5%)"),
            Some(2.0)
        );
        assert_eq!(hardware_figure("32 (hardware 28-31x)"), None);
        assert_eq!(hardware_figure("8 (1 : 8 : 8)"), None);
    }
}
