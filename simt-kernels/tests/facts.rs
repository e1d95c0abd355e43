//! The static facts against the machine: over every reference kernel and every
//! study variant, at wave32 and wave64, a fact stated as exact equals the
//! measured cost of every fully active phase and a range contains it (see
//! `simt_core::Prediction` for how per-phase costs are read from the
//! per-instruction counters); and a kernel whose pairs are all proved free
//! gets no race finding from the sanitizer.

use simt::core::facts::{Degree, Verdict};
use simt::core::{facts, predictions, Counters, LaunchConfig, MemoryModel, Prediction, Program};
use simt_kernels::registry::KERNELS;
use simt_kernels::studies::STUDIES;

/// What the cross-check saw, for the shares the tests print.
#[derive(Default)]
struct Tally {
    exact: usize,
    range: usize,
    other: usize,
    compared: usize,
}

impl Tally {
    fn add(&mut self, name: &str, program: &Program, p: &[Prediction]) {
        for p in p {
            match p.fact.value {
                Degree::Exact(_) => self.exact += 1,
                Degree::Range(..) => self.range += 1,
                _ => {
                    self.other += 1;
                    if std::env::var("FACTS_DEBUG").is_ok() {
                        eprintln!(
                            "other: {name} {} {:?} {:?}",
                            program.display_inst(&program.insts[p.inst]),
                            p.what,
                            p.fact.value
                        );
                    }
                }
            }
            if p.agrees().is_some() {
                self.compared += 1;
            }
        }
    }
}

fn disagreements(name: &str, width: u32, preds: &[Prediction]) -> Vec<String> {
    preds
        .iter()
        .filter(|p| p.agrees() == Some(false))
        .map(|p| {
            format!(
                "{name} wave{width} inst {} {:?}: predicted {}, measured {} over {} phases (worst {:?})",
                p.inst, p.what, p.fact.value, p.total, p.phases, p.worst
            )
        })
        .collect()
}

#[test]
fn facts_agree_with_the_counters_of_every_reference_kernel() {
    let mut bad = Vec::new();
    let mut tally = Tally::default();
    for spec in KERNELS {
        for width in [32, 64] {
            let model = MemoryModel::reference();
            let config = spec.config(width, model.clone()).record_worst_phases();
            let run = spec.run(7, &config).expect("the kernel runs");
            let f = facts(spec.program, Some([spec.workgroup, 1, 1]));
            let preds = predictions(spec.program, &f, &run.stats, &model);
            tally.add(spec.name, spec.program, &preds);
            bad.extend(disagreements(spec.name, width, &preds));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Most reference kernels run full phases: the check must have compared
    // something, or it proves nothing.
    assert!(tally.compared >= 20, "only {} compared", tally.compared);
    println!(
        "reference kernels: {} exact, {} ranges, {} other; {} compared",
        tally.exact, tally.range, tally.other, tally.compared
    );
}

/// The counters of a study variant as a launch's statistics.
fn variant_stats(per_instruction: &[Counters], width: u32, model: &str) -> simt::core::Stats {
    let mut stats = simt::core::Stats::new("variant", width, model, per_instruction.len());
    stats.per_instruction = per_instruction.to_vec();
    stats
}

#[test]
fn facts_agree_with_the_counters_of_every_study_variant() {
    let mut bad = Vec::new();
    let mut tally = Tally::default();
    for study in STUDIES {
        for width in [32, 64] {
            let result = (study.run)(11, width).expect("the study runs");
            for v in &result.variants {
                let model = MemoryModel::preset(&v.model).expect("studies use preset models");
                let shape = [v.workgroup.x, v.workgroup.y, v.workgroup.z];
                let f = facts(&v.program, Some(shape));
                let stats = variant_stats(&v.per_instruction, width, &v.model);
                let preds = predictions(&v.program, &f, &stats, &model);
                tally.add(&v.name, &v.program, &preds);
                bad.extend(disagreements(&v.name, width, &preds));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(tally.compared >= 40, "only {} compared", tally.compared);
    println!(
        "studies: {} exact, {} ranges, {} other; {} compared",
        tally.exact, tally.range, tally.other, tally.compared
    );
}

/// Whether every pair of `program` is proved free.
fn all_free(program: &Program, shape: [u32; 3]) -> bool {
    facts(program, Some(shape))
        .pairs
        .iter()
        .all(|p| matches!(p.verdict, Verdict::Free(_)))
}

#[test]
fn the_reference_tree_reductions_are_proved_free() {
    for name in ["reduce_i32", "reduce_f32"] {
        let spec = simt_kernels::registry::find(name).expect("registered");
        let f = facts(spec.program, None);
        assert!(!f.pairs.is_empty(), "{name}: the tree has LDS pairs");
        for p in &f.pairs {
            assert!(
                matches!(p.verdict, Verdict::Free(_)),
                "{name}: pair {}-{} is {:?}",
                p.a,
                p.b,
                p.verdict
            );
        }
    }
}

#[test]
fn kernels_proved_free_get_no_race_finding() {
    let mut proved = 0;
    for spec in KERNELS {
        if !all_free(spec.program, [spec.workgroup, 1, 1]) {
            continue;
        }
        proved += 1;
        for width in [32, 64] {
            let config: LaunchConfig = spec
                .config(width, MemoryModel::reference())
                .sanitize(true);
            let run = spec.run(3, &config).expect("the kernel runs");
            let races: Vec<_> = run
                .stats
                .findings
                .list
                .iter()
                .filter(|f| matches!(f.kind, simt::core::FindingKind::Race { .. }))
                .collect();
            assert!(races.is_empty(), "{}: {races:?}", spec.name);
        }
    }
    assert!(proved >= 2, "the tree reductions at least are proved free");
    for study in STUDIES {
        let result = (study.run)(5, 32).expect("the study runs");
        for v in &result.variants {
            let shape = [v.workgroup.x, v.workgroup.y, v.workgroup.z];
            if all_free(&v.program, shape) {
                let races = v
                    .findings
                    .list
                    .iter()
                    .filter(|f| matches!(f.kind, simt::core::FindingKind::Race { .. }))
                    .count();
                assert_eq!(races, 0, "{}", v.name);
            }
        }
    }
}
