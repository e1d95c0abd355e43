//! The static facts and the compiler agree on every kernel of the
//! differential corpus: a pair the compiler reports as a race certain under a
//! declared workgroup shape (at wave32 and at wave64) is one the facts of
//! that shape prove racing, never one they leave to the sanitizer or prove
//! free; and compiling the kernel with the shape declared reports exactly
//! those races.

use crate::corpus::{corpus_kernel, KERNELS};
use crate::differential::{choices, compile, SHAPES};
use crate::generate::generate;
use simt_lang::facts::{facts, Verdict};
use std::collections::BTreeSet;

/// Kernels of the deterministic differential run tried beside the corpus.
const DIFFERENTIAL: u64 = 300;

/// The pairs certain to race under `shape`: those that race at wave32 and
/// at wave64 in one workgroup, lanes in lockstep, whatever the inputs.
fn certain(f: &simt_lang::facts::Facts, shape: [u32; 3]) -> BTreeSet<usize> {
    let at = |width| -> BTreeSet<usize> {
        f.races_certain(shape, width, |_| true)
            .iter()
            .map(|r| r.pair)
            .collect()
    };
    at(32).intersection(&at(64)).copied().collect()
}

#[test]
fn facts_and_the_compiler_agree_on_every_kernel_of_the_differential_corpus() {
    let kernels = (0..KERNELS)
        .map(|k| (format!("corpus c{k}"), corpus_kernel(k)))
        .chain(
            (0..DIFFERENTIAL).map(|s| (format!("differential seed {s}"), generate(&choices(s)))),
        );
    let (mut checked, mut races, mut disagree) = (0, 0, Vec::new());
    for (name, g) in kernels {
        let text = g.text();
        let Ok(kernel) = compile(&text) else {
            panic!("{name} does not compile:\n{text}");
        };
        let shapes: BTreeSet<[u32; 3]> = SHAPES.iter().map(|&(_, s)| s).collect();
        for shape in shapes {
            let f = facts(kernel.program(), Some(shape));
            let sure = certain(&f, shape);
            for &n in &sure {
                if !matches!(f.pairs[n].verdict, Verdict::Race(_)) {
                    disagree.push(format!(
                        "{name} under {shape:?}: pair {n} ({:?}) is certain to the compiler but {:?} to the facts",
                        (f.pairs[n].a, f.pairs[n].b),
                        f.pairs[n].verdict
                    ));
                }
            }
            // The compiler, given the shape, reports those races and no other.
            let [x, y, z] = shape;
            let declared = format!("#[workgroup_size({x}, {y}, {z})]\n{text}");
            let reported = match compile(&declared) {
                Ok(_) => 0,
                Err(e) => e.matches("data race under `#[workgroup_size(").count(),
            };
            if reported != sure.len() {
                disagree.push(format!(
                    "{name} under {shape:?}: the compiler reports {reported} races, the facts' search {}",
                    sure.len()
                ));
            }
            checked += 1;
            races += sure.len();
        }
    }
    eprintln!("{checked} kernel shapes, {races} certain races");
    assert!(
        races > 0,
        "the corpus has no certain race: the test shows nothing"
    );
    assert!(
        disagree.is_empty(),
        "{} disagreements:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
}
