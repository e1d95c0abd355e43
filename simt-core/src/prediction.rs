//! The static facts beside a launch's measured counters: for each memory
//! instruction, what the facts predict a fully active phase costs and what the
//! launch measured, and whether the two agree.
//!
//! The counters are per instruction, summed over its phases. A phase is fully
//! active when all its lanes are; the instruction's phases all were exactly when
//! its active lanes equal its phases times the phase's lanes (a counted phase
//! has at least one active lane and at most that many). Then an exact fact `n`
//! must give a total of `phases · n`, and a range `lo..=hi` a total between
//! `phases · lo` and `phases · hi`; the costliest phase, where the launch
//! recorded it, must be inside the fact too. Launches with a partial phase are
//! not compared: the facts speak of full phases only.

use crate::facts::{
    launch_values, Condition, Degree, Fact, Facts, Lin, Sym, SymNames, Verdict, What,
};
use crate::ir::Program;
use crate::model::MemoryModel;
use crate::stats::Stats;

/// A fact and what one launch measured for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// The instruction.
    pub inst: usize,
    /// What is counted.
    pub what: What,
    /// The fact.
    pub fact: Fact,
    /// The launch's phases of the instruction (LDS or global accesses).
    pub phases: u64,
    /// The launch's total of the counted cost over those phases.
    pub total: u64,
    /// Whether every phase was fully active.
    pub full: bool,
    /// The costliest phase's cost, where the launch recorded it.
    pub worst: Option<u64>,
    /// Whether the launch meets the fact's assumptions (its workgroup shape;
    /// taken to when the statistics do not say it).
    pub applies: bool,
}

impl Prediction {
    /// Whether the measurement agrees with the fact; `None` when nothing can be
    /// compared (no phase ran, one was partial, or the fact is unknown or
    /// symbolic).
    pub fn agrees(&self) -> Option<bool> {
        if self.phases == 0 || !self.full || !self.applies {
            return None;
        }
        let (lo, hi) = match self.fact.value {
            Degree::Exact(n) => (n, n),
            Degree::Range(lo, hi) => (lo, hi),
            _ => return None,
        };
        let total_ok = (self.phases * lo..=self.phases * hi).contains(&self.total);
        let worst_ok = self.worst.is_none_or(|w| (lo..=hi).contains(&w));
        Some(total_ok && worst_ok)
    }

    /// The measured cost per phase, as a mean (0 when no phase ran).
    pub fn per_phase(&self) -> f64 {
        if self.phases == 0 {
            0.0
        } else {
            self.total as f64 / self.phases as f64
        }
    }
}

/// The prediction of every memory instruction of `program` for a launch that
/// gave `stats` under `model`, from `facts` (decided for the launch's
/// workgroup shape). Global instructions give two: lines and sectors.
pub fn predictions(
    program: &Program,
    facts: &Facts,
    stats: &Stats,
    model: &MemoryModel,
) -> Vec<Prediction> {
    let geo = model.geometry();
    let width = stats.wave_width;
    let shape = stats.launch.workgroup;
    let lanes = u64::from(geo.lanes(width));
    let mut out = Vec::new();
    for inst in 0..program.insts.len() {
        let Some(c) = stats.per_instruction.get(inst) else {
            continue;
        };
        let worst = stats
            .worst_phases
            .get(inst)
            .filter(|w| w.is_recorded() && w.active.count_ones() as u64 == lanes);
        let mut push = |what: What, fact: Option<Fact>, phases: u64, total: u64, w: Option<u64>| {
            if let Some(fact) = fact {
                let applies = shape == [0; 3] || fact.assumptions.iter().all(|a| a.holds(shape));
                out.push(Prediction {
                    applies,
                    inst,
                    what,
                    fact,
                    phases,
                    total,
                    full: c.active_lanes == phases * lanes,
                    worst: w,
                });
            }
        };
        push(
            What::LdsCycles,
            facts.lds_conflicts(inst, &geo, width),
            c.lds_accesses,
            c.lds_conflict_cycles,
            worst.map(|w| w.cost),
        );
        push(
            What::Lines,
            facts.global_lines(inst, &geo, width),
            c.global_accesses,
            c.global_transactions,
            worst.map(|w| w.cost),
        );
        push(
            What::Sectors,
            facts.global_sectors(inst, &geo, width),
            c.global_accesses,
            c.global_sectors,
            worst.map(|w| w.sectors),
        );
    }
    out
}

/// What the static facts say of instructions `insts`, for a listing line: each
/// memory instruction's prediction beside the measurement, then its races.
/// A fact that depends on the kernel's scalars or shape is given its value
/// at the launch's (`launch`), with its symbolic form beside it.
pub(crate) fn notes(
    program: &Program,
    facts: &Facts,
    predictions: &[Prediction],
    insts: &[usize],
    launch: &Launch<'_>,
) -> Vec<String> {
    let names = SymNames::of(program);
    let mut out = Vec::new();
    for &inst in insts {
        let mine: Vec<&Prediction> = predictions.iter().filter(|p| p.inst == inst).collect();
        let lds = mine.iter().find(|p| p.what == What::LdsCycles);
        if let Some(p) = lds {
            out.push(format!(
                "LDS conflicts: predicted {}, measured {}{}",
                ways(&p.fact.value, &names, launch),
                measured(p, |m| if m == 0.0 {
                    "conflict-free".to_owned()
                } else {
                    format!("{}-way", figure(m + 1.0))
                }),
                assumptions(p, launch)
            ));
        }
        let lines = mine.iter().find(|p| p.what == What::Lines);
        let sectors = mine.iter().find(|p| p.what == What::Sectors);
        if let (Some(l), Some(s)) = (lines, sectors) {
            let predicted = match (&l.fact.value, &s.fact.value) {
                (Degree::Condition(cl), Degree::Condition(cs)) => {
                    let show = |d: Option<Degree>| d.map_or("?".to_owned(), |d| d.to_string());
                    let at = launch.at(&cl.stride, &names);
                    format!(
                        "{}, {}{at} (by the lane stride {} bytes)",
                        counted(&show(cl.at(|s| launch.value(s))), "line"),
                        counted(&show(cs.at(|s| launch.value(s))), "sector"),
                        names.lin(&cl.stride),
                    )
                }
                (lv, sv) => format!(
                    "{}, {}",
                    counted(&lv.to_string(), "line"),
                    counted(&sv.to_string(), "sector")
                ),
            };
            out.push(format!(
                "global: predicted {predicted}; measured {}, {}{}",
                measured(l, |m| counted(&figure(m), "line")),
                measured(s, |m| counted(&figure(m), "sector")),
                assumptions(l, launch)
            ));
        }
        for pair in facts.pairs_of(inst) {
            let other = if pair.a as usize == inst {
                pair.b
            } else {
                pair.a
            };
            let with = if other as usize == inst {
                "itself in another work-item".to_owned()
            } else {
                format!("line {}", program.loc(other as usize).line)
            };
            match &pair.verdict {
                Verdict::Race(w) => {
                    let [p, q] = w.items;
                    out.push(format!(
                        "race with {with}: work-items {:?} of group {:?} and {:?} of group {:?} (wave{}) touch byte {}",
                        p.local, p.group, q.local, q.group, w.width, w.address
                    ));
                }
                Verdict::Unknown => out.push(format!(
                    "may race with {with}: not decided, left to the run-time sanitizer"
                )),
                Verdict::Free(_) => {}
            }
        }
    }
    out
}

/// The launch a listing speaks of: its shape, scalars and wave width, where
/// known.
pub(crate) struct Launch<'a> {
    pub(crate) values: &'a crate::stats::LaunchValues,
    pub(crate) width: u32,
}

impl Launch<'_> {
    /// A symbol's value in this launch, when the launch decides it.
    fn value(&self, s: Sym) -> Option<i64> {
        match s {
            Sym::Arg(p) => self
                .values
                .scalars
                .get(usize::from(p.0))
                .copied()
                .flatten()
                .map(i64::from),
            // The sizes and the wave width, as the facts substitute them.
            _ => {
                let shape = self.values.workgroup;
                let known = (shape != [0; 3]).then_some(shape);
                launch_values(known, Some(self.width))(s)?.as_const()
            }
        }
    }

    /// " at pitch = 2" for the symbols of `lin` this launch gives values.
    fn at(&self, lin: &Lin, names: &SymNames<'_>) -> String {
        let given: Vec<String> = lin
            .syms()
            .filter_map(|s| Some(format!("{} = {}", names.sym(s), self.value(s)?)))
            .collect();
        if given.is_empty() {
            String::new()
        } else {
            format!(" at {}", given.join(", "))
        }
    }
}

/// A fact on conflict cycles, as ways (`n` cycles are `n + 1`-way); a
/// symbolic one at the launch's values, with its form.
fn ways(d: &Degree, names: &SymNames<'_>, launch: &Launch<'_>) -> String {
    match d {
        Degree::Exact(0) => "conflict-free".to_owned(),
        Degree::Exact(n) => format!("{}-way", n + 1),
        Degree::Range(a, b) => format!("{}- to {}-way", a + 1, b + 1),
        Degree::Condition(c) => {
            let form = match gcd_form(c, names) {
                Some(g) => format!("{g}-way: the lane stride is {} bytes", names.lin(&c.stride)),
                None => format!("by the lane stride {} bytes", names.lin(&c.stride)),
            };
            match c.at(|s| launch.value(s)) {
                Some(v) => format!(
                    "{}{} ({form})",
                    ways(&v, names, launch),
                    launch.at(&c.stride, names)
                ),
                None => {
                    let [(one, a), (many, b)] = c.cases();
                    let show =
                        |d: Option<Degree>| d.map_or("?".to_owned(), |d| ways(&d, names, launch));
                    format!(
                        "{form}: {} when its symbols are {one}, {} when they are {many}",
                        show(a),
                        show(b)
                    )
                }
            }
        }
        Degree::Unknown(why) => format!("unknown ({why:?})"),
    }
}

/// `gcd(pitch, 32)` for a stride of `4·pitch` bytes over 32 banks of 4
/// bytes, one word per lane from an aligned base: the ways of such a
/// conflict.
fn gcd_form(c: &Condition, names: &SymNames<'_>) -> Option<String> {
    let g = &c.geometry;
    let word = i64::from(g.lds_bank_bytes);
    let [(sym, k)] = c.stride.terms[..] else {
        return None;
    };
    let aligned = c.base.residue == 0 && c.base.step.is_multiple_of(g.lds_banks * g.lds_bank_bytes);
    if c.stride.c != 0
        || k % word != 0
        || c.elems != 1
        || c.size != g.lds_bank_bytes
        || !aligned
        || c.lanes != g.lds_banks
    {
        return None;
    }
    let words = match k / word {
        1 => names.sym(sym),
        m => format!("{m}*{}", names.sym(sym)),
    };
    Some(format!("gcd({words}, {})", g.lds_banks))
}

fn measured(p: &Prediction, show: impl Fn(f64) -> String) -> String {
    if p.phases == 0 {
        "nothing (no phase ran)".to_owned()
    } else if p.full {
        show(p.per_phase())
    } else {
        format!(
            "{} on average over partly active phases",
            show(p.per_phase())
        )
    }
}

fn figure(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The assumptions of a prediction's fact this launch breaks, said so; those
/// it meets are not repeated (nor when the launch's shape is not known).
fn assumptions(p: &Prediction, launch: &Launch<'_>) -> String {
    let shape = launch.values.workgroup;
    if p.fact.assumptions.is_empty() {
        return String::new();
    }
    if shape == [0; 3] {
        let a: Vec<String> = p.fact.assumptions.iter().map(|a| a.to_string()).collect();
        return format!(" (if {})", a.join(" and "));
    }
    let broken: Vec<String> = p
        .fact
        .assumptions
        .iter()
        .filter(|a| !a.holds(shape))
        .map(|a| a.to_string())
        .collect();
    if broken.is_empty() {
        String::new()
    } else {
        format!(
            " (the prediction assumes a {}, which this launch's {}x{}x{} workgroups are not: it does not apply)",
            broken.join(" and "),
            shape[0],
            shape[1],
            shape[2]
        )
    }
}

/// `n` `noun`s, in the singular for one: "1 line", "2 lines", "1.5 lines".
fn counted(n: &str, noun: &str) -> String {
    if n == "1" {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
