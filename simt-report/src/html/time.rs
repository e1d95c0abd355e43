//! A timed kernel's pictures: where its waves waited, line by line (a
//! stacked bar of stall cycles per source line, one colour per reason), and
//! its point on the part's roofline (issue slots per DRAM byte against issue
//! slots per cycle, under the DRAM and issue ceilings).

use super::esc;
use simt::core::{Listing, Stalls, Timing};
use std::fmt::Write as _;

/// A colour per stall reason, in the order of [`Stalls::NCU`].
pub const REASON_COLORS: [&str; 9] = [
    "#2f9e44", "#e03131", "#f08c00", "#ffa94d", "#ff8787", "#862e9c", "#1c7ed6", "#adb5bd",
    "#495057",
];

const LABEL_W: usize = 60;
const BARS_W: usize = 600;
const ROW_H: usize = 16;
const LEGEND_ROW: usize = 18;

/// The estimate in words, the stall bars per line and the roofline.
pub fn section(out: &mut String, t: &Timing, listing: &Listing) {
    let _ = writeln!(
        out,
        "<h3>Time on {}</h3>\n<p class=\"estimate\">{:.0} cycles ({:.2} us), limited by {}; DRAM {:.0}%, L2 {:.0}%, L1 {:.0}%, LDS {:.0}%, issue {:.0}% of peak; achieved occupancy {:.0}% (theoretical {:.0}%). The timing model is not calibrated against hardware.</p>",
        esc(&t.part),
        t.cycles,
        t.microseconds,
        t.bound().name(),
        100.0 * t.utilization.dram,
        100.0 * t.utilization.l2,
        100.0 * t.utilization.l1,
        100.0 * t.utilization.lds,
        100.0 * t.utilization.issue,
        100.0 * t.achieved_occupancy,
        100.0 * t.theoretical_occupancy,
    );
    stall_bars(out, listing);
    roofline(out, t);
}

/// One stacked bar per source line with stall cycles: the cycles its waves
/// spent before issuing the line's instructions, by reason.
pub fn stall_bars(out: &mut String, listing: &Listing) {
    let lines: Vec<(u32, Stalls)> = listing
        .lines
        .iter()
        .filter_map(|l| Some((l.line, l.stalls?)))
        .filter(|(_, s)| s.total() > 0.0)
        .collect();
    let max = lines.iter().map(|(_, s)| s.total()).fold(0.0, f64::max);
    if lines.is_empty() || max <= 0.0 {
        return;
    }
    let legend_rows = Stalls::NCU.len().div_ceil(3);
    let height = 24 + lines.len() * ROW_H + 10 + legend_rows * LEGEND_ROW;
    let width = LABEL_W + BARS_W + 90;
    let _ = writeln!(
        out,
        "<figure class=\"stalls\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"wave cycles per source line, by stall reason\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n<title>wave cycles per source line, by stall reason</title>"
    );
    let _ = writeln!(
        out,
        "<text x=\"4\" y=\"14\">line</text><text x=\"{LABEL_W}\" y=\"14\">wave cycles before the line's instructions issue (summed over waves)</text>"
    );
    let mut y = 24;
    for (line, s) in &lines {
        let _ = writeln!(
            out,
            "<text class=\"line\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{line}</text>",
            LABEL_W - 8,
            y + 11
        );
        let mut x = LABEL_W as f64;
        for (k, v) in s.values().iter().enumerate() {
            if *v <= 0.0 {
                continue;
            }
            let w = v / max * BARS_W as f64;
            let _ = writeln!(
                out,
                "<rect class=\"stall {}\" x=\"{x:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\"><title>line {line}: {} {:.0} cycles ({})</title></rect>",
                Stalls::NCU[k].0,
                ROW_H - 3,
                REASON_COLORS[k],
                Stalls::NCU[k].0,
                v,
                Stalls::NCU[k].1
            );
            x += w;
        }
        let _ = writeln!(
            out,
            "<text class=\"value\" x=\"{:.1}\" y=\"{}\">{:.0}</text>",
            x + 4.0,
            y + 11,
            s.total()
        );
        y += ROW_H;
    }
    y += 10;
    for (k, (name, ncu)) in Stalls::NCU.iter().enumerate() {
        let (col, row) = (k % 3, k / 3);
        let x = LABEL_W + col * 220;
        let ly = y + row * LEGEND_ROW;
        let _ = writeln!(
            out,
            "<rect class=\"key\" x=\"{x}\" y=\"{ly}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{name} ({ncu})</text>",
            REASON_COLORS[k],
            x + 14,
            ly + 9
        );
    }
    out.push_str("</svg>\n<figcaption>Stall cycles per source line, by reason; each reason's ncu warp state in parentheses.</figcaption>\n</figure>\n");
}

const ROOF_W: usize = 520;
const ROOF_H: usize = 300;
const MARGIN: usize = 56;

/// The part's roofline in issue slots: DRAM's slope (issue slots per byte
/// times bytes per cycle) up to the issue ceiling, on log axes, with the
/// launch's point.
pub fn roofline(out: &mut String, t: &Timing) {
    if t.dram_bytes <= 0.0 || t.cycles <= 0.0 || t.peak_issue <= 0.0 {
        return;
    }
    let intensity = t.issue_cycles / t.dram_bytes;
    let achieved = t.issue_cycles / t.cycles;
    let ridge = t.peak_issue / t.peak_dram_bytes;
    // Two decades either side of the ridge and of the point.
    let lo_x = (intensity.min(ridge) / 10.0).log10().floor();
    let hi_x = (intensity.max(ridge) * 10.0).log10().ceil();
    let hi_y = (t.peak_issue * 2.0).log10().ceil();
    let lo_y = (achieved.min(t.peak_dram_bytes * 10f64.powf(lo_x)) / 2.0)
        .log10()
        .floor();
    let px = |x: f64| MARGIN as f64 + (x.log10() - lo_x) / (hi_x - lo_x) * ROOF_W as f64;
    let py = |y: f64| 10.0 + (hi_y - y.log10()) / (hi_y - lo_y) * ROOF_H as f64;
    let (w, h) = (ROOF_W + MARGIN + 20, ROOF_H + 60);
    let _ = writeln!(
        out,
        "<figure class=\"roofline\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"roofline of {}\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n<title>roofline of {}</title>",
        esc(&t.part),
        esc(&t.part)
    );
    let _ = writeln!(
        out,
        "<rect x=\"{MARGIN}\" y=\"10\" width=\"{ROOF_W}\" height=\"{ROOF_H}\" fill=\"none\" stroke=\"#adb5bd\"/>"
    );
    for d in lo_x as i32..=hi_x as i32 {
        let x = px(10f64.powi(d));
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#dee2e6\"/><text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">1e{d}</text>",
            10,
            10 + ROOF_H,
            ROOF_H + 26
        );
    }
    for d in lo_y as i32..=hi_y as i32 {
        let y = py(10f64.powi(d));
        let _ = writeln!(
            out,
            "<line x1=\"{MARGIN}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#dee2e6\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">1e{d}</text>",
            MARGIN + ROOF_W,
            MARGIN - 4,
            y + 4.0
        );
    }
    // The roof: DRAM's slope below the ridge, the issue ceiling above.
    let x0 = 10f64.powf(lo_x);
    let x1 = 10f64.powf(hi_x);
    let _ = writeln!(
        out,
        "<polyline class=\"roof\" fill=\"none\" stroke=\"#e03131\" stroke-width=\"2\" points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\"/>",
        px(x0),
        py(x0 * t.peak_dram_bytes),
        px(ridge),
        py(t.peak_issue),
        px(x1),
        py(t.peak_issue)
    );
    let _ = writeln!(
        out,
        "<circle class=\"point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"#1c7ed6\"><title>this launch: {intensity:.3} issue cycles per DRAM byte, {achieved:.2} issue cycles per cycle</title></circle>",
        px(intensity),
        py(achieved)
    );
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">issue cycles per DRAM byte</text><text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">issue cycles per cycle</text>",
        MARGIN + ROOF_W / 2,
        ROOF_H + 46,
        10 + ROOF_H / 2,
        10 + ROOF_H / 2
    );
    let _ = writeln!(
        out,
        "</svg>\n<figcaption>Roofline of {}: DRAM at {:.1} bytes per cycle up to {} issue cycles per cycle (its schedulers); the point is the launch.</figcaption>\n</figure>",
        esc(&t.part),
        t.peak_dram_bytes,
        t.peak_issue
    );
}
