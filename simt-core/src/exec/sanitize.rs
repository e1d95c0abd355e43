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
use crate::isa::Unit;

/// One access, as the shadow remembers it; `bytes == 0` is no access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Access {
    /// The workgroup's linear index in the launch.
    group: u32,
    /// Barriers the workgroup had passed.
    epoch: u32,
    inst: u32,
    wave: u16,
    lane: u8,
    /// The bytes of the word touched.
    bytes: u8,
}

impl Access {
    /// Whether `self` happens before `later`: program order within a wave, or
    /// a barrier between them within a workgroup.
    fn ordered(&self, later: &Access) -> bool {
        self.group == later.group && (self.wave == later.wave || self.epoch != later.epoch)
    }

    fn is_some(&self) -> bool {
        self.bytes != 0
    }
}

/// A word's shadow; it is empty unless `generation` is the current one, so
/// that a launch or workgroup starts clean without clearing the table.
#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    generation: u32,
    write: Access,
    /// The value the last write left, to tell same-value writes apart.
    value: u32,
    reads: [Access; 2],
}

/// How a memory instruction touches its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Load,
    Store,
}

/// A register an instruction reads or writes: its slot among a wave's
/// registers (vector, then scalar, then mask) and its kind.
#[derive(Clone, Copy, Debug)]
struct RegUse {
    slot: u32,
    reg: Reg,
    /// A write of the whole register (scalar unit), not of the active lanes.
    whole: bool,
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
    /// The generation global shadows are valid in (one per launch) and LDS
    /// shadows (one per workgroup).
    launch_gen: u32,
    group_gen: u32,
    lds: Vec<Shadow>,
    /// Per buffer parameter, its words.
    global: Vec<Vec<Shadow>>,
    /// Per wave and register slot, the lanes written (all ones once a scalar
    /// or mask register is written whole).
    written: Vec<u64>,
    slots: usize,
    /// Per instruction, the range of `uses` it reads and the range it writes.
    reads: Vec<(u32, u32)>,
    writes: Vec<(u32, u32)>,
    uses: Vec<RegUse>,
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

/// The generation after `g`; 0 is never used, so zeroed shadows are empty.
fn bump(g: &mut u32, table: &mut [Shadow]) {
    *g = g.wrapping_add(1);
    if *g == 0 {
        table.fill(Shadow::default());
        *g = 1;
    }
}

impl Sanitizer {
    /// Prepares a launch of `program` over `grid` with writable buffers of these
    /// byte lengths (by parameter index; 0 for read-only buffers and scalars,
    /// which no access can race on) and `waves` waves per workgroup.
    pub(crate) fn start(
        &mut self,
        program: &Program,
        grid: [u32; 3],
        buffers: &[usize],
        waves: usize,
    ) {
        self.grid = grid;
        self.global.resize_with(buffers.len(), Vec::new);
        self.launch_gen = self.launch_gen.wrapping_add(1);
        for (shadow, &len) in self.global.iter_mut().zip(buffers) {
            let words = len.div_ceil(4);
            if words == 0 {
                shadow.clear();
            } else if shadow.len() < words {
                shadow.resize(words, Shadow::default());
            }
            if self.launch_gen == 0 {
                shadow.fill(Shadow::default());
            }
        }
        if self.launch_gen == 0 {
            self.launch_gen = 1;
        }
        let lds_words = (program.lds_bytes as usize).div_ceil(4);
        if self.lds.len() < lds_words {
            self.lds.resize(lds_words, Shadow::default());
        }
        let (nv, ns, nm) = (
            u32::from(program.vregs),
            u32::from(program.sregs),
            u32::from(program.mregs),
        );
        self.slots = (nv + ns + nm) as usize;
        self.written.clear();
        self.written.resize(waves * self.slots, 0);
        self.uses.clear();
        self.reads.clear();
        self.writes.clear();
        for inst in program.insts.iter() {
            let fields = inst.fields();
            let whole = inst.opcode().unit() == Unit::Scalar;
            let slot = |reg: Reg| match reg {
                Reg::V(r) => u32::from(r.0),
                Reg::S(r) => nv + u32::from(r.0),
                Reg::M(r) => nv + ns + u32::from(r.0),
            };
            let at = self.uses.len() as u32;
            for reg in fields.read() {
                self.uses.push(RegUse {
                    slot: slot(reg),
                    reg,
                    whole: false,
                });
            }
            let mid = self.uses.len() as u32;
            for reg in fields.written() {
                let whole = whole || matches!(reg, Reg::S(_));
                self.uses.push(RegUse {
                    slot: slot(reg),
                    reg,
                    whole,
                });
            }
            self.reads.push((at, mid));
            self.writes.push((mid, self.uses.len() as u32));
        }
        self.findings = Findings::default();
    }

    /// A workgroup starts: fresh LDS and registers, epoch 0.
    pub(crate) fn workgroup(&mut self, linear: u32, id: [u32; 3]) {
        self.group = linear;
        self.group_id = id;
        self.epoch = 0;
        bump(&mut self.group_gen, &mut self.lds);
        self.written.fill(0);
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
                    bytes: 1,
                    epoch: self.epoch,
                    inst,
                },
            )
        }
    }

    /// Checks the registers instruction `pc` reads in the wave's active lanes,
    /// then marks the ones it writes.
    pub(super) fn registers(&mut self, program: &Program, pc: usize, wave: usize, exec: u64) {
        let base = wave * self.slots;
        let (Some(&(r0, r1)), Some(&(w0, w1))) = (self.reads.get(pc), self.writes.get(pc)) else {
            return;
        };
        for k in r0..r1 {
            let Some(&u) = self.uses.get(k as usize) else {
                continue;
            };
            let written = self
                .written
                .get(base + u.slot as usize)
                .copied()
                .unwrap_or(u64::MAX);
            let missing = exec & !written;
            if missing == 0 {
                continue;
            }
            let kind = match u.reg {
                Reg::V(r) => FindingKind::UninitVectorRegister { reg: r.0 },
                Reg::S(r) => FindingKind::UninitScalarRegister { reg: r.0 },
                Reg::M(r) => FindingKind::UninitMaskRegister { reg: r.0 },
            };
            let lane = missing.trailing_zeros().min(63) as u8;
            let at = self.site(program, pc as u32, wave as u16, lane);
            self.findings.add(Finding {
                kind,
                at,
                other: None,
                address: None,
                bytes: 4,
                occurrences: 1,
            });
        }
        for k in w0..w1 {
            let Some(&u) = self.uses.get(k as usize) else {
                continue;
            };
            if let Some(w) = self.written.get_mut(base + u.slot as usize) {
                // A vector compare writes the active lanes' bits of a mask; an
                // `if` then reads only bits of lanes that were active, so any
                // write of a mask counts as writing it.
                *w |= if u.whole || matches!(u.reg, Reg::M(_)) {
                    u64::MAX
                } else {
                    exec
                };
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
        let (generation, grid) = match buffer {
            Some(_) => (self.launch_gen, self.grid),
            None => (self.group_gen, self.grid),
        };
        let shadows = match buffer {
            // A read-only buffer has no shadow: nothing writes it, so nothing races.
            Some(b) => match self.global.get_mut(b) {
                Some(s) if !s.is_empty() => s,
                _ => return,
            },
            None => &mut self.lds,
        };
        let full = if lanes.size >= 4 {
            0xf
        } else {
            (1u32 << lanes.size) - 1
        };
        let mut found: Vec<(FindingKind, Access, Option<Access>, u64)> = Vec::new();
        // Lanes of one load reading the bytes the lane before did (a
        // broadcast) make the same access of the same wave: the first lane's
        // check stands for them. (A store's shadow must end with the last
        // lane's value, so every lane of a store goes through.)
        let mut previous = u32::MAX;
        let mut exec = lanes.exec;
        while exec != 0 {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let Some(&first) = lanes.offs.get(lane) else {
                continue;
            };
            for k in 0..lanes.count {
                let off = first.wrapping_add(k * lanes.size);
                if kind == Kind::Load && off == previous {
                    continue;
                }
                previous = off;
                let Some(shadow) = shadows.get_mut((off / 4) as usize) else {
                    continue;
                };
                if shadow.generation != generation {
                    *shadow = Shadow {
                        generation,
                        ..Shadow::default()
                    };
                }
                let me = Access {
                    group: self.group,
                    wave: wave as u16,
                    lane: lane as u8,
                    bytes: (full << (off % 4)) as u8,
                    epoch: self.epoch,
                    inst: pc as u32,
                };
                let value = match lanes.values.get(k as usize) {
                    Some(v) => v.get(lane).copied().unwrap_or(0),
                    None => 0,
                };
                check(shadow, &me, kind, value, space, &mut |kind, other| {
                    found.push((kind, me, other, base + u64::from(off & !3)));
                });
            }
        }
        for (kind, me, other, address) in found {
            self.findings.add(Finding {
                kind,
                at: site_of(grid, program, &me),
                other: other.map(|o| site_of(grid, program, &o)),
                address: Some(address),
                bytes: u32::from(me.bytes).count_ones(),
                occurrences: 1,
            });
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
        // Offsets rising lane by lane (the common case): no two lanes share a
        // byte, nothing to sort.
        let mut prev: Option<u32> = None;
        let mut rising = true;
        let mut exec = lanes.exec;
        while exec != 0 && rising {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let first = lanes.offs.get(lane).copied().unwrap_or(0);
            for k in 0..lanes.count {
                let off = first.wrapping_add(k * lanes.size);
                rising &= prev.is_none_or(|p| off > p);
                prev = Some(off);
            }
        }
        if rising {
            return;
        }
        let mut writes: Vec<(u32, u32, u8)> = Vec::new();
        let mut exec = lanes.exec;
        while exec != 0 {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let Some(&first) = lanes.offs.get(lane) else {
                continue;
            };
            for k in 0..lanes.count {
                let value = match lanes.values.get(k as usize) {
                    Some(v) => v.get(lane).copied().unwrap_or(0),
                    None => 0,
                };
                writes.push((first.wrapping_add(k * lanes.size), value, lane as u8));
            }
        }
        writes.sort_unstable();
        for pair in writes.windows(2) {
            let ((o1, v1, l1), (o2, v2, l2)) = (pair[0], pair[1]);
            if o1 == o2 && v1 != v2 {
                let at = self.site(program, pc as u32, wave as u16, l2);
                let other = self.site(program, pc as u32, wave as u16, l1);
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
        workgroup: [
            a.group % gx,
            (a.group / gx) % gy,
            (u64::from(a.group) / (u64::from(gx) * u64::from(gy))) as u32,
        ],
        wave: u32::from(a.wave),
        lane: u32::from(a.lane),
    }
}

/// The races of access `me` against a word's shadow, each given to `found`
/// with the other access (none for an uninitialised LDS read); then the shadow
/// updated.
fn check(
    shadow: &mut Shadow,
    me: &Access,
    kind: Kind,
    value: u32,
    space: Space,
    found: &mut impl FnMut(FindingKind, Option<Access>),
) {
    let race = |class, other: &Access, same_value| FindingKind::Race {
        space,
        class,
        across_workgroups: other.group != me.group,
        same_value,
    };
    let overlaps = |a: &Access| a.bytes & me.bytes != 0;
    let w = shadow.write;
    match kind {
        Kind::Load => {
            if w.is_some() && overlaps(&w) && !w.ordered(me) {
                found(race(RaceClass::ReadAfterWrite, &w, false), Some(w));
            } else if space == Space::Lds && w.bytes & me.bytes != me.bytes {
                // Bytes no write of this workgroup set.
                found(FindingKind::UninitLds, None);
            }
            // Keep two readers of distinct waves, replacing one the new read
            // is ordered after.
            let reads = &mut shadow.reads;
            let slot = reads
                .iter()
                .position(|r| !r.is_some() || (r.group == me.group && r.wave == me.wave))
                .or_else(|| reads.iter().position(|r| r.ordered(me)));
            if let Some(r) = slot.and_then(|s| reads.get_mut(s)) {
                *r = *me;
            }
        }
        Kind::Store => {
            if w.is_some() && overlaps(&w) && !w.ordered(me) {
                let same = shadow.value == value;
                found(race(RaceClass::WriteAfterWrite, &w, same), Some(w));
            }
            if let Some(r) = shadow
                .reads
                .iter()
                .find(|r| r.is_some() && overlaps(r) && !r.ordered(me))
            {
                found(race(RaceClass::WriteAfterRead, r, false), Some(*r));
            }
            let merged = if w.is_some() && !overlaps(&w) {
                w.bytes | me.bytes
            } else {
                me.bytes
            };
            shadow.write = Access {
                bytes: merged,
                ..*me
            };
            shadow.value = value;
        }
    }
}
