//! The HTML report: well-formed XHTML with inline SVG, its structure pinned as a
//! snapshot, and (with the `browser` feature) the page opened in headless
//! Chromium to check that the pictures are drawn where the layout puts them.

use simt_kernels::cli::{self, Command, Options};
use simt_kernels::html::charts::{self, CHART_W, PLOT_W};
use simt_kernels::html::{self, colors};
use simt_kernels::report::{self, Results};

fn options(args: &[&str]) -> Options {
    let mut all = vec!["--launches", "1"];
    all.extend_from_slice(args);
    match cli::parse(all) {
        Ok(Command::Run(o)) => o,
        other => panic!("{other:?}"),
    }
}

/// The page of the bank-conflict kernel and the reduction at wave32: between
/// them every kind of picture, and a divergent timeline.
fn page() -> String {
    html::report_page(&options(&[
        "--kernels",
        "reduce_i32,lds_conflict_heavy_i32",
        "--width",
        "32",
    ]))
}

const XHTML: &str = "http://www.w3.org/1999/xhtml";
const SVG: &str = "http://www.w3.org/2000/svg";

fn class<'a>(node: &roxmltree::Node<'a, '_>) -> &'a str {
    node.attribute("class").unwrap_or("")
}

/// `page` parsed, or a panic saying where it is not well-formed.
fn parse(page: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse_with_options(
        page,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("not well-formed: {e}"))
}

/// Checks that `doc` is XHTML whose pictures are inline SVG sized by their
/// view box, with nothing that runs or is fetched.
fn assert_self_contained(doc: &roxmltree::Document<'_>) {
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "html");
    assert_eq!(root.tag_name().namespace(), Some(XHTML));
    for node in doc.descendants().filter(|n| n.is_element()) {
        let name = node.tag_name().name();
        assert!(
            !["script", "link", "img", "iframe", "object"].contains(&name),
            "<{name}> in a self-contained page"
        );
        for a in node.attributes() {
            assert!(
                !a.value().contains("://") || a.name() == "xmlns",
                "{name} {}={}",
                a.name(),
                a.value()
            );
        }
        if name == "svg" {
            assert_eq!(node.tag_name().namespace(), Some(SVG));
            let viewbox: Vec<f64> = node
                .attribute("viewBox")
                .unwrap()
                .split(' ')
                .map(|v| v.parse().unwrap())
                .collect();
            assert_eq!(
                viewbox[2..],
                [
                    node.attribute("width").unwrap().parse::<f64>().unwrap(),
                    node.attribute("height").unwrap().parse::<f64>().unwrap()
                ]
            );
        }
    }
}

#[test]
fn the_page_is_well_formed_xhtml_with_inline_svg_and_nothing_external() {
    let page = page();
    let doc = parse(&page);
    assert_self_contained(&doc);
    // The summary gives each row's occupancy (the hardware in its title) and
    // its sanitizer findings (none).
    let summary = doc.descendants().find(|n| class(n) == "summary").unwrap();
    let rows: Vec<Vec<String>> = summary
        .children()
        .filter(|n| n.has_tag_name((XHTML, "tr")))
        .map(|tr| {
            tr.children()
                .filter(|c| c.is_element())
                .map(|c| {
                    c.descendants()
                        .filter(|t| t.is_text())
                        .filter_map(|t| t.text())
                        .collect()
                })
                .collect()
        })
        .collect();
    let column = |name: &str| {
        rows[0]
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no {name} in {rows:?}"))
    };
    let (occupancy, findings) = (column("occupancy"), column("findings"));
    assert_eq!(rows[2][occupancy], "32/64 lds");
    assert_eq!(rows[1][findings], "0");
    assert!(!page.contains("Sanitizer findings"));
    let sections: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name((XHTML, "section")))
        .collect();
    let ids: Vec<&str> = sections.iter().filter_map(|s| s.attribute("id")).collect();
    assert_eq!(ids, ["reduce_i32-wave32", "lds_conflict_heavy_i32-wave32"]);
    let heavy = sections[1];
    let svgs: Vec<&str> = heavy
        .descendants()
        .filter(|n| n.has_tag_name((SVG, "svg")))
        .map(|n| class(&n))
        .collect();
    // Timeline, the store's and the load's banks, the global store's lines.
    assert_eq!(svgs, ["timeline", "banks", "banks", "lines"]);
    // Exactly one bank is red in each bank picture: every lane is in bank 0.
    for banks in heavy
        .descendants()
        .filter(|n| class(n) == "banks" && n.has_tag_name((SVG, "svg")))
    {
        let red = banks
            .children()
            .filter(|n| n.attribute("fill") == Some(colors::CONFLICT))
            .count();
        assert_eq!(red, 1);
    }
    // The listing marks the conflicting lines and explains them.
    let hot = heavy
        .descendants()
        .filter(|n| n.has_tag_name((XHTML, "tr")) && class(n) == "hot")
        .count();
    assert_eq!(hot, 2);
    let hints: String = heavy
        .descendants()
        .filter(|n| n.has_tag_name((XHTML, "li")))
        .filter_map(|n| n.text())
        .collect();
    assert!(
        hints.contains("32 lanes ask bank 0 for 32 different words"),
        "{hints}"
    );
}

/// The element tree, with classes and ids, each SVG's children counted by
/// kind and each table's rows counted, so that the snapshot shows the page's
/// shape without every rectangle.
fn outline(node: roxmltree::Node<'_, '_>, depth: usize, out: &mut String) {
    let name = node.tag_name().name();
    let mut line = format!("{}{name}", "  ".repeat(depth));
    if let Some(id) = node.attribute("id") {
        line.push_str(&format!("#{id}"));
    }
    if !class(&node).is_empty() {
        line.push_str(&format!(".{}", class(&node)));
    }
    let children: Vec<_> = node.children().filter(|n| n.is_element()).collect();
    if name == "svg" || name == "table" || name == "ol" {
        let mut counts = std::collections::BTreeMap::new();
        for c in &children {
            *counts.entry(c.tag_name().name()).or_insert(0) += 1;
        }
        let counts: Vec<String> = counts.iter().map(|(k, v)| format!("{k}×{v}")).collect();
        out.push_str(&format!("{line} ({})\n", counts.join(", ")));
        return;
    }
    out.push_str(&line);
    out.push('\n');
    for c in children {
        outline(c, depth + 1, out);
    }
}

#[test]
fn the_page_structure_is_pinned() {
    let page = page();
    let doc = parse(&page);
    let mut out = String::new();
    outline(doc.root_element(), 0, &mut out);
    insta::with_settings!({ prepend_module_to_snapshot => false, snapshot_path => "../snapshots" }, {
        insta::assert_snapshot!("html__html_structure", out);
    });
}

#[test]
fn a_study_sections_structure_is_pinned() {
    let (_, page) = studies_page("transpose,kway");
    let doc = parse(&page);
    let mut out = String::new();
    for section in doc.descendants().filter(|n| class(n) == "study") {
        outline(section, 0, &mut out);
    }
    insta::with_settings!({ prepend_module_to_snapshot => false, snapshot_path => "../snapshots" }, {
        insta::assert_snapshot!("html__html_structure_studies", out);
    });
}

/// The studies `names` (all when empty) at wave32, without kernels, and their
/// page.
fn studies_page(names: &str) -> (Results, String) {
    let mut o = if names.is_empty() {
        options(&["--studies", "--width", "32"])
    } else {
        options(&["--studies", names, "--width", "32"])
    };
    o.kernels.clear();
    let results = report::run(&o);
    assert!(
        results.study_failures.is_empty(),
        "{:?}",
        results.study_failures
    );
    let page = html::render(&results, &o);
    (results, page)
}

/// The text under `node`, its pieces joined.
fn text(node: roxmltree::Node<'_, '_>) -> String {
    node.descendants()
        .filter(|t| t.is_text())
        .filter_map(|t| t.text())
        .collect()
}

/// The elements under `node` of class `class` (among others).
fn of_class<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
    class: &'a str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.descendants().filter(move |n| {
        n.attribute("class")
            .is_some_and(|c| c.split(' ').any(|w| w == class))
    })
}

/// The bars of kind `kind` (measured, stated, hardware) of a chart, as the
/// width of each rectangle and the text printed beside it.
fn bars(chart: roxmltree::Node<'_, '_>, kind: &str) -> Vec<(usize, String)> {
    of_class(chart, kind)
        .filter(|n| n.has_tag_name((SVG, "rect")))
        .map(|rect| {
            let beside = rect
                .next_sibling_element()
                .filter(|t| t.has_tag_name((SVG, "text")))
                .map(text)
                .unwrap_or_default();
            (rect.attribute("width").unwrap().parse().unwrap(), beside)
        })
        .collect()
}

#[test]
fn every_study_has_a_chart_per_figure_with_a_bar_per_variant_and_its_verdict() {
    let (results, page) = studies_page("");
    assert_eq!(results.studies.len(), simt_kernels::studies::STUDIES.len());
    let doc = parse(&page);
    assert_self_contained(&doc);
    for result in &results.studies {
        let id = format!("study-{}-wave32", result.study);
        let section = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id.as_str()))
            .unwrap_or_else(|| panic!("no section {id}"));
        let charts: Vec<_> = of_class(section, "chart")
            .filter(|n| n.has_tag_name((SVG, "svg")))
            .collect();
        let figures = charts::figures(result.study);
        assert!(!figures.is_empty(), "{id}");
        assert_eq!(charts.len(), figures.len(), "{id}");
        for (chart, figure) in charts.iter().zip(figures) {
            // A title for readers of the page without its pictures.
            let title = chart.first_element_child().unwrap();
            assert!(title.has_tag_name((SVG, "title")), "{id}");
            assert!(text(title).contains(figure.label), "{id}");
            let measured = bars(*chart, "measured");
            assert_eq!(
                measured.len(),
                result.variants.len(),
                "{id}: {}",
                figure.label
            );
            // Each variant's name beside its bars, its number beside its bar.
            let names: Vec<String> = of_class(*chart, "variant").map(text).collect();
            let variants: Vec<&str> = result.variants.iter().map(|v| v.name.as_str()).collect();
            assert_eq!(names, variants, "{id}");
            assert!(measured.iter().all(|(_, t)| !t.is_empty()), "{id}");
            // The longest bar spans the plot, unless every figure is 0.
            let longest = measured.iter().map(|(w, _)| *w).max().unwrap();
            let stated = bars(*chart, "stated");
            let longest = longest.max(stated.iter().map(|(w, _)| *w).max().unwrap_or(0));
            assert!(longest == PLOT_W || longest == 0, "{id}: {longest}");
            assert_eq!(chart.attribute("width"), Some(CHART_W.to_string().as_str()));
            if figure.stated_by.is_some() {
                assert_eq!(stated.len(), result.variants.len(), "{id}");
            } else {
                assert!(stated.is_empty(), "{id}");
            }
        }
        // The claim and whether it holds: every relation holds in every study.
        let claim = of_class(section, "claim").next().unwrap();
        assert_eq!(
            text(of_class(claim, "verdict").next().unwrap()),
            "holds",
            "{id}"
        );
        let rows: Vec<_> = of_class(section, "claims")
            .next()
            .unwrap()
            .children()
            .filter(|n| n.has_tag_name((XHTML, "tr")))
            .skip(1)
            .collect();
        assert_eq!(rows.len(), result.relations.len(), "{id}");
        for row in rows {
            let last = row.last_element_child().unwrap();
            assert_eq!(text(last), "holds", "{id}");
        }
    }
}

#[test]
fn the_k_way_chart_sets_the_papers_hardware_figures_beside_the_measured_ones() {
    let (_, page) = studies_page("kway,strided_read,transpose,atomics");
    let doc = parse(&page);
    let chart = |study: &str, n: usize| {
        let id = format!("study-{study}-wave32");
        let section = doc
            .descendants()
            .find(|s| s.attribute("id") == Some(id.as_str()))
            .unwrap();
        of_class(section, "chart")
            .filter(|c| c.has_tag_name((SVG, "svg")))
            .nth(n)
            .unwrap()
    };
    let texts = |bars: Vec<(usize, String)>| bars.into_iter().map(|(_, t)| t).collect::<Vec<_>>();
    let widths = |bars: Vec<(usize, String)>| bars.into_iter().map(|(w, _)| w).collect::<Vec<_>>();
    // A k-way split of a 32-lane wave runs 32/k lanes per issue in the region.
    let kway = chart("kway", 0);
    assert_eq!(
        texts(bars(kway, "measured")),
        ["32", "16", "8", "4", "2", "1"]
    );
    // 420 pixels for 32 lanes: 420 / k, rounded.
    assert_eq!(widths(bars(kway, "measured")), [420, 210, 105, 53, 26, 13]);
    assert_eq!(
        texts(bars(kway, "stated")),
        [
            "stated 32/1",
            "stated 32/2",
            "stated 32/4",
            "stated 32/8",
            "stated 32/16",
            "stated 32/32"
        ]
    );
    // The paper's hardware figures, as the seed quotes them.
    assert_eq!(
        texts(bars(kway, "hardware")),
        [
            "hardware 31.9",
            "hardware 16.2",
            "hardware 8.3",
            "hardware 4.25",
            "hardware 2.23",
            "hardware 1.21"
        ]
    );
    // Stride s reads 32 lanes × 4 bytes × s in 32-byte sectors: 4s, at most
    // one per lane.
    let strided = chart("strided_read", 0);
    assert_eq!(
        texts(bars(strided, "measured")),
        ["4", "8", "16", "32", "32", "32"]
    );
    assert_eq!(
        texts(bars(strided, "stated")),
        [
            "stated 4",
            "stated 8",
            "stated 16",
            "stated 32",
            "stated 32",
            "stated 32"
        ]
    );
    // A column read of a [32][32] tile: 31 extra cycles in each of 128 phases;
    // padded, none; the naive transpose uses no LDS.
    assert_eq!(
        texts(bars(chart("transpose", 0), "measured")),
        ["0", "3968", "0"]
    );
    // One counter: 31 lanes wait in each of 128 atomic phases; one per
    // workgroup: none wait.
    assert_eq!(texts(bars(chart("atomics", 0), "measured")), ["3968", "0"]);
}

#[test]
fn a_relation_that_fails_says_so_in_its_row_and_in_the_claim() {
    let mut o = options(&["--studies", "transpose", "--width", "32"]);
    o.kernels.clear();
    let mut results = report::run(&o);
    results.studies[0].relations[1].holds = false;
    let page = html::render(&results, &o);
    let doc = parse(&page);
    let section = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("study-transpose-wave32"))
        .unwrap();
    let verdict = of_class(section, "verdict").next().unwrap();
    assert_eq!(text(verdict), "does not hold");
    let verdicts: Vec<String> = of_class(section, "claims")
        .next()
        .unwrap()
        .children()
        .filter(|n| n.has_tag_name((XHTML, "tr")))
        .skip(1)
        .map(|row| text(row.last_element_child().unwrap()))
        .collect();
    assert_eq!(verdicts, ["holds", "does not hold", "holds"]);
}

#[test]
fn the_table_of_contents_links_every_section_and_every_link_resolves() {
    let mut o = options(&[
        "--kernels",
        "vecadd_i32",
        "--studies",
        "kway,atomics",
        "--width",
        "both",
    ]);
    let results = report::run(&o);
    let page = html::render(&results, &o);
    let doc = parse(&page);
    let ids: std::collections::BTreeSet<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    let toc = doc.descendants().find(|n| class(n) == "toc").unwrap();
    let links: Vec<&str> = toc
        .descendants()
        .filter(|n| n.has_tag_name((XHTML, "a")))
        .map(|a| a.attribute("href").unwrap().strip_prefix('#').unwrap())
        .collect();
    for link in &links {
        assert!(ids.contains(link), "#{link} leads nowhere");
    }
    let sections: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name((XHTML, "section")))
        .map(|n| n.attribute("id").unwrap())
        .collect();
    // Two kernel sections and two studies at two widths.
    assert_eq!(sections.len(), 2 + 4);
    let mut expected = vec!["summary"];
    expected.extend(&sections);
    assert_eq!(links, expected);
    o.studies.clear();
    assert!(!html::render(&report::run(&o), &o).contains("Studies"));
}

#[test]
fn a_short_kernels_timeline_is_drawn_at_a_readable_width() {
    // 9 issues per wave: 480 / 9 rounds up past the widest column, 24 pixels.
    assert_eq!(html::timeline_column(9), 24);
    assert_eq!(html::timeline_column(100), 5);
    assert_eq!(html::timeline_column(5000), 3);
    let page = html::report_page(&options(&[
        "--kernels",
        "lds_conflict_heavy_i32",
        "--width",
        "32",
    ]));
    let doc = parse(&page);
    let timeline = doc
        .descendants()
        .find(|n| class(n) == "timeline" && n.has_tag_name((SVG, "svg")))
        .unwrap();
    // The wave labels' 60 pixels, then the legend's 300 (wider than 9
    // columns of 24 pixels and a 4-pixel margin).
    assert_eq!(timeline.attribute("width"), Some("360"));
    // An axis under each of the 8 waves: its first tick at the first issue,
    // labelled with the kernel's first line.
    let axis: Vec<String> = timeline
        .descendants()
        .filter(|n| class(n) == "axis")
        .map(|n| text(n))
        .collect();
    assert_eq!(
        axis.iter().filter(|t| *t == &axis[0]).count(),
        8,
        "{axis:?}"
    );
    assert!(axis[0].starts_with('L'), "{axis:?}");
    let legend = timeline
        .descendants()
        .find(|n| class(n) == "legend")
        .unwrap();
    assert!(text(legend).contains("active lane"));
    let widest = timeline
        .children()
        .filter(|n| n.has_tag_name((SVG, "rect")))
        .map(|r| r.attribute("width").unwrap().parse::<usize>().unwrap())
        .max();
    assert_eq!(widest, Some(9 * 24));
}

/// The page drawn in headless Chromium: built with the `browser` feature
/// (`cargo test -p simt-kernels --features browser --test kernels html`), which
/// `.ci/run` turns on after installing Chromium.
#[cfg(feature = "browser")]
mod browser {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::process::Command as Process;

    /// The browser to run: `SIMT_CHROMIUM` if set, else the first of the usual names
    /// on the PATH.
    fn chromium() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("SIMT_CHROMIUM") {
            return Some(PathBuf::from(path));
        }
        let path = std::env::var_os("PATH")?;
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
            .find(|p| p.is_file())
    }

    /// The bounding box (left, top, right, bottom, inclusive) of the pixels within
    /// 8 of `color` in each channel, if any.
    fn bbox(image: &[u8], width: usize, color: &str) -> Option<(usize, usize, usize, usize)> {
        let hex = |i: usize| i32::from_str_radix(&color[i..i + 2], 16).unwrap();
        let (r, g, b) = (hex(1), hex(3), hex(5));
        let mut found: Option<(usize, usize, usize, usize)> = None;
        for (i, px) in image.chunks_exact(4).enumerate() {
            let near = (px[0] as i32 - r).abs() <= 8
                && (px[1] as i32 - g).abs() <= 8
                && (px[2] as i32 - b).abs() <= 8;
            if near {
                let (x, y) = (i % width, i / width);
                found = Some(match found {
                    None => (x, y, x, y),
                    Some((l, t, rr, bb)) => (l.min(x), t.min(y), rr.max(x), bb.max(y)),
                });
            }
        }
        found
    }

    /// A screenshot of `html` in a window 1400 pixels wide and `height` high, as
    /// RGBA pixels, its width and its height.
    fn screenshot(
        browser: &Path,
        html: &Path,
        png: &Path,
        height: usize,
    ) -> (Vec<u8>, usize, usize) {
        let result = Process::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
                "--force-color-profile=srgb",
            ])
            .arg(format!("--window-size=1400,{height}"))
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", html.display()))
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", browser.display()));
        assert!(
            png.is_file(),
            "{} made no screenshot: {}",
            browser.display(),
            String::from_utf8_lossy(&result.stderr)
        );
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        let rgba: Vec<u8> = match info.color_type {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            other => panic!("unexpected PNG colour type {other:?}"),
        };
        (rgba, info.width as usize, info.height as usize)
    }

    /// The browser, or a panic saying how to get one.
    fn browser() -> PathBuf {
        chromium().unwrap_or_else(|| {
            panic!(
                "this test needs headless Chromium and found none: install it \
                 (`apt-get install -y chromium` on Debian; .ci/run does) or point \
                 SIMT_CHROMIUM at the browser"
            )
        })
    }

    #[test]
    fn chromium_draws_the_pictures_where_the_layout_puts_them() {
        let browser = browser();
        let dir = std::env::temp_dir().join(format!("simt-html-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let html_path = dir.join("report.html");
        let png_path = dir.join("screenshot.png");
        let options = options(&["--kernels", "lds_conflict_heavy_i32", "--width", "32"]);
        std::fs::write(&html_path, html::report_page(&options)).unwrap();
        let (image, width, height) = screenshot(&browser, &html_path, &png_path, 2800);
        assert_eq!((width, height), (1400, 2800));

        // Not blank: text, table borders and pictures make many non-white pixels.
        let inked = image
            .chunks_exact(4)
            .filter(|p| p[0] < 200 || p[1] < 200 || p[2] < 200)
            .count();
        assert!(inked > 20_000, "only {inked} non-white pixels");

        // The timeline: 8 waves of 32 lanes of 2 pixels, 22 pixels apart (the
        // axis between), each wave issuing 9 instructions with every lane
        // active (24 pixels per issue, the widest column, for a short kernel);
        // above them the legend's 10-pixel swatch.
        let blocks = components(&image, width, colors::ACTIVE);
        let (swatch, waves) = blocks.split_first().expect("the timeline is drawn");
        assert_eq!((swatch.2 - swatch.0 + 1, swatch.3 - swatch.1 + 1), (10, 10));
        assert_eq!(waves.len(), 8, "{waves:?}");
        for (k, w) in waves.iter().enumerate() {
            assert_eq!((w.2 - w.0 + 1, w.3 - w.1 + 1), (9 * 24, 64), "{w:?}");
            assert_eq!(w.1 - waves[0].1, k * (64 + 22), "{waves:?}");
        }
        let active = (waves[0].0, waves[0].1, waves[7].2, waves[7].3);
        // Below it, the two bank pictures, each with one red bank (bank 0) in the
        // same column: one box wide.
        let conflict = bbox(&image, width, colors::CONFLICT).expect("the busiest bank is drawn");
        assert!(
            conflict.1 > active.3,
            "banks below the timeline: {conflict:?} {active:?}"
        );
        assert_eq!(conflict.2 - conflict.0 + 1, 14, "{conflict:?}");
        // Below those, the store's lines: 2 touched, the fewest possible, side by side.
        let touched = bbox(&image, width, colors::LINE).expect("the lines are drawn");
        let fewest = bbox(&image, width, colors::MINIMUM).expect("the minimum is drawn");
        assert!(
            touched.1 > conflict.3,
            "lines below the banks: {touched:?} {conflict:?}"
        );
        assert_eq!(touched.2 - touched.0 + 1, 16 + 14, "{touched:?}");
        assert_eq!(fewest.2 - fewest.0 + 1, 16 + 14, "{fewest:?}");
        assert!(fewest.1 > touched.3);
        // The pictures start at the same left edge as their figure's labels allow.
        assert_eq!(touched.0, fewest.0);
        assert_eq!(conflict.0, touched.0, "bank 0 and line 0 share a column");
        let _ = std::fs::copy(
            &png_path,
            std::env::temp_dir().join("simt-html-screenshot.png"),
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The bounding boxes (left, top, right, bottom, inclusive) of the 4-connected
    /// groups of pixels within 8 of `color`, top to bottom.
    fn components(image: &[u8], width: usize, color: &str) -> Vec<(usize, usize, usize, usize)> {
        let hex = |i: usize| i32::from_str_radix(&color[i..i + 2], 16).unwrap();
        let (r, g, b) = (hex(1), hex(3), hex(5));
        let near: Vec<bool> = image
            .chunks_exact(4)
            .map(|px| {
                (px[0] as i32 - r).abs() <= 8
                    && (px[1] as i32 - g).abs() <= 8
                    && (px[2] as i32 - b).abs() <= 8
            })
            .collect();
        let height = near.len() / width;
        let mut seen = vec![false; near.len()];
        let mut boxes = Vec::new();
        for start in 0..near.len() {
            if !near[start] || seen[start] {
                continue;
            }
            seen[start] = true;
            let mut stack = vec![start];
            let (mut l, mut t, mut rr, mut bb) = (usize::MAX, usize::MAX, 0, 0);
            while let Some(i) = stack.pop() {
                let (x, y) = (i % width, i / width);
                (l, t, rr, bb) = (l.min(x), t.min(y), rr.max(x), bb.max(y));
                let mut next = |j: usize| {
                    if near[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                };
                if x > 0 {
                    next(i - 1);
                }
                if x + 1 < width {
                    next(i + 1);
                }
                if y > 0 {
                    next(i - width);
                }
                if y + 1 < height {
                    next(i + width);
                }
            }
            boxes.push((l, t, rr, bb));
        }
        boxes.sort_by_key(|b| (b.1, b.0));
        boxes
    }

    #[test]
    fn chromium_draws_each_study_chart_in_its_own_frame_at_its_size() {
        let browser = browser();
        let dir = std::env::temp_dir().join(format!("simt-html-studies-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let html_path = dir.join("studies.html");
        let png_path = dir.join("studies.png");
        let (_, page) = studies_page("kway,transpose,atomics");
        std::fs::write(&html_path, &page).unwrap();
        // The charts' sizes, in page order, as the markup gives them.
        let doc = parse(&page);
        let sizes: Vec<(usize, usize)> = doc
            .descendants()
            .filter(|n| n.has_tag_name((SVG, "svg")) && class(n) == "chart")
            .map(|n| {
                let px = |a: &str| n.attribute(a).unwrap().parse::<usize>().unwrap();
                (px("width"), px("height"))
            })
            .collect();
        // Two figures each for transpose, atomics and kway.
        assert_eq!(sizes.len(), 6);
        let (image, width, height) = screenshot(&browser, &html_path, &png_path, 2600);
        assert_eq!((width, height), (1400, 2600));
        // Each chart's frame is one ring of its colour: its box is the chart's place
        // on the screen, and its size the size the markup asks for.
        let frames = components(&image, width, colors::FRAME);
        let placed: Vec<(usize, usize)> = frames
            .iter()
            .map(|f| (f.2 - f.0 + 1, f.3 - f.1 + 1))
            .collect();
        assert_eq!(placed, sizes, "{frames:?}");
        for (k, f) in frames.iter().enumerate() {
            assert!(
                f.2 < width && f.3 < height,
                "frame {k} leaves the page: {f:?}"
            );
            for (j, g) in frames.iter().enumerate().skip(k + 1) {
                let apart = f.2 < g.0 || g.2 < f.0 || f.3 < g.1 || g.3 < f.1;
                assert!(apart, "charts {k} and {j} overlap: {f:?} {g:?}");
            }
        }
        // Every chart draws measured bars inside its frame, and the paper's hardware
        // figures are drawn in the k-way chart only (the fifth, after transpose's and
        // atomics' two each).
        let inside = |color: &str, f: &(usize, usize, usize, usize)| {
            components(&image, width, color)
                .iter()
                .filter(|c| c.0 > f.0 && c.2 < f.2 && c.1 > f.1 && c.3 < f.3)
                .count()
        };
        for f in &frames {
            assert!(inside(colors::MEASURED, f) > 0, "{f:?}");
        }
        let hardware: Vec<usize> = frames.iter().map(|f| inside(colors::HARDWARE, f)).collect();
        // Six bars and the key's square.
        assert_eq!(hardware, [0, 0, 0, 0, 7, 0]);
        let _ = std::fs::copy(
            &png_path,
            std::env::temp_dir().join("simt-html-studies-screenshot.png"),
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
