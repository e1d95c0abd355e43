//! Performance contracts and certain races, decided on the static facts of
//! `simt_lang::facts` (the same code the listing and the launch use): a
//! contract the facts disprove is an error with the witness and the fix, one
//! they cannot decide is an error saying so, and a race within a workgroup
//! (in LDS, or in a buffer between its waves) that every launch under the
//! declared workgroup shape has, at wave32 and at wave64, is an error at both
//! accesses.

use crate::ast::{Contract, ContractKind, Operand};
use crate::check::Checker;
use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::lower::Written;
use simt_lang::facts::{
    split_wave, wave_uniform, AccessKind, Degree, Fact, Facts, Geometry, LaunchRace, Memory, Pair,
    RaceAssumption, SpecialSym, Sym, SymNames, Verdict, Why, WorkItem,
};
use simt_lang::isa::MemRef;
use simt_lang::{Inst, Kernel as ValidKernel, Program, RaceFree, Uniformity};
use std::collections::HashSet;

/// The wave widths a kernel may be launched at.
const WIDTHS: [u32; 2] = [32, 64];

/// The geometry coalescing is worded in: 32-byte sectors, as on NVIDIA's
/// GPUs (the contract itself does not depend on it).
const SECTORS: Geometry = Geometry {
    line_bytes: 128,
    sector_bytes: 32,
    ..Geometry::REFERENCE
};

impl Checker<'_> {
    /// Checks the contracts written on the kernel and its instructions, and
    /// reports the LDS races certain under the declared shape.
    pub(super) fn contracts(&mut self, kernel: &ValidKernel, written: &[Written]) {
        let program = kernel.program();
        let asked = self.kernel.race_free.is_some()
            || program.workgroup_size.is_some()
            || written
                .iter()
                .any(|w| w.inst.is_some_and(|i| !i.contracts.is_empty()));
        if !asked {
            return;
        }
        let facts = kernel.facts();
        for (i, w) in written.iter().enumerate() {
            let Some(inst) = w.inst else { continue };
            for &c in &inst.contracts {
                if let Some(d) = self.contract(kernel, facts, i, w, c) {
                    self.push(d);
                }
            }
        }
        let certain = match program.workgroup_size {
            Some(shape) => {
                self.certain_out_of_bounds(program, facts, shape, written);
                self.certain_races(kernel, facts, shape, written)
            }
            None => HashSet::new(),
        };
        if let Some((at, claim)) = self.kernel.race_free {
            self.race_free(program, facts, written, &certain, (at, claim));
        }
    }

    fn contract(
        &self,
        kernel: &ValidKernel,
        facts: &Facts,
        i: usize,
        w: &Written,
        c: Contract,
    ) -> Option<Diagnostic> {
        let program = kernel.program();
        let mnemonic = w.inst.map(|x| x.mnemonic.to_string()).unwrap_or_default();
        let space = w.lowered.fields().memory().map(|(_, m)| m);
        let fits = match c.kind {
            ContractKind::ConflictFree => matches!(space, Some(MemRef::Lds(_))),
            ContractKind::Coalesced => matches!(space, Some(MemRef::Global(_))),
            ContractKind::Uniform => matches!(w.lowered, Inst::If { .. } | Inst::Loop { .. }),
        };
        let name = c.kind.name();
        if !fits {
            return Some(Diagnostic::new(
                Kind::Contract,
                Location::token(c.span),
                format!(
                    "`#[{name}]` says nothing about `{mnemonic}`: it goes on the line before {}",
                    crate::attrs::on(c.kind)
                ),
            ));
        }
        let at = memory_operand(w).unwrap_or_else(|| self.mnemonic(w));
        let outcome = match c.kind {
            ContractKind::ConflictFree => conflict_free(program, facts, i),
            ContractKind::Coalesced => coalesced(program, facts, i),
            ContractKind::Uniform => uniform(program, facts, i, &mnemonic),
        }?;
        let (verb, message) = match &outcome {
            Outcome::Disproved { message, .. } => ("does not hold", message),
            Outcome::Undecided { message, .. } => ("cannot be proved", message),
        };
        let mut d = Diagnostic::new(Kind::Contract, at, format!("`#[{name}]` {verb}: {message}"))
            .label(
                Location::token(c.span),
                format!("`#[{name}]` is stated here"),
            );
        let (notes, help) = match outcome {
            Outcome::Disproved { notes, help, .. } | Outcome::Undecided { notes, help, .. } => {
                (notes, help)
            }
        };
        d.notes = notes;
        Some(d.help(help, None))
    }

    fn mnemonic(&self, w: &Written) -> Location {
        Location::token(
            w.inst
                .map_or(self.kernel.name.span(), |i| i.mnemonic.span()),
        )
    }

    /// Reports each LDS pair that races at both wave widths under `shape`
    /// (whatever the lane order), and returns them.
    fn certain_races(
        &mut self,
        kernel: &ValidKernel,
        facts: &Facts,
        shape: [u32; 3],
        written: &[Written],
    ) -> HashSet<usize> {
        // Certain at both widths: the pairs racing at wave32 are searched
        // again at wave64.
        // Whatever the inputs: an access under an `if` the inputs may skip
        // is left to the sanitizer, as the facts leave it.
        let r32 = facts.races_certain(shape, 32, |_| true);
        let at32: HashSet<usize> = r32.iter().map(|r| r.pair).collect();
        let r64 = facts.races_certain(shape, 64, |n| at32.contains(&n));
        let mut certain = HashSet::new();
        let at64: std::collections::HashMap<usize, &LaunchRace> =
            r64.iter().map(|r| (r.pair, r)).collect();
        for race in r32.iter() {
            let Some(&other) = at64.get(&race.pair) else {
                continue;
            };
            let Some(pair) = facts.pairs.get(race.pair) else {
                continue;
            };
            certain.insert(race.pair);
            let d = self.race(
                kernel.program(),
                facts,
                pair,
                &[race, other],
                written,
                format!("data race under `#[workgroup_size({})]`", shape_text(shape)),
            );
            // Two work-items of one store: no barrier comes between them.
            let help = if pair.a == pair.b {
                "give each work-item its own element, let one work-item store (an `if` on its id), or store with an atomic"
            } else {
                "put a `barrier` between the two accesses, where every wave of the workgroup reaches it"
            };
            self.push(d.help(help, None));
        }
        certain
    }

    /// An error about a pair's race, at its second access, labelled at its first.
    fn race(
        &self,
        program: &Program,
        facts: &Facts,
        pair: &Pair,
        witnesses: &[&LaunchRace],
        written: &[Written],
        what: String,
    ) -> Diagnostic {
        let (a, b) = (pair.a as usize, pair.b as usize);
        let verb = |i: usize| {
            verb(
                facts
                    .accesses
                    .get(i)
                    .and_then(Option::as_ref)
                    .map(|x| x.kind),
            )
        };
        let place = |i: usize| {
            written.get(i).map_or_else(
                || Location::token(self.kernel.name.span()),
                |w| memory_operand(w).unwrap_or_else(|| self.mnemonic(w)),
            )
        };
        let first = witnesses.first().map(|r| &r.witness);
        let shape = facts.shape.unwrap_or([1, 1, 1]);
        let one_wave = first.is_some_and(|w| w.one_wave(shape));
        let byte = first.map_or_else(String::new, |w| byte_text(program, pair.space, w.address));
        let mut d = Diagnostic::new(
            Kind::Race,
            place(b),
            format!(
                "{what}: {} touch {byte} in {}",
                if a == b {
                    "this access and itself".to_owned()
                } else {
                    format!("this access and the one at line {}", program.loc(a).line)
                },
                match pair.space {
                    _ if one_wave && a == b => "two lanes of one wave, storing different values",
                    _ if one_wave => "two lanes of one wave, which only lockstep orders",
                    Memory::Lds(_) => "two work-items of different waves, with no barrier between",
                    Memory::Global(_)
                        if first.is_some_and(|w| w.items[0].group == w.items[1].group) =>
                        "two work-items of different waves, with no barrier between",
                    Memory::Global(_) => "two work-items of different workgroups",
                }
            ),
        );
        if let Some(w) = first {
            d = d.label(
                place(a),
                format!(
                    "{} {} it here, at wave{}",
                    item_text(&w.items[0], shape, w.width),
                    verb(a),
                    w.width
                ),
            );
        }
        for r in witnesses {
            let w = &r.witness;
            d.notes.push(format!(
                "at wave{}: {} {} it at line {} and {} {} it at line {}",
                w.width,
                item_text(&w.items[0], shape, w.width),
                verb(a),
                program.loc(a).line,
                item_text(&w.items[1], shape, w.width),
                verb(b),
                program.loc(b).line,
            ));
        }
        d
    }

    /// `#[race_free]`: every pair proved free (whatever the lane order, or
    /// with lanes in lockstep for `#[race_free(lockstep)]`), or an error per
    /// pair that is not.
    fn race_free(
        &mut self,
        program: &Program,
        facts: &Facts,
        written: &[Written],
        certain: &HashSet<usize>,
        (at, claim): (proc_macro2::Span, RaceFree),
    ) {
        // The attribute is labelled once: rustc shows an error repeated at
        // one place once, and the text path must show what rustc does.
        let mut labelled = false;
        let mut stated = |d: Diagnostic| {
            if std::mem::replace(&mut labelled, true) {
                d
            } else {
                d.label(Location::token(at), "`#[race_free]` is stated here")
            }
        };
        for (n, pair) in facts.pairs.iter().enumerate() {
            if certain.contains(&n) {
                continue;
            }
            let declared = program.workgroup_size.is_some();
            // Why the pair is not proved, and what to do.
            let (why, help) = match &pair.verdict {
                Verdict::Free(assumptions)
                    if claim == RaceFree::AnyLaneOrder
                        && assumptions.contains(&RaceAssumption::LockstepLanes) =>
                {
                    (
                        "proved free only when the lanes of a wave run in lockstep, as on AMD GPUs; with independent lanes (NVIDIA since Volta) two lanes of one wave may touch one element unordered",
                        "state `#[race_free(lockstep)]` for a kernel that relies on lockstep lanes, or make the work-items of one wave touch different elements",
                    )
                }
                // Launch-time assumptions (no wrapping, the grid's shape,
                // the lane order) are checked at each launch; a workgroup
                // shape is not when the kernel does not declare one.
                Verdict::Free(assumptions)
                    if !declared && assumptions.contains(&RaceAssumption::OneDimensionalGroups) =>
                {
                    (
                        "proved free only for one-dimensional workgroups",
                        "declare the workgroup's shape before `kernel`, `#[workgroup_size(256)]` for example",
                    )
                }
                Verdict::Free(_) => continue,
                Verdict::Race(w) => {
                    let race = LaunchRace {
                        pair: n,
                        witness: w.clone(),
                    };
                    let d = self.race(
                        program,
                        facts,
                        pair,
                        &[&race],
                        written,
                        "`#[race_free]` does not hold".to_owned(),
                    );
                    self.push(stated(d.help(
                        "separate the accesses with a `barrier`, or make the work-items touch different elements",
                        None,
                    )));
                    continue;
                }
                Verdict::Unknown if declared => (
                    "the analysis cannot decide whether two work-items touch one byte",
                    "remove `#[race_free]`, or index both accesses by `local_id.x` times a constant so that the analysis can follow them",
                ),
                Verdict::Unknown => (
                    "without a declared workgroup shape the analysis cannot decide whether two work-items touch one byte",
                    "declare the workgroup's shape before `kernel` (`#[workgroup_size(256)]`) so that every pair of work-items is tried, or remove `#[race_free]`",
                ),
            };
            let d = self.undecided_pair(program, pair, written, why);
            self.push(stated(d.help(help, None)));
        }
    }

    fn undecided_pair(
        &self,
        program: &Program,
        pair: &Pair,
        written: &[Written],
        why: &str,
    ) -> Diagnostic {
        let place = |i: usize| {
            written.get(i).map_or_else(
                || Location::token(self.kernel.name.span()),
                |w| memory_operand(w).unwrap_or_else(|| self.mnemonic(w)),
            )
        };
        let (a, b) = (pair.a as usize, pair.b as usize);
        let which = if a == b {
            "this access in two work-items".to_owned()
        } else {
            format!("this access and the one at line {}", program.loc(a).line)
        };
        let mut d = Diagnostic::new(
            Kind::Contract,
            place(b),
            format!("`#[race_free]` cannot be proved for {which}: {why}"),
        );
        if a != b {
            d = d.label(place(a), "the other access");
        }
        d
    }
}

/// What the facts make of a contract that does not hold as stated.
enum Outcome {
    /// The facts show a counterexample.
    Disproved {
        message: String,
        notes: Vec<String>,
        help: String,
    },
    /// The facts cannot tell.
    Undecided {
        message: String,
        notes: Vec<String>,
        help: String,
    },
}

fn undecided(message: String, help: &str) -> Option<Outcome> {
    Some(Outcome::Undecided {
        message,
        notes: Vec::new(),
        help: help.to_owned(),
    })
}

/// Why a fact is unknown, in words.
fn why(w: Why) -> &'static str {
    match w {
        Why::NotAffine => "the address is not an affine function of the lane (it depends on loaded data, a non-linear operation or values merged after divergence)",
        Why::PhaseSpansRows => "the declared workgroup's x size puts lanes of one phase on different rows",
        Why::StrideUnknown => "the distance between lanes is not known",
    }
}

/// A fact that rests on assumptions only a declared shape can settle.
fn assumed(fact: &Fact) -> Option<Outcome> {
    let list: Vec<String> = fact.assumptions.iter().map(ToString::to_string).collect();
    undecided(
        format!("the facts hold only with the {}", list.join(" and ")),
        "declare the workgroup's shape before `kernel`, `#[workgroup_size(256)]` for example",
    )
}

fn conflict_free(program: &Program, facts: &Facts, i: usize) -> Option<Outcome> {
    let geo = Geometry::REFERENCE;
    let names = SymNames::of(program);
    for width in WIDTHS {
        let fact = facts.lds_conflicts(i, &geo, width)?;
        let cycles = match &fact.value {
            Degree::Exact(0) | Degree::Range(_, 0) if fact.assumptions.is_empty() => continue,
            _ if !fact.assumptions.is_empty() => return assumed(&fact),
            Degree::Exact(n) => *n,
            Degree::Range(lo, _) if *lo > 0 => *lo,
            Degree::Range(_, hi) => {
                return undecided(
                    format!("a phase has no bank conflict or up to {} extra cycles, depending on where the array's index starts", hi),
                    "start the index at a known multiple of 32 words, or remove `#[conflict_free]`",
                )
            }
            Degree::Condition(c) => {
                let cases: Vec<String> = c
                    .cases()
                    .iter()
                    .filter_map(|(v, d)| Some(format!("{}-way when it is {v}", ways(d.as_ref()?)?)))
                    .collect();
                return undecided(
                    format!(
                        "the bank conflicts depend on the lane stride, {} bytes ({})",
                        names.lin(&c.stride),
                        cases.join(", ")
                    ),
                    "make the stride a constant odd number of words, or remove `#[conflict_free]`",
                );
            }
            Degree::Unknown(w) => {
                return undecided(
                    format!("the bank conflicts are unknown: {}", why(*w)),
                    "remove `#[conflict_free]`, or index the array by an affine function of `lane_id` or `local_id.x`",
                )
            }
        };
        let stride = facts.lane_stride(i, width);
        let mut notes = vec![format!(
            "at wave{width}: every fully active phase of {} lanes takes {cycles} extra cycles",
            geo.lanes(width)
        )];
        let span = geo.lds_banks * geo.lds_bank_bytes;
        let help = match stride {
            Some(s) => {
                let s = s.unsigned_abs();
                if let Some(k) = (1..geo.lanes(width) as u64)
                    .find(|k| (k * s) % u64::from(span) == 0 && k * s != 0)
                {
                    notes.push(if k == 1 {
                        format!(
                            "lanes are {s} bytes apart, a multiple of the {span} bytes the {} banks span: neighbouring lanes hit one bank at different words",
                            geo.lds_banks
                        )
                    } else {
                        format!(
                            "lanes are {s} bytes apart: lanes 0 and {k} are {} bytes apart, a multiple of the {span} bytes the {} banks span, so they hit one bank at different words",
                            k * s,
                            geo.lds_banks
                        )
                    });
                }
                let lane_bytes = facts
                    .accesses
                    .get(i)
                    .and_then(Option::as_ref)
                    .map_or(4, |a| a.size * a.elems);
                let word = u64::from(geo.lds_bank_bytes);
                match Facts::pitch_padding(s, lane_bytes, geo.lds_bank_bytes) {
                    Some(unit) if unit == word => format!(
                        "pad the pitch by one word: lanes {} bytes ({} words) apart fall in {} different banks",
                        s + word,
                        s / word + 1,
                        geo.lds_banks
                    ),
                    Some(unit) => format!(
                        "pad the pitch by one {unit}-byte element: lanes {} bytes apart fall in different banks",
                        s + unit
                    ),
                    None => "make neighbouring lanes access neighbouring words".to_owned(),
                }
            }
            None => "make neighbouring lanes access neighbouring words".to_owned(),
        };
        return Some(Outcome::Disproved {
            message: format!("a {}-way bank conflict at wave{width}", cycles + 1),
            notes,
            help,
        });
    }
    None
}

/// `n` extra cycles as an `n + 1`-way conflict, for an exact degree.
fn ways(d: &Degree) -> Option<u64> {
    match d {
        Degree::Exact(n) => Some(n + 1),
        _ => None,
    }
}

fn coalesced(program: &Program, facts: &Facts, i: usize) -> Option<Outcome> {
    let names = SymNames::of(program);
    let access = facts.accesses.get(i)?.as_ref()?;
    let bytes = i64::from(access.bytes());
    for width in WIDTHS {
        let fact = facts.global_sectors(i, &SECTORS, width)?;
        if let Degree::Unknown(w) = fact.value {
            return undecided(
                format!("the lanes' addresses are unknown: {}", why(w)),
                "remove `#[coalesced]`, or index the buffer by an affine function of the lane",
            );
        }
        if !fact.assumptions.is_empty() {
            return assumed(&fact);
        }
        let Some(stride) = facts.lane_stride(i, width) else {
            let stride = match &fact.value {
                Degree::Condition(c) => format!("{} bytes", names.lin(&c.stride)),
                _ => "not a constant".to_owned(),
            };
            return undecided(
                format!("the distance between neighbouring lanes depends on the inputs: {stride}"),
                "index by the lane with a constant coefficient, or remove `#[coalesced]`",
            );
        };
        if stride == 0 || stride.abs() == bytes {
            continue;
        }
        let lanes = SECTORS.lanes(width);
        let fewest = (i64::from(lanes) * bytes)
            .div_euclid(i64::from(SECTORS.sector_bytes))
            .max(1);
        return Some(Outcome::Disproved {
            message: format!(
                "lanes are {} bytes apart for {bytes}-byte accesses at wave{width}",
                stride.abs()
            ),
            notes: vec![format!(
                "a fully active phase of {lanes} lanes touches {} sectors of {} bytes, where {fewest} (one more when the base is not aligned) would do",
                fact.value, SECTORS.sector_bytes
            )],
            help: "make consecutive lanes access consecutive elements (index by `global_id.x` or `lane_id` times one), or stage the access through LDS".to_owned(),
        });
    }
    None
}

fn uniform(program: &Program, facts: &Facts, i: usize, mnemonic: &str) -> Option<Outcome> {
    let info = simt_lang::uniformity(program)?;
    let outside = info.control.get(i).copied()?;
    let inside = info.control.get(i + 1).copied()?;
    if inside != Uniformity::Lane {
        return None;
    }
    let construct = if mnemonic == "loop" {
        "the lanes that go on with this loop (its `endloop` condition, `break`s and `continue`s)"
    } else {
        "this `if`'s mask"
    };
    if outside == Uniformity::Lane {
        return undecided(
            format!("the `{mnemonic}` is already under control that may differ between lanes, so the analysis cannot tell whether {construct} is the same in every lane"),
            "move it out of the divergent `if` or `loop`, or remove `#[uniform]`",
        );
    }
    let help = "compute the mask from scalar registers, kernel scalars or `group_id`, or remove `#[uniform]`";
    // A witness: two lanes of one wave the comparison splits, in a launch of
    // the declared shape, or of one row of that many lanes.
    let cond = facts.conds.get(i).and_then(Option::as_ref);
    for width in WIDTHS {
        let shape = program.workgroup_size.unwrap_or([width, 1, 1]);
        if let Some([p, q]) = cond.and_then(|c| split_wave(c, shape, width)) {
            return Some(Outcome::Disproved {
                message: format!("{construct} differs between lanes of a wave"),
                notes: vec![format!(
                    "at wave{width}, in a workgroup of {}: {} and {} of one wave take different arms",
                    shape.map(|d| d.to_string()).join("x"),
                    item_text(&p, shape, width),
                    item_text(&q, shape, width)
                )],
                help: help.to_owned(),
            });
        }
    }
    // Proved: every lane of every wave compares alike, for the declared
    // shape, or for any shape when only the lane and constants are read.
    if let Some(c) = cond {
        let lane_only = [&c.a, &c.b].iter().all(|f| {
            f.per_lane[1..].iter().all(|k| k.is_zero())
                && f.syms().all(|s| s == Sym::Special(SpecialSym::WaveWidth))
        });
        let proved = WIDTHS.iter().all(|&width| {
            let shape = match program.workgroup_size {
                Some(shape) => shape,
                None if lane_only => [width, 1, 1],
                None => return false,
            };
            wave_uniform(c, shape, width) == Some(true)
        });
        if proved {
            return None;
        }
    }
    undecided(
        format!("{construct} is computed from values that may differ between lanes (a vector register, `lane_id`, `local_id`, `global_id` or data loaded per lane), and no two lanes it splits could be shown"),
        help,
    )
}

/// What an access does to its word, as a verb: `reads`, `writes`, `updates`.
pub(crate) fn verb(kind: Option<AccessKind>) -> &'static str {
    match kind {
        Some(AccessKind::Load) => "reads",
        Some(AccessKind::Store) => "writes",
        _ => "updates",
    }
}

/// The memory operand of an instruction, as written.
pub(crate) fn memory_operand(w: &Written) -> Option<Location> {
    w.inst?.operands.iter().find_map(|op| match op {
        Operand::Mem { .. } => {
            let (first, last) = op.spans();
            Some(Location::tokens(first, last))
        }
        _ => None,
    })
}

pub(crate) fn shape_text(shape: [u32; 3]) -> String {
    match shape {
        [x, 1, 1] => x.to_string(),
        [x, y, 1] => format!("{x}, {y}"),
        [x, y, z] => format!("{x}, {y}, {z}"),
    }
}

/// "work-item 127 (wave 3)", or with its local id's three parts for a
/// workgroup with rows.
fn item_text(item: &WorkItem, shape: [u32; 3], width: u32) -> String {
    let linear = item.local[0] + shape[0] * (item.local[1] + shape[1] * item.local[2]);
    let id = match shape {
        [_, 1, 1] => item.local[0].to_string(),
        _ => format!("({}, {}, {})", item.local[0], item.local[1], item.local[2]),
    };
    let group = if item.group == [0; 3] {
        String::new()
    } else {
        format!(" of workgroup {:?}", item.group)
    };
    format!("work-item {id}{group} (wave {})", linear / width.max(1))
}

/// "`t[0]` (byte 0 of the workgroup's LDS)", or "byte 8 of `out`".
fn byte_text(program: &Program, space: Memory, address: u64) -> String {
    match space {
        Memory::Lds(idx) => match program.lds.get(usize::from(idx.0)) {
            Some(d) => {
                let size = u64::from(d.elem.size().max(1));
                let at = address.saturating_sub(u64::from(d.offset)) / size;
                format!("`{}[{at}]` (LDS byte {address})", d.name)
            }
            None => format!("LDS byte {address}"),
        },
        Memory::Global(p) => match program.params.get(usize::from(p.0)) {
            Some(param) => format!("byte {address} of `{}`", param.name),
            None => format!("global byte {address}"),
        },
    }
}
