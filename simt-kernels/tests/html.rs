//! The HTML report: well-formed XHTML with inline SVG, its structure pinned as a
//! snapshot, and the page opened in headless Chromium to check that the
//! pictures are drawn where the layout puts them.

use simt_kernels::cli::{self, Command, Options};
use simt_kernels::html::{self, colors};
use std::path::{Path, PathBuf};
use std::process::Command as Process;

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

#[test]
fn the_page_is_well_formed_xhtml_with_inline_svg_and_nothing_external() {
    let page = page();
    let doc = roxmltree::Document::parse_with_options(
        &page,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("not well-formed: {e}"));
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
    let doc = roxmltree::Document::parse_with_options(
        &page,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut out = String::new();
    outline(doc.root_element(), 0, &mut out);
    insta::assert_snapshot!("html_structure", out);
}

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

fn screenshot(browser: &Path, html: &Path, png: &Path) -> (Vec<u8>, usize, usize) {
    let result = Process::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--force-color-profile=srgb",
            "--window-size=1400,1600",
        ])
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

#[test]
fn chromium_draws_the_pictures_where_the_layout_puts_them() {
    let Some(browser) = chromium() else {
        panic!(
            "this test needs headless Chromium and found none: install it \
             (`apt-get install -y chromium` on Debian; .ci/run does) or point \
             SIMT_CHROMIUM at the browser"
        );
    };
    let dir = std::env::temp_dir().join(format!("simt-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html_path = dir.join("report.html");
    let png_path = dir.join("screenshot.png");
    let options = options(&["--kernels", "lds_conflict_heavy_i32", "--width", "32"]);
    std::fs::write(&html_path, html::report_page(&options)).unwrap();
    let (image, width, height) = screenshot(&browser, &html_path, &png_path);
    assert_eq!((width, height), (1400, 1600));

    // Not blank: text, table borders and pictures make many non-white pixels.
    let inked = image
        .chunks_exact(4)
        .filter(|p| p[0] < 200 || p[1] < 200 || p[2] < 200)
        .count();
    assert!(inked > 20_000, "only {inked} non-white pixels");

    // The timeline: 8 waves of 32 lanes, 8 pixels apart, each wave issuing 9
    // instructions with every lane active (2 pixels per issue).
    let active = bbox(&image, width, colors::ACTIVE).expect("the timeline is drawn");
    assert_eq!(active.2 - active.0 + 1, 9 * 2, "{active:?}");
    assert_eq!(active.3 - active.1 + 1, 8 * 40 - 8, "{active:?}");
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
