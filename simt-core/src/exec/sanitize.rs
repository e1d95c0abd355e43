//! The sanitizers' shadow state: for every LDS and buffer word, the last write
//! and up to two reads with who made them and in which barrier epoch; for every
//! register, which lanes (or whether the wave) wrote it.
//!
//! Words are 4 bytes; each access records the bytes of the word it touched, so
//! byte and half-word accesses of neighbouring bytes do not race. When a write
//! does not overlap the word's last write, the two are merged into one record
//! (its bytes the union, its site the newer): a later conflict with the older
//! bytes is still found, attributed to the newer write.

use crate::findings::{Finding, FindingKind, Findings, RaceClass, Site, Space};
use crate::ir::{Program, Reg};
use crate::isa::{Inst, Unit};

/// One access, as the shadow remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Access {
    /// The workgroup's linear index in the launch.
    group: u32,
    wave: u16,
    lane: u8,
    /// The bytes of the word touched.
    bytes: u8,
    /// Barriers the workgroup had passed.
    epoch: u32,
    inst: u32,
}

impl Access {
    /// Whether `self` happens before `later`: program order within a wave, or
    /// a barrier between them within a workgroup.
    fn ordered(&self, later: &Access) -> bool {
        self.group == later.group && (self.wave == later.wave || self.epoch != later.epoch)
    }
}

/// A word's shadow.
#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    write: Option<Access>,
    /// The value the last write left, to tell same-value writes apart.
    value: u32,
    reads: [Option<Access>; 2],
}

/// How a memory instruction touches its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Load,
    Store,
}

/// The shadow state of a launch, kept by the machine between launches.
#[derive(Debug, Default)]
pub(crate) struct Sanitizer {
    /// The grid's shape, to name other workgroups by id.
    grid: [u32; 3],
    /// The workgroup running: its linear index, id and epoch.
    group: u32,
    group_id: [u32; 3],
    epoch: u32,
    lds: Vec<Shadow>,
    /// Per buffer parameter, its words.
    global: Vec<Vec<Shadow>>,
    /// Per wave and vector register, the lanes written.
    vwritten: Vec<u64>,
    /// Per wave and scalar register, whether written.
    swritten: Vec<bool>,
    mwritten: Vec<bool>,
    regs: (usize, usize, usize),
    pub(crate) findings: Findings,
}

/// One memory instruction's lanes, for the shadow.
pub(super) struct Lanes<'a> {
    pub(super) exec: u64,
    /// Byte offsets of each lane's first byte (global: within the buffer; LDS:
    /// within the workgroup's LDS).
    pub(super) offs: &'a [u32],
    /// Bytes per element and elements per lane.
    pub(super) size: u32,
    pub(super) count: u32,
    /// The values stored, per element (stores only).
    pub(super) values: &'a [&'a [u32]],
}

impl Sanitizer {
    /// Clears the state for a launch of `program` with buffers of these byte
    /// lengths (by parameter index) and `waves` waves per workgroup.
    pub(crate) fn start(
        &mut self,
        program: &Program,
        grid: [u32; 3],
        buffers: &[usize],
        waves: usize,
    ) {
        self.grid = grid;
        self.global.resize_with(buffers.len(), Vec::new);
        for (shadow, &len) in self.global.iter_mut().zip(buffers) {
            shadow.clear();
            shadow.resize(len.div_ceil(4), Shadow::default());
        }
        self.lds.clear();
        self.lds
            .resize((program.lds_bytes as usize).div_ceil(4), Shadow::default());
        self.regs = (
            usize::from(program.vregs),
            usize::from(program.sregs),
            usize::from(program.mregs),
        );
        self.vwritten.clear();
        self.vwritten.resize(waves * self.regs.0, 0);
        self.swritten.clear();
        self.swritten.resize(waves * self.regs.1, false);
        self.mwritten.clear();
        self.mwritten.resize(waves * self.regs.2, false);
        self.findings = Findings::default();
    }

    /// A workgroup starts: fresh LDS and registers, epoch 0.
    pub(crate) fn workgroup(&mut self, linear: u32, id: [u32; 3]) {
        self.group = linear;
        self.group_id = id;
        self.epoch = 0;
        self.lds.fill(Shadow::default());
        self.vwritten.fill(0);
        self.swritten.fill(false);
        self.mwritten.fill(false);
    }

    /// Every wave of the workgroup passed a barrier.
    pub(crate) fn barrier(&mut self) {
        self.epoch += 1;
    }

    fn site(&self, program: &Program, inst: u32, wave: u16, lane: u8) -> Site {
        Site {
            workgroup: self.group_id,
            ..site_of(
                self.grid,
                program,
                &Access {
                    group: self.group,
                    wave,
                    lane,
                    bytes: 0,
                    epoch: self.epoch,
                    inst,
                },
            )
        }
    }

    /// Checks the registers `inst` reads in the wave's active lanes, then marks
    /// the ones it writes.
    pub(super) fn registers(
        &mut self,
        program: &Program,
        pc: usize,
        inst: &Inst,
        wave: usize,
        exec: u64,
    ) {
        let fields = inst.fields();
        let (nv, ns, nm) = self.regs;
        let mut uninit = Vec::new();
        let reads_v = |r: u16, v: &Vec<u64>| {
            v.get(wave * nv + usize::from(r))
                .copied()
                .unwrap_or(u64::MAX)
        };
        for reg in fields.read() {
            match reg {
                Reg::V(r) => {
                    let missing = exec & !reads_v(r.0, &self.vwritten);
                    if missing != 0 {
                        uninit.push((
                            FindingKind::UninitVectorRegister { reg: r.0 },
                            missing.trailing_zeros(),
                        ));
                    }
                }
                Reg::S(r) => {
                    if !self
                        .swritten
                        .get(wave * ns + usize::from(r.0))
                        .copied()
                        .unwrap_or(true)
                    {
                        uninit.push((
                            FindingKind::UninitScalarRegister { reg: r.0 },
                            exec.trailing_zeros(),
                        ));
                    }
                }
                Reg::M(r) => {
                    if !self
                        .mwritten
                        .get(wave * nm + usize::from(r.0))
                        .copied()
                        .unwrap_or(true)
                    {
                        uninit.push((
                            FindingKind::UninitMaskRegister { reg: r.0 },
                            exec.trailing_zeros(),
                        ));
                    }
                }
            }
        }
        for (kind, lane) in uninit {
            let at = self.site(program, pc as u32, wave as u16, lane.min(63) as u8);
            self.findings.add(Finding {
                kind,
                at,
                other: None,
                address: None,
                bytes: 4,
                occurrences: 1,
            });
        }
        // A scalar write, a scalar compare's mask and the wave reductions set
        // the whole register; vector writes set the active lanes.
        let whole = inst.opcode().unit() == Unit::Scalar;
        for reg in fields.written() {
            match reg {
                Reg::V(r) => {
                    if let Some(w) = self.vwritten.get_mut(wave * nv + usize::from(r.0)) {
                        *w |= exec;
                    }
                }
                Reg::S(r) => {
                    if let Some(w) = self.swritten.get_mut(wave * ns + usize::from(r.0)) {
                        *w = true;
                    }
                }
                Reg::M(r) => {
                    if let Some(w) = self.mwritten.get_mut(wave * nm + usize::from(r.0)) {
                        // A vector compare writes the active lanes' bits only,
                        // which still makes every later `if` read defined bits
                        // in those lanes; it counts as a write.
                        *w |= whole || exec != 0;
                    }
                }
            }
        }
    }

    /// Checks and records the accesses of one memory instruction. `buffer` is
    /// the buffer parameter (global) or `None` (LDS); `base` the address the
    /// findings report offsets from.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn memory(
        &mut self,
        program: &Program,
        pc: usize,
        wave: usize,
        kind: Kind,
        buffer: Option<usize>,
        base: u64,
        lanes: &Lanes<'_>,
    ) {
        let space = if buffer.is_some() {
            Space::Global
        } else {
            Space::Lds
        };
        if kind == Kind::Store {
            self.lanes_disagree(program, pc, wave, space, base, lanes);
        }
        let mut exec = lanes.exec;
        while exec != 0 {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let Some(&first) = lanes.offs.get(lane) else {
                continue;
            };
            for k in 0..lanes.count {
                let off = first.wrapping_add(k * lanes.size);
                let word = (off / 4) as usize;
                let mask = (((1u32 << lanes.size.min(4)) - 1) << (off % 4)) as u8;
                let me = Access {
                    group: self.group,
                    wave: wave as u16,
                    lane: lane as u8,
                    bytes: mask,
                    epoch: self.epoch,
                    inst: pc as u32,
                };
                let value = lanes
                    .values
                    .get(k as usize)
                    .and_then(|v| v.get(lane))
                    .copied()
                    .unwrap_or(0);
                let address = base + u64::from(off & !3);
                let shadows = match buffer {
                    Some(b) => self.global.get_mut(b),
                    None => Some(&mut self.lds),
                };
                let Some(shadow) = shadows.and_then(|s| s.get_mut(word)) else {
                    continue;
                };
                let found = check(shadow, &me, kind, value, space);
                for (kind, other) in found {
                    let at = site_of(self.grid, program, &me);
                    let other = other.map(|o| site_of(self.grid, program, &o));
                    self.findings.add(Finding {
                        kind,
                        at,
                        other,
                        address: Some(address),
                        bytes: u32::from(me.bytes).count_ones(),
                        occurrences: 1,
                    });
                }
            }
        }
    }

    /// Two active lanes of a store writing different values to one word.
    fn lanes_disagree(
        &mut self,
        program: &Program,
        pc: usize,
        wave: usize,
        space: Space,
        base: u64,
        lanes: &Lanes<'_>,
    ) {
        let mut writes: Vec<(u32, u32, u8)> = Vec::new();
        let mut exec = lanes.exec;
        while exec != 0 {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let Some(&first) = lanes.offs.get(lane) else {
                continue;
            };
            for k in 0..lanes.count {
                let value = lanes
                    .values
                    .get(k as usize)
                    .and_then(|v| v.get(lane))
                    .copied()
                    .unwrap_or(0);
                writes.push((first.wrapping_add(k * lanes.size), value, lane as u8));
            }
        }
        writes.sort_unstable();
        for pair in writes.windows(2) {
            let ((o1, v1, l1), (o2, v2, l2)) = (pair[0], pair[1]);
            if o1 == o2 && v1 != v2 {
                let me = |lane| self.site(program, pc as u32, wave as u16, lane);
                let (at, other) = (me(l2), me(l1));
                self.findings.add(Finding {
                    kind: FindingKind::LanesDisagree { space },
                    at,
                    other: Some(other),
                    address: Some(base + u64::from(o1)),
                    bytes: lanes.size,
                    occurrences: 1,
                });
            }
        }
    }
}

/// The site of an access; its workgroup's id from its linear index (x fastest).
fn site_of(grid: [u32; 3], program: &Program, a: &Access) -> Site {
    let (gx, gy) = (grid[0].max(1), grid[1].max(1));
    Site {
        inst: a.inst,
        line: program.loc(a.inst as usize).line,
        workgroup: [a.group % gx, (a.group / gx) % gy, a.group / (gx * gy)],
        wave: u32::from(a.wave),
        lane: u32::from(a.lane),
    }
}

/// The races of access `me` against a word's shadow, then the shadow updated.
fn check(
    shadow: &mut Shadow,
    me: &Access,
    kind: Kind,
    value: u32,
    space: Space,
) -> Vec<(FindingKind, Option<Access>)> {
    let mut found = Vec::new();
    let race = |class, other: &Access, same_value| FindingKind::Race {
        space,
        class,
        across_workgroups: other.group != me.group,
        same_value,
    };
    let overlaps = |a: &Access| a.bytes & me.bytes != 0;
    match kind {
        Kind::Load => {
            match shadow.write {
                Some(w) if overlaps(&w) && !w.ordered(me) => {
                    found.push((race(RaceClass::ReadAfterWrite, &w, false), Some(w)));
                }
                Some(w) if w.bytes & me.bytes == me.bytes => {}
                // Bytes no write of this workgroup set: an LDS word read
                // before it was written.
                _ if space == Space::Lds => found.push((FindingKind::UninitLds, None)),
                _ => {}
            }
            // Keep two readers of distinct waves, replacing one the new read
            // is ordered after.
            let slot = shadow
                .reads
                .iter()
                .position(|r| r.is_none_or(|r| r.group == me.group && r.wave == me.wave))
                .or_else(|| {
                    shadow
                        .reads
                        .iter()
                        .position(|r| r.is_some_and(|r| r.ordered(me)))
                });
            if let Some(s) = slot {
                shadow.reads[s] = Some(*me);
            }
        }
        Kind::Store => {
            if let Some(w) = shadow.write {
                if overlaps(&w) && !w.ordered(me) {
                    let same = shadow.value == value;
                    found.push((race(RaceClass::WriteAfterWrite, &w, same), Some(w)));
                }
            }
            for r in shadow.reads.iter().flatten() {
                if overlaps(r) && !r.ordered(me) {
                    found.push((race(RaceClass::WriteAfterRead, r, false), Some(*r)));
                    break;
                }
            }
            let merged = match shadow.write {
                Some(w) if !overlaps(&w) => w.bytes | me.bytes,
                _ => me.bytes,
            };
            shadow.write = Some(Access {
                bytes: merged,
                ..*me
            });
            shadow.value = value;
        }
    }
    found
}
