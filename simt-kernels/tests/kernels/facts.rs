//! The static facts against the machine: over every reference kernel and every
//! study variant, at wave32 and wave64, a fact stated as exact equals the
//! measured cost of every fully active phase and a range contains it (see
//! `simt_core::Prediction` for how per-phase costs are read from the
//! per-instruction counters); and a kernel whose pairs are all proved free
//! gets no race finding from the sanitizer.

use simt::core::facts::{Degree, Memory, Verdict, What};
use simt::core::{facts, predictions, LaunchConfig, MemoryModel, Prediction, Program};
use simt_kernels::registry::KERNELS;
use simt_kernels::studies::{VariantRow, STUDIES};

/// What the cross-check saw, for the shares the tests print: memory
/// instructions by the kind of their fact (LDS: conflict cycles; global:
/// sectors), and LDS pairs by verdict.
#[derive(Default)]
struct Tally {
    exact: usize,
    range: usize,
    condition: usize,
    unknown: usize,
    compared: usize,
    /// LDS pairs proved free, raced, undecided: with the launch's shape, and
    /// for any shape.
    pairs: [usize; 3],
    pairs_any_shape: [usize; 3],
    /// Global pairs likewise.
    global: [usize; 3],
    global_any_shape: [usize; 3],
}

impl Tally {
    fn add(&mut self, name: &str, program: &Program, p: &[Prediction]) {
        for p in p {
            if p.agrees().is_some() {
                self.compared += 1;
            }
            if p.what == What::Lines {
                continue;
            }
            match p.fact.value {
                Degree::Exact(_) => self.exact += 1,
                Degree::Range(..) => self.range += 1,
                Degree::Condition(_) => self.condition += 1,
                Degree::Unknown(_) => self.unknown += 1,
            }
            if std::env::var("FACTS_DEBUG").is_ok() {
                eprintln!(
                    "{name} {} {:?} {:?}",
                    program.display_inst(&program.insts[p.inst]),
                    p.what,
                    p.fact.value
                );
            }
        }
    }

    fn add_pairs(&mut self, program: &Program, shape: [u32; 3]) {
        let count = |f: &simt::core::Facts, lds: &mut [usize; 3], global: &mut [usize; 3]| {
            for p in &f.pairs {
                let into = match p.space {
                    Memory::Lds(_) => &mut *lds,
                    Memory::Global(_) => &mut *global,
                };
                into[match p.verdict {
                    Verdict::Free(_) => 0,
                    Verdict::Race(_) => 1,
                    Verdict::Unknown => 2,
                }] += 1;
                if std::env::var("FACTS_DEBUG").is_ok() && p.verdict == Verdict::Unknown {
                    eprintln!(
                        "{} undecided: line {} and line {}",
                        program.name,
                        program.loc(p.a as usize).line,
                        program.loc(p.b as usize).line
                    );
                }
            }
        };
        count(
            &facts(program, Some(shape)),
            &mut self.pairs,
            &mut self.global,
        );
        count(
            &facts(program, None),
            &mut self.pairs_any_shape,
            &mut self.global_any_shape,
        );
    }

    fn report(&self, what: &str) {
        let total = (self.exact + self.range + self.condition + self.unknown).max(1) as f64;
        let pct = |n: usize| 100.0 * n as f64 / total;
        println!(
            "{what}: memory instructions (each at each width) {:.0}% exact, {:.0}% range, {:.0}% condition, {:.0}% unknown of {total}; {} predictions compared",
            pct(self.exact),
            pct(self.range),
            pct(self.condition),
            pct(self.unknown),
            self.compared
        );
        println!(
            "{what}: LDS pairs free/race/unknown: {:?} with the launch's shape, {:?} for any shape",
            self.pairs, self.pairs_any_shape
        );
        println!(
            "{what}: global pairs free/race/unknown: {:?} with the launch's shape, {:?} for any shape",
            self.global, self.global_any_shape
        );
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
    for spec in KERNELS {
        tally.add_pairs(spec.program, [spec.workgroup, 1, 1]);
    }
    tally.report("reference kernels");
}

/// The counters of a study variant as a launch's statistics.
fn variant_stats(v: &VariantRow, width: u32) -> simt::core::Stats {
    let mut stats = simt::core::Stats::new("variant", width, &v.model, v.per_instruction.len());
    stats.per_instruction = v.per_instruction.clone();
    stats.worst_phases = v.worst_phases.clone();
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
                let stats = variant_stats(v, width);
                assert!(
                    !stats.worst_phases.is_empty(),
                    "{}: worst phases recorded",
                    v.name
                );
                let preds = predictions(&v.program, &f, &stats, &model);
                tally.add(&v.name, &v.program, &preds);
                bad.extend(disagreements(&v.name, width, &preds));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(tally.compared >= 40, "only {} compared", tally.compared);
    let result = STUDIES
        .iter()
        .flat_map(|s| (s.run)(11, 32).expect("runs").variants);
    for v in result {
        tally.add_pairs(&v.program, [v.workgroup.x, v.workgroup.y, v.workgroup.z]);
    }
    tally.report("studies");
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
            let config: LaunchConfig = spec.config(width, MemoryModel::reference()).sanitize(true);
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
