//! What the sanitizers find: races, uninitialised reads and schedule-dependent
//! results, reported with the launch's statistics rather than as faults.
//!
//! A race is decided by happens-before over barrier epochs: two accesses of one
//! word, at least one of them a write and at least one of them plain (an
//! atomic is a read and a write; two atomics never race), race unless a
//! barrier orders them (the same workgroup, and a barrier between: different
//! epochs) or they are by the same wave (program order; with
//! [`LaneOrder::Independent`](crate::LaneOrder::Independent), by the same lane,
//! or by two lanes of one wave with a `wave_barrier` both took part in between).
//! Accesses by different workgroups of a launch are never ordered. So a finding
//! does not depend on the order the waves happened to run in; its class (read
//! after write, write after read, write after write; an atomic counts as a
//! write) names the two accesses in the order they ran.

use serde::Serialize;

pub use crate::ir::Space;

/// The two accesses of a race, in the order they ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum RaceClass {
    /// A read of a word another access wrote without ordering.
    ReadAfterWrite,
    /// A write of a word another access read without ordering.
    WriteAfterRead,
    /// A write of a word another access wrote without ordering.
    WriteAfterWrite,
}

/// Which two parties of a race no order separates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Scope {
    /// Two lanes of one wave, with no `barrier` or `wave_barrier` both took
    /// part in between: a race only with
    /// [`LaneOrder::Independent`](crate::LaneOrder::Independent).
    Lanes,
    /// Two waves of one workgroup, with no `barrier` between.
    Waves,
    /// Two workgroups, which nothing orders.
    Workgroups,
}

impl Scope {
    /// The scope of two accesses by `(workgroup, wave)` pairs `a` and `b`.
    pub fn of(a: (u32, u32), b: (u32, u32)) -> Scope {
        if a.0 != b.0 {
            Scope::Workgroups
        } else if a.1 != b.1 {
            Scope::Waves
        } else {
            Scope::Lanes
        }
    }
}

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum FindingKind {
    /// Two unordered accesses of one word, at least one a write and at least
    /// one plain.
    Race {
        /// The memory.
        space: Space,
        /// The accesses, in the order they ran.
        class: RaceClass,
        /// Who made the two accesses.
        scope: Scope,
        /// The pair's plain write stores the value already there (a write after
        /// a write of the same value, or a read against such a write): still a
        /// race, often intended (every lane storing the same flag), but every
        /// access sees the same value whichever runs first; reported at a
        /// lower level.
        same_value: bool,
    },
    /// A race the static facts prove for the launch's workgroup shape and wave
    /// width before it runs, whether or not its inputs lead both work-items to
    /// the two instructions: `at` and `other` are the witness's work-items
    /// (at its second and first instruction), `address` the first byte both
    /// touch. Reported by launches with the sanitizers on.
    ProvedRace {
        /// The memory.
        space: Space,
        /// Who the two work-items are.
        scope: Scope,
    },
    /// Two active lanes of one store write different values to one word.
    LanesDisagree {
        /// The memory.
        space: Space,
    },
    /// A lane reads a vector register it never wrote.
    UninitVectorRegister {
        /// The register number.
        reg: u16,
    },
    /// A wave reads a scalar register it never wrote.
    UninitScalarRegister {
        /// The register number.
        reg: u16,
    },
    /// A wave reads a mask register it never wrote.
    UninitMaskRegister {
        /// The register number.
        reg: u16,
    },
    /// A load or atomic of an LDS word not written since the workgroup started.
    UninitLds,
    /// Output bytes that differ when the workgroups and waves run in another
    /// order (the schedule check); `bytes` counts them, `address` is the
    /// first, [`Finding::byte`] names its buffer and offset, `at` is the last
    /// write of it in the normal order (in the other order when the normal one
    /// never wrote it) and `other` the last write in the other order.
    ScheduleDependent,
}

impl FindingKind {
    /// Whether the finding is reported at the lower level: a race whose plain
    /// write stores the value already there.
    pub fn is_minor(&self) -> bool {
        matches!(
            self,
            FindingKind::Race {
                same_value: true,
                ..
            }
        )
    }
}

/// One access of a finding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Site {
    /// The instruction's index in the program.
    pub inst: u32,
    /// Its source line.
    pub line: u32,
    /// The workgroup's id.
    pub workgroup: [u32; 3],
    /// The wave within the workgroup.
    pub wave: u32,
    /// The lane.
    pub lane: u32,
}

/// A byte of a buffer parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct BufferByte {
    /// The parameter's name.
    pub buffer: String,
    /// The byte's offset in the buffer.
    pub offset: u64,
}

/// A finding: what, where, and how often (deduplicated per instruction pair).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// The access or read that revealed it (the later one of a race).
    pub at: Site,
    /// The earlier access of a race, or the other lane of a disagreeing store.
    pub other: Option<Site>,
    /// The byte address (global: in the launch's address space; LDS: the byte
    /// offset in the workgroup's LDS), where there is one.
    pub address: Option<u64>,
    /// The bytes both accesses touch (a race), or the bytes read.
    pub bytes: u32,
    /// How many times this pair of instructions showed this finding.
    pub occurrences: u64,
    /// The buffer and offset of `address`, where the finding names them (a
    /// schedule-dependent output byte).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte: Option<BufferByte>,
    /// The declared name of the register an uninitialised read is about, when
    /// the kernel named it (`Program::reg_names`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub register: Option<String>,
}

impl Finding {
    /// "read of `x` (v2) before any write", by the declared name where there is one.
    fn read_before_write(&self, class: char, reg: u16) -> String {
        match &self.register {
            Some(name) => format!("read of `{name}` ({class}{reg}) before any write"),
            None => format!("read of `{class}{reg}` before any write"),
        }
    }
}

/// How a race's memory and the two accesses' scope are worded.
fn race_words(space: Space, scope: Scope) -> (&'static str, &'static str) {
    let space = match space {
        Space::Lds => "LDS",
        Space::Global => "global",
    };
    let scope = match scope {
        Scope::Workgroups => "across workgroups",
        Scope::Waves => "between waves with no barrier",
        Scope::Lanes => "between lanes of one wave with no barrier or wave barrier",
    };
    (space, scope)
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let site = |s: Site| {
            format!(
                "line {} (workgroup {:?}, wave {}, lane {})",
                s.line, s.workgroup, s.wave, s.lane
            )
        };
        if let (FindingKind::ScheduleDependent, Some(b)) = (self.kind, &self.byte) {
            write!(
                f,
                "{} output byte(s) differ when workgroups and waves run in another order; \
                 the first, byte {} of `{}`, was last written by {}",
                self.bytes,
                b.offset,
                b.buffer,
                site(self.at)
            )?;
            if let Some(o) = self.other {
                write!(f, " (in the other order by {})", site(o))?;
            }
            if let Some(a) = self.address {
                write!(f, ", address {a:#x}")?;
            }
            return Ok(());
        }
        let what = match self.kind {
            FindingKind::Race {
                space,
                class,
                scope,
                same_value,
            } => {
                let class = match class {
                    RaceClass::ReadAfterWrite => "read after write",
                    RaceClass::WriteAfterRead => "write after read",
                    RaceClass::WriteAfterWrite => "write after write",
                };
                let same = if same_value { " (same value)" } else { "" };
                let (space, scope) = race_words(space, scope);
                format!("{space} race, {class}{same}, {scope}")
            }
            FindingKind::ProvedRace { space, scope } => {
                let (space, scope) = race_words(space, scope);
                format!("{space} race proved for this launch's shape, {scope}, whatever the inputs")
            }
            FindingKind::LanesDisagree { .. } => {
                "two lanes of one store write different values to one word".to_owned()
            }
            FindingKind::UninitVectorRegister { reg } => self.read_before_write('v', reg),
            FindingKind::UninitScalarRegister { reg } => self.read_before_write('s', reg),
            FindingKind::UninitMaskRegister { reg } => self.read_before_write('m', reg),
            FindingKind::UninitLds => {
                "LDS load or atomic of a word not written in this workgroup".to_owned()
            }
            FindingKind::ScheduleDependent => format!(
                "{} output byte(s) differ when workgroups and waves run in another order",
                self.bytes
            ),
        };
        write!(f, "{what}: {}", site(self.at))?;
        if let Some(o) = self.other {
            write!(f, " and {}", site(o))?;
        }
        if let Some(a) = self.address {
            write!(f, ", address {a:#x}")?;
        }
        if let Some(b) = &self.byte {
            write!(f, ", byte {} of `{}`", b.offset, b.buffer)?;
        }
        write!(f, ", {} time(s)", self.occurrences)
    }
}

/// The findings of a launch, deduplicated per kind and instruction pair.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Findings {
    /// The distinct findings kept, in the order first seen.
    pub list: Vec<Finding>,
    /// Distinct findings past [`Findings::CAP`], not kept.
    pub dropped: u64,
}

impl Findings {
    /// The most distinct findings a launch keeps.
    pub const CAP: usize = 64;

    /// Whether nothing was found (minor findings included).
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.dropped == 0
    }

    /// The findings that are not [minor](FindingKind::is_minor).
    pub fn major(&self) -> impl Iterator<Item = &Finding> {
        self.list.iter().filter(|f| !f.kind.is_minor())
    }

    /// Puts `found` (found before the launch ran) ahead of what it found,
    /// within the cap.
    pub(crate) fn prepend(&mut self, found: Vec<Finding>) {
        let ran = std::mem::take(&mut self.list);
        for f in found.into_iter().chain(ran) {
            self.add(f);
        }
    }

    /// Records one occurrence.
    pub(crate) fn add(&mut self, finding: Finding) {
        let key = |f: &Finding| (f.kind, f.at.inst, f.other.map(|o| o.inst));
        let k = key(&finding);
        if let Some(f) = self.list.iter_mut().find(|f| key(f) == k) {
            f.occurrences += 1;
        } else if self.list.len() < Self::CAP {
            self.list.push(finding);
        } else {
            self.dropped += 1;
        }
    }

    /// Panics with every finding listed when there is any that is not minor: a
    /// one-line assertion for tests.
    #[track_caller]
    pub fn assert_none(&self) {
        let major: Vec<String> = self.major().map(ToString::to_string).collect();
        assert!(
            major.is_empty() && self.dropped == 0,
            "the sanitizers found:\n  {}",
            major.join("\n  ")
        );
    }
}
