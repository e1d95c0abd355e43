//! The front end as an in-process fuzzer: how many inputs per second
//! `compile_file` checks (tokenizing, parsing, checking, lowering, validating,
//! and locating any diagnostics in the text), over the inputs of the
//! robustness and round-trip tests, whose generators are shared with them.

// The generators live with the tests that use them; their tests compile out
// here, leaving helpers this bench does not call.
#[allow(dead_code, unused_imports)]
#[path = "../tests/front/cases.rs"]
mod cases;
#[allow(dead_code, unused_imports)]
#[path = "../tests/front/located.rs"]
mod located;
#[allow(dead_code, unused_imports)]
#[path = "../tests/front/roundtrip.rs"]
mod roundtrip;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use roundtrip::{arbitrary, generated, seeded};
use simt_front::compile_file;
use std::hint::black_box;

/// Inputs of each generator, from the tests' deterministic seeds.
fn corpora() -> Vec<(&'static str, Vec<String>)> {
    let soup = |seed: u64| -> String {
        let words: Vec<&str> = seeded(seed)
            .iter()
            .take(40)
            .map(|&p| cases::VOCABULARY[p as usize % cases::VOCABULARY.len()])
            .collect();
        format!(
            "kernel k(x: &mut [u32], n: u32) {{ vreg i; mreg m; {} }}",
            words.join(" ")
        )
    };
    vec![
        (
            "arbitrary",
            (0..1000).map(|s| arbitrary(&seeded(s))).collect(),
        ),
        (
            "generated",
            (0..200).map(|s| generated(&seeded(s))).collect(),
        ),
        ("word_soup", (0..1000).map(soup).collect()),
    ]
}

fn front(c: &mut Criterion) {
    let mut group = c.benchmark_group("front");
    for (name, inputs) in corpora() {
        let accepted = inputs
            .iter()
            .filter(|s| compile_file("<bench>", s).is_ok())
            .count();
        println!("{name}: {accepted} of {} inputs accepted", inputs.len());
        group.throughput(Throughput::Elements(inputs.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                for src in &inputs {
                    let _ = black_box(compile_file("<bench>", black_box(src)));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, front);
criterion_main!(benches);
