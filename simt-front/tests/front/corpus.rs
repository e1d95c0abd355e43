//! The native runners' equivalence corpus: generated kernels, written into
//! the `simt-corpus` crate as one `simt_kernel!` block so that the macro
//! compiles each with its native runner, each run natively, on the
//! interpreter and on the oracle, and every output byte, counter, print and
//! fault compared.
//!
//! The corpus file is what [`corpus_source`] writes; a test fails when they
//! differ, and `SIMT_CORPUS=overwrite` writes it again.

use crate::differential::choices;
use crate::generate::{generate, Generated};
use std::path::PathBuf;

/// Kernels in the corpus.
pub(crate) const KERNELS: u64 = 300;

/// Where the corpus's choices start in the generator's seeds: away from the
/// deterministic differential run's.
const FIRST_SEED: u64 = 1 << 32;

/// The corpus kernel `k`.
pub(crate) fn corpus_kernel(k: u64) -> Generated {
    generate(&choices(FIRST_SEED + k))
}

/// The corpus crate's `kernels.rs`: every kernel, named `c{k}`, in one
/// `simt_kernel!` block, and the list of them.
fn corpus_source() -> String {
    let mut out = String::from(
        "// Written by `simt-front`'s test `corpus` (`SIMT_CORPUS=overwrite` writes it\n\
         // again): generated kernels, each compiled here with its native runner.\n\n\
         simt::simt_kernel! {\n",
    );
    for k in 0..KERNELS {
        let text = corpus_kernel(k).text();
        let text = text.replacen("kernel gen(", &format!("pub kernel c{k}("), 1);
        assert!(text.contains(&format!("pub kernel c{k}(")), "{text}");
        for line in text.lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                out.push_str("    ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out.push_str(
        "}\n\n/// The kernels, `c0` first.\npub static CORPUS: &[&simt::core::Kernel] = &[\n",
    );
    for k in 0..KERNELS {
        out.push_str(&format!("    &c{k}::KERNEL,\n"));
    }
    out.push_str("];\n");
    out
}

fn corpus_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../simt-corpus/src/kernels.rs")
}

#[test]
fn the_corpus_crate_holds_the_generated_kernels() {
    let want = corpus_source();
    let path = corpus_path();
    if std::env::var("SIMT_CORPUS").as_deref() == Ok("overwrite") {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is not what the generator writes: run \
         `SIMT_CORPUS=overwrite cargo test -p simt-front --test front corpus`",
        path.display()
    );
}

/// The corpus run, with the feature `corpus` only: the corpus crate compiles
/// its kernels then (`cargo test -p simt-front --features corpus`), which
/// takes minutes; `.ci/run` turns it on.
#[cfg(feature = "corpus")]
mod run {
    use super::{corpus_kernel, KERNELS};
    use crate::differential::{
        compile, expect, judge, launch, mix, Launched, Outcome, Setup, BUDGET, SHAPES,
    };
    use simt_core::__native::{available as native_available, native_turns};
    use simt_core::{Engine, Error, MemoryModel, Schedule};
    use std::collections::BTreeSet;

    /// Setup `k` of the corpus for `width`: shapes, models and schedules taken in
    /// turn, so that each kernel meets a different one and the corpus meets all;
    /// every third launch at a budget it may run out of.
    fn setup(k: u64, width: u32) -> Setup {
        let r = mix(k ^ (u64::from(width) << 32));
        let turn = k as usize + usize::from(width == 64);
        Setup {
            shape: SHAPES[turn % SHAPES.len()],
            width,
            model: MemoryModel::PRESETS[turn % 3],
            schedule: if (turn / 3).is_multiple_of(2) {
                Schedule::UntilBarrier
            } else {
                Schedule::RoundRobin
            },
            seed: r,
            budget: if k.is_multiple_of(3) {
                20 + (r >> 24) % 400
            } else {
                BUDGET
            },
        }
    }

    /// Whether two launches left the same: the statistics (every counter, per
    /// instruction, the histogram, findings, prints) or the same fault, and the
    /// same bytes.
    fn same_launches(native: &Launched, interpreted: &Launched) -> Result<(), String> {
        if native.1 != interpreted.1 {
            return Err("the buffers differ".into());
        }
        match (&native.0, &interpreted.0) {
            (Ok(a), Ok(b)) if a == b => Ok(()),
            (Err(Error::Fault(a)), Err(Error::Fault(b))) if a == b => Ok(()),
            (a, b) => Err(format!("native {a:?}\ninterpreted {b:?}")),
        }
    }

    #[test]
    fn corpus_kernels_run_the_same_natively_interpreted_and_on_the_oracle() {
        let mut setups = BTreeSet::new();
        let (mut ran, mut faulted) = (0, 0);
        let mut mnemonics = BTreeSet::new();
        for k in 0..KERNELS {
            let g = corpus_kernel(k);
            let kernel = simt_corpus::CORPUS[k as usize];
            // The macro compiled the text the front end compiles.
            let text = g.text();
            let compiled = compile(&text).unwrap_or_else(|e| panic!("c{k}: {e}"));
            assert_eq!(
                format!("{:?}", kernel.program().insts),
                format!("{:?}", compiled.program().insts),
                "c{k}: the macro's instructions"
            );
            mnemonics.extend(g.spellings.iter().map(|m| m.name));
            for width in [32, 64] {
                let s = setup(k, width);
                setups.insert((s.shape, s.model, s.schedule == Schedule::RoundRobin));
                let expected = expect(&g, s);
                for threads in [1, 3] {
                    let what = format!("c{k} with {s:?} on {threads} threads");
                    let turns = native_turns();
                    let native = launch(kernel, s, threads, Engine::Native);
                    // Native runners run one-thread launches under the
                    // until-barrier schedule; round-robin turns of one instruction
                    // run on the interpreter.
                    let natively = s.schedule == Schedule::UntilBarrier && threads == 1;
                    if native_available() && natively {
                        assert!(native_turns() > turns, "{what}: no native turn ran");
                    }
                    let turns = native_turns();
                    let interpreted = launch(kernel, s, threads, Engine::Interpreter);
                    assert_eq!(
                        native_turns(),
                        turns,
                        "{what}: the interpreter ran natively"
                    );
                    if let Err(e) = same_launches(&native, &interpreted) {
                        panic!("{what}: the engines differ: {e}");
                    }
                    match judge(&g, kernel, s, &expected, native) {
                        Ok(Outcome::Ran(_)) => ran += 1,
                        Ok(Outcome::Faulted(_)) => faulted += 1,
                        Err(e) => panic!("{what}: {e}\nkernel:\n{text}"),
                    }
                }
            }
        }
        // Every shape, model and schedule met; most launches ran to the end and
        // some ran out of budget.
        assert_eq!(setups.len(), SHAPES.len() * 3 * 2, "{setups:?}");
        assert!(ran > faulted && faulted > 0, "{ran} ran, {faulted} faulted");
        let missing: Vec<&str> = simt_lang::isa::MNEMONICS
            .iter()
            .map(|m| m.name)
            .filter(|name| !mnemonics.contains(name))
            .collect();
        assert!(missing.is_empty(), "the corpus never issues {missing:?}");
    }
}
