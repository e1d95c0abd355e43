//! What a launch's `print` instructions printed.
//!
//! Each active lane of a `print` makes one line. Lines are ordered by
//! workgroup (x fastest), then by the order the workgroup's waves issued
//! their `print`s, then by lane, whatever the threads that ran the launch.
//! A launch keeps the first [`MAX_PRINT_LINES`] in that order and counts the
//! rest: a `print` in a long loop cannot fill memory. Printing changes no
//! register, memory or counter.

use crate::ir::{render, Program, MAX_PRINT_VALUES};
use crate::limits::MAX_PRINT_LINES;
use serde::Serialize;

/// One line printed by one lane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PrintLine {
    /// The workgroup's id.
    pub workgroup: [u32; 3],
    /// The wave's index in its workgroup.
    pub wave: u32,
    /// The lane's index in its wave.
    pub lane: u32,
    /// The source line of the `print`.
    pub line: u32,
    /// The format with the lane's values.
    pub text: String,
}

/// The lines a launch printed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Prints {
    /// The first lines in print order, at most [`MAX_PRINT_LINES`].
    pub lines: Vec<PrintLine>,
    /// Lines printed past those kept.
    pub dropped: u64,
    /// The lanes' values while the launch runs.
    #[serde(skip)]
    pub(crate) log: PrintLog,
}

impl Prints {
    /// Whether nothing was printed.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped == 0
    }
}

/// The values printed while a launch runs, formatted when it ends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PrintLog {
    /// The lines kept so far: the first in print order, and some after them
    /// until the next trim.
    pending: Vec<Pending>,
    /// Every line printed, kept or not.
    total: u64,
    /// The running workgroup: its linear index and id.
    group: u64,
    id: [u32; 3],
    /// The `print`s its waves issued so far.
    issued: u64,
    /// Once [`MAX_PRINT_LINES`] lines are kept, the largest of their keys:
    /// a line after it in print order can never be among the first.
    last_kept: Option<(u64, u64, u8)>,
}

/// One lane's line before formatting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    group: u64,
    issue: u64,
    lane: u8,
    wave: u32,
    id: [u32; 3],
    pc: u32,
    values: [u32; MAX_PRINT_VALUES],
}

impl Pending {
    fn key(&self) -> (u64, u64, u8) {
        (self.group, self.issue, self.lane)
    }
}

impl PrintLog {
    /// Workgroup `linear` (id `id`) starts.
    pub(crate) fn begin_group(&mut self, linear: u64, id: [u32; 3]) {
        self.group = linear;
        self.id = id;
        self.issued = 0;
    }

    /// A `print` at `pc` issued by `wave`: the lanes of `exec` print
    /// `values[k][lane]`.
    pub(crate) fn issue<const W: usize>(
        &mut self,
        wave: usize,
        pc: usize,
        exec: u64,
        values: [&[u32; W]; MAX_PRINT_VALUES],
    ) {
        let issue = self.issued;
        self.issued += 1;
        let mut bits = exec;
        while bits != 0 {
            let lane = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if lane >= W {
                break;
            }
            self.total += 1;
            if self
                .last_kept
                .is_some_and(|k| (self.group, issue, lane as u8) > k)
            {
                continue;
            }
            self.pending.push(Pending {
                group: self.group,
                issue,
                lane: lane as u8,
                wave: wave as u32,
                id: self.id,
                pc: pc as u32,
                values: values.map(|v| v[lane]),
            });
        }
        if self.pending.len() >= 2 * MAX_PRINT_LINES {
            self.trim();
        }
    }

    /// Keeps the first lines in print order.
    fn trim(&mut self) {
        self.pending.sort_unstable_by_key(Pending::key);
        self.pending.truncate(MAX_PRINT_LINES);
        if self.pending.len() == MAX_PRINT_LINES {
            self.last_kept = self.pending.last().map(Pending::key);
        }
    }

    /// Adds another worker's lines.
    pub(crate) fn merge(&mut self, other: &PrintLog) {
        self.total += other.total;
        self.pending.extend_from_slice(&other.pending);
        if self.pending.len() >= 2 * MAX_PRINT_LINES {
            self.trim();
        }
    }

    /// The lines, formatted with `program`'s formats.
    pub(crate) fn finish(&mut self, program: &Program) -> Prints {
        self.trim();
        let lines: Vec<PrintLine> = self
            .pending
            .iter()
            .map(|p| {
                let text = match program.insts.get(p.pc as usize) {
                    Some(crate::isa::Inst::Print { format, .. }) => {
                        let values = &p.values[..usize::from(format.values).min(MAX_PRINT_VALUES)];
                        let f = program.formats.get(usize::from(format.index));
                        render(f.map_or("", |f| f.as_ref()), values)
                    }
                    _ => String::new(),
                };
                PrintLine {
                    workgroup: p.id,
                    wave: p.wave,
                    lane: u32::from(p.lane),
                    line: program.loc(p.pc as usize).line,
                    text,
                }
            })
            .collect();
        Prints {
            dropped: self.total - lines.len() as u64,
            lines,
            log: PrintLog::default(),
        }
    }
}
