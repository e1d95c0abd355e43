//! The sanitizers' shadow state: for every LDS and buffer word, the last plain
//! write, up to two plain reads and up to two atomics with who made them and
//! in which barrier epoch, and the word's value where known, with the value it
//! held before the last writer's run of writes (to tell a write that changes
//! nothing any other party could see); for every register, which lanes (or
//! whether the wave) wrote it; with independent lanes, a vector clock per lane
//! of each wave, advanced by wave barriers.
//!
//! Words are 4 bytes; each access records the bytes of the word it touched, so
//! byte and half-word accesses of neighbouring bytes do not race. When a write
//! does not overlap the word's last write, the two are merged into one record
//! (its bytes the union, its site the newer): a later conflict with the older
//! bytes is still found, attributed to the newer write.

use super::instrument::Access as Lanes;
use crate::facts::AccessKind;
use crate::findings::{Finding, FindingKind, Findings, RaceClass, Scope, Site, Space};
use crate::ir::{Program, Reg};
use crate::isa::Unit;
use crate::launch::LaneOrder;

/// One access, as the shadow remembers it; `bytes == 0` is no access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Access {
    /// The workgroup's linear index in the launch.
    group: u32,
    /// Barriers the workgroup had passed.
    epoch: u32,
    inst: u32,
    /// The lane's own clock (wave barriers it took part in), for independent
    /// lanes.
    clock: u32,
    wave: u16,
    lane: u8,
    /// The bytes of the word touched.
    bytes: u8,
    /// An atomic read-modify-write.
    atomic: bool,
    /// A read whose word has changed since: what it saw is no longer there.
    stale: bool,
}

impl Access {
    #[inline(always)]
    fn is_some(&self) -> bool {
        self.bytes != 0
    }
}

/// Happens-before between two accesses of a launch: program order within a
/// wave (within a lane, for independent lanes), a barrier between them within
/// a workgroup, or a wave barrier both lanes took part in.
#[derive(Clone, Copy)]
struct HappensBefore<'a> {
    independent: bool,
    /// Per wave and lane, what the lane knows of every lane's clock (valid
    /// for waves in `synced`).
    clocks: &'a [[u32; 64]],
    synced: &'a [bool],
}

impl HappensBefore<'_> {
    /// Whether `earlier` happens before `later`.
    #[inline(always)]
    fn ordered(&self, earlier: &Access, later: &Access) -> bool {
        earlier.group == later.group
            && (earlier.epoch != later.epoch
                || (earlier.wave == later.wave
                    && (!self.independent
                        || earlier.lane == later.lane
                        || self.knows(later, earlier))))
    }

    /// Whether the lane of `later` had synchronised with the lane of
    /// `earlier` after it made `earlier`.
    #[inline(always)]
    fn knows(&self, later: &Access, earlier: &Access) -> bool {
        let wave = usize::from(later.wave);
        self.synced.get(wave).copied().unwrap_or(false)
            && self
                .clocks
                .get(wave * 64 + usize::from(later.lane))
                .and_then(|row| row.get(usize::from(earlier.lane)))
                .is_some_and(|&c| c > earlier.clock)
    }
}

/// A word's shadow; it is empty unless `generation` is the current one, so
/// that a launch or workgroup starts clean without clearing the table.
#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    generation: u32,
    /// The last plain write (merged with earlier ones of other bytes).
    write: Access,
    /// Up to two plain reads of distinct waves.
    reads: [Access; 2],
    /// Up to two atomics of distinct waves. Kept apart from the reads: an
    /// atomic races with a plain read, so it cannot stand for one.
    atomics: [Access; 2],
    /// The word's contents in the bytes of `known`.
    value: u32,
    known: u8,
    /// Bytes holding a defined value: all of a buffer's, the LDS bytes a store
    /// or atomic set in this workgroup.
    init: u8,
    /// The word's contents in the bytes of `prior_known` before the last
    /// writer's run: its consecutive stores in one wave and barrier epoch.
    /// A party unordered with the run sees these bytes in one order.
    prior: u32,
    prior_known: u8,
    /// Whether every store of the last writer's run stored the prior value:
    /// then whatever runs first, every access sees the same value.
    same: bool,
    /// The lanes whose stores the last writer's run holds, and whether they
    /// all stored one value (the word's now): a lane of the run reading the
    /// word after its own store reads that value in any lane order.
    run_lanes: u64,
    run_one: bool,
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
    /// Whether lanes of a wave are ordered only by barriers and wave barriers
    /// ([`LaneOrder::Independent`]).
    independent: bool,
    /// Per wave and lane, the lane's vector clock over the wave's lanes; a
    /// wave's rows are valid once it has passed a wave barrier in this
    /// workgroup (`synced`).
    clocks: Vec<[u32; 64]>,
    synced: Vec<bool>,
    /// Per buffer parameter, its bytes when the launch started: a write's
    /// value is compared with them on the word's first access.
    initial: Vec<Vec<u8>>,
    /// A watch-only run: the buffer parameter and byte whose last write is
    /// wanted, and that write (no checks are made).
    watch: Option<(usize, u32)>,
    /// A word's first access takes the full check too (to test skipping it
    /// against).
    general: bool,
    pub(crate) watched: Option<Site>,
    pub(crate) findings: Findings,
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
    /// contents (by parameter index; empty for read-only buffers and scalars,
    /// which no access can race on), `waves` waves per workgroup and lanes
    /// ordered as `lanes` says.
    pub(crate) fn start(
        &mut self,
        program: &Program,
        grid: [u32; 3],
        buffers: &[&[u8]],
        waves: usize,
        lanes: LaneOrder,
    ) {
        self.grid = grid;
        self.watch = None;
        self.independent = lanes == LaneOrder::Independent;
        if self.independent {
            self.clocks.resize(waves * 64, [0; 64]);
            self.synced.clear();
            self.synced.resize(waves, false);
        }
        self.global.resize_with(buffers.len(), Vec::new);
        self.initial.resize_with(buffers.len(), Vec::new);
        for (copy, data) in self.initial.iter_mut().zip(buffers) {
            copy.clear();
            copy.extend_from_slice(data);
        }
        self.launch_gen = self.launch_gen.wrapping_add(1);
        for (shadow, data) in self.global.iter_mut().zip(buffers) {
            let words = data.len().div_ceil(4);
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

    /// Prepares a watch-only launch over `grid`: no checks, only the last
    /// write (store or atomic) of byte `byte` of buffer parameter `buffer` is
    /// kept, in [`Sanitizer::watched`].
    pub(crate) fn start_watch(&mut self, grid: [u32; 3], buffer: usize, byte: u32) {
        self.grid = grid;
        self.watch = Some((buffer, byte));
        self.watched = None;
    }

    /// Whether the launch is a watch-only one.
    pub(crate) fn watching(&self) -> bool {
        self.watch.is_some()
    }

    /// Ends a watch-only launch.
    pub(crate) fn stop_watch(&mut self) -> Option<Site> {
        self.watch = None;
        self.watched.take()
    }

    /// A workgroup starts: fresh LDS and registers, epoch 0.
    pub(crate) fn workgroup(&mut self, linear: u32, id: [u32; 3]) {
        self.group = linear;
        self.group_id = id;
        self.epoch = 0;
        if self.watch.is_some() {
            return;
        }
        bump(&mut self.group_gen, &mut self.lds);
        self.written.fill(0);
        self.synced.fill(false);
    }

    /// Every wave of the workgroup passed a barrier.
    pub(crate) fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// Wave `wave` passed a wave barrier with the lanes of `exec`: with
    /// independent lanes, each of them now knows what every other one did
    /// before it (and what those knew).
    pub(crate) fn wave_barrier(&mut self, wave: usize, exec: u64) {
        if !self.independent || self.watch.is_some() {
            return;
        }
        let Some(rows) = self.clocks.get_mut(wave * 64..(wave + 1) * 64) else {
            return;
        };
        if let Some(synced) = self.synced.get_mut(wave) {
            if !*synced {
                rows.fill([0; 64]);
                *synced = true;
            }
        }
        let mut joined = [0u32; 64];
        let mut lanes = exec;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            rows[l][l] += 1;
            for (j, c) in joined.iter_mut().zip(rows[l].iter()) {
                *j = (*j).max(*c);
            }
        }
        let mut lanes = exec;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            rows[l] = joined;
        }
    }

    /// The clock of `lane` of `wave`, as its accesses record it.
    fn clock(&self, wave: usize, lane: usize) -> u32 {
        if !self.independent || !self.synced.get(wave).copied().unwrap_or(false) {
            return 0;
        }
        self.clocks
            .get(wave * 64 + lane)
            .and_then(|row| row.get(lane))
            .copied()
            .unwrap_or(0)
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
                    ..Access::default()
                },
            )
        }
    }

    /// Checks the registers instruction `pc` reads in the wave's active lanes,
    /// then marks the ones it writes.
    pub(super) fn registers(&mut self, program: &Program, pc: usize, wave: usize, exec: u64) {
        if self.watch.is_some() {
            return;
        }
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
                byte: None,
                register: program
                    .reg_names
                    .iter()
                    .find(|n| n.reg == u.reg)
                    .map(|n| n.name.to_string()),
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

    /// Checks and records the accesses of one memory instruction (its
    /// `buffer` is the buffer parameter, or `None` for the LDS; `base` the
    /// address the findings report offsets from).
    pub(super) fn memory(&mut self, program: &Program, pc: usize, wave: usize, lanes: &Lanes<'_>) {
        let (kind, buffer, base) = (lanes.kind, lanes.buffer, lanes.base);
        if let Some((b, byte)) = self.watch {
            if buffer == Some(b) && kind != AccessKind::Load {
                self.spot(program, pc, wave, byte, lanes);
            }
            return;
        }
        let space = if buffer.is_some() {
            Space::Global
        } else {
            Space::Lds
        };
        if kind == AccessKind::Store {
            self.lanes_disagree(program, pc, wave, space, base, lanes);
        }
        // Lockstep lanes record no clock: no copy to make.
        static NO_CLOCKS: [u32; 64] = [0; 64];
        let own: [u32; 64];
        let clocks = if self.independent {
            own = std::array::from_fn(|l| self.clock(wave, l));
            &own
        } else {
            &NO_CLOCKS
        };
        let (generation, grid) = match buffer {
            Some(_) => (self.launch_gen, self.grid),
            None => (self.group_gen, self.grid),
        };
        let (shadows, initial) = match buffer {
            // A read-only buffer has no shadow: nothing writes it, so nothing races.
            Some(b) => match (self.global.get_mut(b), self.initial.get(b)) {
                (Some(s), Some(i)) if !s.is_empty() => (s, Some(i)),
                _ => return,
            },
            None => (&mut self.lds, None),
        };
        let order = HappensBefore {
            independent: self.independent,
            clocks: &self.clocks,
            synced: &self.synced,
        };
        let full = if lanes.size >= 4 {
            0xf
        } else {
            (1u32 << lanes.size) - 1
        };
        let me = Access {
            group: self.group,
            wave: wave as u16,
            lane: 0,
            bytes: 0,
            epoch: self.epoch,
            inst: pc as u32,
            clock: 0,
            atomic: kind == AccessKind::Atomic,
            stale: false,
        };
        let visit = Visit {
            kind,
            space,
            base,
            generation,
            initial,
            order,
            general: self.general,
            full,
            me,
            clocks,
        };
        let mut found: Vec<(FindingKind, Access, Option<Access>, u64)> = Vec::new();
        // Independent lanes of one instruction are checked against the shadow
        // as the instructions before left it, then recorded: they do not race
        // with each other (two lanes of one store are `LanesDisagree`'s).
        // Lockstep lanes are ordered anyway, so each is checked and recorded
        // in turn. One element per lockstep lane (nearly every access) takes a
        // build of the lane loop with those facts, and a load's or store's
        // kind, constant.
        if self.independent {
            visit.lanes::<false, ANY_KIND, true>(shadows, lanes, Pass::Check, &mut found);
            visit.lanes::<false, ANY_KIND, true>(shadows, lanes, Pass::Record, &mut found);
        } else if lanes.count == 1 {
            match kind {
                AccessKind::Load if space == Space::Lds => {
                    visit.lanes::<true, LOAD, false>(shadows, lanes, Pass::Both, &mut found)
                }
                AccessKind::Load => {
                    visit.lanes::<true, LOAD, true>(shadows, lanes, Pass::Both, &mut found)
                }
                AccessKind::Store if space == Space::Lds => {
                    visit.lanes::<true, STORE, false>(shadows, lanes, Pass::Both, &mut found)
                }
                AccessKind::Store => {
                    visit.lanes::<true, STORE, true>(shadows, lanes, Pass::Both, &mut found)
                }
                AccessKind::Atomic => {
                    visit.lanes::<true, ANY_KIND, true>(shadows, lanes, Pass::Both, &mut found)
                }
            }
        } else {
            visit.lanes::<false, ANY_KIND, true>(shadows, lanes, Pass::Both, &mut found);
        }
        for (kind, me, other, address) in found {
            self.findings.add(Finding {
                kind,
                at: site_of(grid, program, &me),
                other: other.map(|o| site_of(grid, program, &o)),
                address: Some(address),
                // A race: the bytes both touch; an uninitialised read: its own.
                bytes: other.map_or(me.bytes, |o| me.bytes & o.bytes).count_ones(),
                occurrences: 1,
                byte: None,
                register: None,
            });
        }
    }

    /// Keeps, for a watch-only run, the last lane of a store or atomic that
    /// writes byte `byte` of the watched buffer.
    fn spot(&mut self, program: &Program, pc: usize, wave: usize, byte: u32, lanes: &Lanes<'_>) {
        let mut exec = lanes.exec;
        while exec != 0 {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let Some(&first) = lanes.offs.get(lane) else {
                continue;
            };
            let span = lanes.size * lanes.count;
            if byte.wrapping_sub(first) < span {
                self.watched = Some(self.site(program, pc as u32, wave as u16, lane as u8));
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
        // Offsets rising lane by lane (the common case): no two lanes share a
        // byte, nothing to sort. (`prev` starts below every offset; one
        // element per lane, nearly every store, takes a loop of its own.)
        let mut prev = -1i64;
        let mut rising = true;
        let mut exec = lanes.exec;
        // One run of active lanes (nearly every store): neighbours compared
        // in a straight loop.
        let start = exec.trailing_zeros().min(63);
        let n = (exec >> start).trailing_ones();
        let one_run = exec != 0 && (exec >> start).checked_shr(n).unwrap_or(0) == 0;
        let run = lanes.offs.get(start as usize..(start + n) as usize);
        if let (1, true, Some(run)) = (lanes.count, one_run, run) {
            if run.windows(2).all(|w| w[1] > w[0]) {
                return;
            }
        }
        if lanes.count == 1 {
            while exec != 0 && rising {
                let lane = exec.trailing_zeros() as usize;
                exec &= exec - 1;
                let off = i64::from(lanes.offs.get(lane).copied().unwrap_or(0));
                rising = off > prev;
                prev = off;
            }
        }
        while exec != 0 && rising {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let first = lanes.offs.get(lane).copied().unwrap_or(0);
            for k in 0..lanes.count {
                let off = i64::from(first.wrapping_add(k * lanes.size));
                rising &= off > prev;
                prev = off;
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
                    byte: None,
                    register: None,
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

/// What every lane of one memory instruction shares, for [`Visit::lanes`].
struct Visit<'v> {
    kind: AccessKind,
    space: Space,
    base: u64,
    /// The generation the shadows are valid in.
    generation: u32,
    /// The buffer's bytes when the launch started (global only).
    initial: Option<&'v Vec<u8>>,
    order: HappensBefore<'v>,
    /// A word's first access takes the full check too.
    general: bool,
    /// The bytes of a word one element covers, at byte 0.
    full: u32,
    /// The access, but for its lane, bytes and clock.
    me: Access,
    clocks: &'v [u32; 64],
}

impl Visit<'_> {
    /// Checks and/or records (`mode`) each active lane's elements against the
    /// shadows, lowest lane first. `SINGLE`: one element per lane, and lanes
    /// in lockstep (`mode` is [`Pass::Both`]). `KIND`: [`LOAD`] or [`STORE`]
    /// when the instruction is one, so that the kind's branches fold; else
    /// [`ANY_KIND`]. `BUFFER`: the access may be to a buffer (`false`: the
    /// LDS's, whose loop then holds no buffer-only path). Each build is a
    /// function of its own (one call per instruction), so that one's code
    /// does not crowd another's registers.
    #[inline(never)]
    fn lanes<const SINGLE: bool, const KIND: u8, const BUFFER: bool>(
        &self,
        shadows: &mut [Shadow],
        lanes: &Lanes<'_>,
        mode: Pass,
        found: &mut Vec<(FindingKind, Access, Option<Access>, u64)>,
    ) {
        let kind = match KIND {
            LOAD => AccessKind::Load,
            STORE => AccessKind::Store,
            _ => self.kind,
        };
        let (count, mode) = if SINGLE {
            (1, Pass::Both)
        } else {
            (lanes.count, mode)
        };
        // Lockstep under `SINGLE`: said as a constant, so the order's checks fold.
        let order = HappensBefore {
            independent: self.order.independent && !SINGLE,
            ..self.order
        };
        let independent = order.independent;
        if SINGLE && BUFFER && KIND != ANY_KIND && !self.general && self.first_block(shadows, lanes)
        {
            return;
        }
        // Lockstep lanes of one load reading the bytes the lane before did
        // (a broadcast) make the same access of the same wave: the first
        // lane's check stands for them. (A store's shadow must end with
        // the last lane's value, so every lane of a store goes through.)
        let mut previous = u32::MAX;
        let mut exec = lanes.exec;
        while exec != 0 {
            let lane = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let Some(&first) = lanes.offs.get(lane) else {
                continue;
            };
            for k in 0..count {
                let off = first.wrapping_add(k * lanes.size);
                if kind == AccessKind::Load && off == previous && !independent {
                    continue;
                }
                previous = off;
                let word = (off / 4) as usize;
                let Some(shadow) = shadows.get_mut(word) else {
                    continue;
                };
                let me = Access {
                    lane: lane as u8,
                    bytes: (self.full << (off % 4)) as u8,
                    clock: if SINGLE { 0 } else { self.clocks[lane] },
                    ..self.me
                };
                // Only a store's value is looked at.
                let value = match lanes.values.get(k as usize) {
                    Some(v) if kind == AccessKind::Store => {
                        v.get(lane).copied().unwrap_or(0) << (8 * (off % 4))
                    }
                    _ => 0,
                };
                let address = self.base + u64::from(off & !3);
                let fresh = shadow.generation != self.generation;
                // A refreshed shadow has no records to race with, and a
                // buffer's bytes are all initialised: only an LDS load or
                // atomic can find something (the uninitialised read).
                let quiet =
                    fresh && !self.general && (kind == AccessKind::Store || self.initial.is_some());
                if fresh {
                    // A buffer word's first access: written in one pass.
                    if let (true, Some(initial)) =
                        (BUFFER && quiet && mode != Pass::Check, self.initial)
                    {
                        let held = initial_word(initial, word);
                        first_touch(shadow, self.generation, held, &me, kind, value);
                        continue;
                    }
                    refresh(shadow, self.generation, self.initial, word);
                }
                let mode = match mode {
                    Pass::Both if quiet => Pass::Record,
                    Pass::Check if quiet => continue,
                    mode => mode,
                };
                // What a store may count on the word holding, and whether
                // it holds the store's value already.
                let known = if kind == AccessKind::Store {
                    shadow.known_to(&me)
                } else {
                    0
                };
                let same = kind == AccessKind::Store && shadow.holds(&me, value, known);
                if mode != Pass::Record {
                    check(
                        shadow,
                        &me,
                        kind,
                        same,
                        self.space,
                        order,
                        &mut |kind, other| {
                            found.push((kind, me, other, address));
                        },
                    );
                }
                if mode != Pass::Check {
                    record(shadow, &me, kind, (same, known), value, order);
                }
            }
        }
    }
}

impl Visit<'_> {
    /// A lockstep load or store of a buffer's words, one per lane, the
    /// active lanes' words consecutive, each word's first access in the
    /// launch or (a store) a store after this wave's own read and nothing
    /// else: each lane's shadow as [`first_touch`] or
    /// [`Shadow::store_after_own_read`] writes it, in one pass over the
    /// words (what [`Visit::lanes`] would do lane by lane, finding nothing).
    /// `false`, having done nothing, for any other access.
    #[inline(always)]
    fn first_block(&self, shadows: &mut [Shadow], lanes: &Lanes<'_>) -> bool {
        let (exec, offs) = (lanes.exec, lanes.offs);
        let Some(initial) = self.initial else {
            return false;
        };
        if lanes.size != 4 || exec == 0 {
            return false;
        }
        let start = exec.trailing_zeros() as usize;
        let n = (exec >> start).trailing_ones() as usize;
        // One run of active lanes, rising a word a lane from a word.
        let (Some(run), Some(&first)) = (offs.get(start..start + n), offs.get(start)) else {
            return false;
        };
        let rising = run.iter().zip(0u32..).fold(
            first % 4 == 0 && (exec >> start).checked_shr(n as u32).unwrap_or(0) == 0,
            |ok, (&o, k)| ok & (o == first.wrapping_add(4 * k)),
        );
        let w0 = (first / 4) as usize;
        let (true, Some(words), Some(held)) = (
            rising,
            shadows.get_mut(w0..w0 + n),
            initial.get(w0 * 4..(w0 + n) * 4),
        ) else {
            return false;
        };
        // A store's values; a load has none (its lanes' offsets stand in).
        let store = self.kind == AccessKind::Store;
        // Every word fresh, or, for a store, read by this wave alone in this
        // epoch and nothing else (an in-place update's store after its load).
        // A plain loop: as an iterator's `all` it stayed a call per word.
        let me = &self.me;
        for w in words.iter() {
            if w.generation == self.generation && !(store && w.read_by_alone(me)) {
                return false;
            }
        }
        let values = match (store, lanes.values.first()) {
            (true, Some(v)) => v.get(start..start + n),
            (true, None) => None,
            (false, _) => Some(run),
        };
        let Some(values) = values else {
            return false;
        };
        for (((shadow, held), &value), lane) in words
            .iter_mut()
            .zip(held.chunks_exact(4))
            .zip(values)
            .zip(start..)
        {
            let me = Access {
                lane: lane as u8,
                bytes: 0xf,
                ..self.me
            };
            if shadow.generation != self.generation {
                let held = u32::from_le_bytes([held[0], held[1], held[2], held[3]]);
                let value = if store { value } else { 0 };
                first_touch(shadow, self.generation, held, &me, self.kind, value);
            } else {
                shadow.store_after_own_read(&me, value);
            }
        }
        true
    }
}

/// [`Visit::lanes`]'s `KIND`: a load, a store, or any kind (the
/// instruction's, read at run time).
const LOAD: u8 = 0;
const STORE: u8 = 1;
const ANY_KIND: u8 = 2;

/// What a lane's turn in [`Sanitizer::memory`] does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Check,
    Record,
    Both,
}

/// No access (an empty record).
const NO_ACCESS: Access = Access {
    group: 0,
    epoch: 0,
    inst: 0,
    clock: 0,
    wave: 0,
    lane: 0,
    bytes: 0,
    atomic: false,
    stale: false,
};

/// Word `word` of a buffer's bytes when the launch started. Buffers are
/// whole words long; a short tail reads as zeros.
#[inline(always)]
fn initial_word(initial: &[u8], word: usize) -> u32 {
    match initial.get(word * 4..word * 4 + 4) {
        Some(&[b0, b1, b2, b3]) => u32::from_le_bytes([b0, b1, b2, b3]),
        _ => {
            let mut bytes = [0u8; 4];
            for (k, b) in bytes.iter_mut().enumerate() {
                *b = initial.get(word * 4 + k).copied().unwrap_or(0);
            }
            u32::from_le_bytes(bytes)
        }
    }
}

/// Empties `shadow` for its first access in `generation`: a buffer's word holds
/// the launch's input, an LDS word nothing defined. (Field by field: a whole
/// `Shadow` built aside and copied in costs a store-forwarding stall.)
#[inline(always)]
fn refresh(shadow: &mut Shadow, generation: u32, initial: Option<&Vec<u8>>, word: usize) {
    shadow.generation = generation;
    shadow.write = NO_ACCESS;
    shadow.reads = [NO_ACCESS; 2];
    shadow.atomics = [NO_ACCESS; 2];
    shadow.same = false;
    shadow.run_lanes = 0;
    shadow.run_one = false;
    shadow.prior_known = 0;
    match initial {
        Some(initial) => {
            shadow.value = initial_word(initial, word);
            (shadow.known, shadow.init) = (0xf, 0xf);
        }
        // An LDS word: zero (a workgroup's LDS starts zeroed), but not
        // initialised: what a GPU's LDS holds there is unknown. Its value is
        // known to a wave that read it (see `Shadow::known_to`).
        None => (shadow.value, shadow.known, shadow.init) = (0, 0xf, 0),
    }
}

/// A buffer word's first access in `generation`, which can find nothing
/// (see [`Visit::lanes`]): the shadow [`refresh`] and then [`record`] would
/// leave, written in one pass (`held`: the word when the launch started;
/// `value`: a store's value placed at its bytes).
#[inline(always)]
fn first_touch(
    shadow: &mut Shadow,
    generation: u32,
    held: u32,
    me: &Access,
    kind: AccessKind,
    value: u32,
) {
    // Every byte of a buffer is initialised and known.
    (shadow.known, shadow.init) = (0xf, 0xf);
    let bits = byte_bits(me.bytes);
    shadow.generation = generation;
    shadow.atomics = [NO_ACCESS; 2];
    match kind {
        AccessKind::Store => {
            // Nothing wrote the word yet: the store may count on what the
            // launch started with.
            let same = (held ^ value) & bits == 0;
            shadow.write = *me;
            shadow.reads = [Access {
                stale: !same,
                ..NO_ACCESS
            }; 2];
            shadow.prior = held;
            shadow.prior_known = 0xf;
            shadow.same = same;
            shadow.run_one = true;
            shadow.run_lanes = 1u64 << (me.lane & 63);
            shadow.value = (held & !bits) | (value & bits);
        }
        AccessKind::Load => {
            shadow.write = NO_ACCESS;
            shadow.reads = [*me, NO_ACCESS];
            shadow.same = false;
            shadow.run_one = false;
            shadow.run_lanes = 0;
            shadow.prior_known = 0;
            shadow.value = held;
        }
        AccessKind::Atomic => {
            shadow.write = NO_ACCESS;
            shadow.reads = [Access {
                stale: true,
                ..NO_ACCESS
            }; 2];
            shadow.atomics[0] = *me;
            shadow.same = false;
            shadow.run_one = false;
            shadow.run_lanes = 0;
            shadow.prior_known = 0;
            shadow.value = held;
            shadow.known = 0xf & !me.bytes;
        }
    }
}

/// The bits of the bytes in `bytes` (one bit per byte of a word).
#[inline(always)]
fn byte_bits(bytes: u8) -> u32 {
    // Each bit of `bytes` spread to a byte: bit k to bit 8k, times 0xff.
    const BITS: [u32; 16] = {
        let mut bits = [0u32; 16];
        let mut b = 0;
        while b < 16 {
            bits[b] = ((b & 1) | (b & 2) << 7 | (b & 4) << 14 | (b & 8) << 21) as u32 * 0xff;
            b += 1;
        }
        bits
    };
    BITS[usize::from(bytes & 0xf)]
}

impl Shadow {
    /// The bytes whose value store `me` may count on: the known ones, but of
    /// those never written (an LDS word's garbage) only where `me`'s wave
    /// read those bytes in this epoch. A wave that read a never-written word
    /// and stores it back stores what was there, whatever it was: every
    /// access sees one value whichever runs first. One that stores a
    /// constant there without reading may change the garbage a GPU holds.
    /// (The value read is not followed: a wave that read the word and then
    /// stores zero, what simt's LDS starts as, counts as storing it back.)
    #[inline(always)]
    fn known_to(&self, me: &Access) -> u8 {
        let read = self
            .reads
            .iter()
            .filter(|r| r.group == me.group && r.wave == me.wave && r.epoch == me.epoch)
            .fold(0, |bytes, r| bytes | r.bytes);
        self.known & (self.init | read)
    }

    /// Whether the word already holds `value` (placed at `me`'s bytes) as
    /// far as store `me` can tell (`known`: [`Shadow::known_to`] of it).
    #[inline(always)]
    fn holds(&self, me: &Access, value: u32, known: u8) -> bool {
        let bytes = me.bytes;
        known & bytes == bytes && (self.value ^ value) & byte_bits(bytes) == 0
    }

    /// Whether store `me` is one more of the last write's run: by the same
    /// wave of the same workgroup in the same barrier epoch.
    #[inline(always)]
    fn continues_run(&self, me: &Access) -> bool {
        let w = &self.write;
        w.is_some() && w.group == me.group && w.epoch == me.epoch && w.wave == me.wave
    }

    /// Whether load `me` is by a lane of the last writer's run (one wave, one
    /// epoch) that stored there before it, every store of the run one value:
    /// it reads that value whichever lanes run first.
    #[inline(always)]
    fn read_own_run(&self, me: &Access) -> bool {
        let w = &self.write;
        self.run_one
            && w.group == me.group
            && w.wave == me.wave
            && w.epoch == me.epoch
            && w.bytes & me.bytes == me.bytes
            && self.run_lanes & (1u64 << (me.lane & 63)) != 0
    }

    /// Whether the word's one record is a read by `me`'s wave in `me`'s
    /// epoch, its bytes all initialised and known (a buffer's): a lockstep
    /// store of the whole word by that wave finds nothing (the read is
    /// ordered before it) and records what
    /// [`Shadow::store_after_own_read`] writes.
    #[inline(always)]
    fn read_by_alone(&self, me: &Access) -> bool {
        let r = &self.reads[0];
        r.is_some()
            && r.group == me.group
            && r.wave == me.wave
            && r.epoch == me.epoch
            && !self.reads[1].is_some()
            && !self.write.is_some()
            && !self.atomics[0].is_some()
            && !self.atomics[1].is_some()
            && self.known == 0xf
            && self.init == 0xf
    }

    /// [`record`] of lockstep store `me` of the whole word's `value` on a
    /// word [`Shadow::read_by_alone`] holds: a new run, the value before it
    /// known.
    #[inline(always)]
    fn store_after_own_read(&mut self, me: &Access, value: u32) {
        let same = self.value == value;
        self.prior = self.value;
        self.prior_known = 0xf;
        self.run_one = true;
        self.run_lanes = 1u64 << (me.lane & 63);
        if !same {
            self.changed();
        }
        self.write = *me;
        self.same = same;
        self.value = value;
    }

    /// Marks the kept reads as having seen a value no longer there.
    #[inline(always)]
    fn changed(&mut self) {
        for r in &mut self.reads {
            r.stale = true;
        }
    }
}

/// The races of access `me` against a word's shadow, each given to `found`
/// with the other access (none for an uninitialised LDS read). `same`: `me`
/// is a store of the value already there.
///
/// A read and a write race unless ordered, and so do two writes, an atomic
/// counting as both; two atomics never race. A pair whose plain write stores
/// the value already there is reported as minor (`same_value`): whichever
/// runs first, every access sees the same value.
#[inline(always)]
fn check(
    shadow: &Shadow,
    me: &Access,
    kind: AccessKind,
    same: bool,
    space: Space,
    order: HappensBefore<'_>,
    found: &mut impl FnMut(FindingKind, Option<Access>),
) {
    let race = |class, other: &Access, same_value| FindingKind::Race {
        space,
        class,
        scope: Scope::of(
            (other.group, u32::from(other.wave)),
            (me.group, u32::from(me.wave)),
        ),
        same_value,
    };
    let races = |a: &Access| a.is_some() && a.bytes & me.bytes != 0 && !order.ordered(a, me);
    // By reference and tested once: a copy of the write and a second test
    // cost every lane of every access.
    let w = &shadow.write;
    let write_races = races(w);
    let atomic = || shadow.atomics.iter().find(|r| races(r));
    let read = || shadow.reads.iter().find(|r| races(r));
    match kind {
        AccessKind::Load => {
            // An unordered atomic after a same-value write still changes what
            // the load reads: it outranks the minor race with the write.
            if write_races && !shadow.same && !shadow.read_own_run(me) {
                found(race(RaceClass::ReadAfterWrite, w, false), Some(*w));
            } else if let Some(a) = atomic() {
                found(race(RaceClass::ReadAfterWrite, a, false), Some(*a));
            } else if write_races {
                found(race(RaceClass::ReadAfterWrite, w, true), Some(*w));
            } else if space == Space::Lds && shadow.init & me.bytes != me.bytes {
                // Bytes no write of this workgroup set.
                found(FindingKind::UninitLds, None);
            }
        }
        AccessKind::Store => {
            if write_races {
                found(race(RaceClass::WriteAfterWrite, w, same), Some(*w));
            }
            if let Some(a) = atomic() {
                found(race(RaceClass::WriteAfterWrite, a, false), Some(*a));
            } else if let Some(r) = read() {
                // Minor only when the read saw the value this store writes.
                found(
                    race(RaceClass::WriteAfterRead, r, same && !r.stale),
                    Some(*r),
                );
            }
        }
        AccessKind::Atomic => {
            if write_races {
                found(race(RaceClass::WriteAfterWrite, w, false), Some(*w));
            }
            if let Some(r) = read() {
                found(race(RaceClass::WriteAfterRead, r, false), Some(*r));
            }
            // An atomic reads the word before it writes: on a GPU, whose LDS
            // is not zeroed, an unwritten word is garbage.
            if space == Space::Lds && shadow.init & me.bytes != me.bytes {
                found(FindingKind::UninitLds, None);
            }
        }
    }
}

/// Records access `me` in a word's shadow (`value`: a store's value placed at
/// its bytes; `same`: it is the value already there).
///
/// What a later access unordered with the record is told: a load, whether
/// the last writer's run changed the word (it would read the value before
/// the run in the other order); a store, whether its own value is there
/// already and, against a read, whether the read saw that value.
#[inline(always)]
fn record(
    shadow: &mut Shadow,
    me: &Access,
    kind: AccessKind,
    (same, known): (bool, u8),
    value: u32,
    order: HappensBefore<'_>,
) {
    match kind {
        AccessKind::Load => keep_read(&mut shadow.reads, me, order),
        AccessKind::Atomic => {
            keep_read(&mut shadow.atomics, me, order);
            shadow.init |= me.bytes;
            shadow.known &= !me.bytes;
            shadow.run_one = false;
            shadow.changed();
        }
        AccessKind::Store => {
            let w = shadow.write;
            let lane = 1u64 << (me.lane & 63);
            let bits = byte_bits(me.bytes);
            // Whether the run, with this store, stores only what the word
            // held before it: the value before the run, and every earlier
            // store of the run the same. A store repeating the run's own
            // earlier store (a lane storing what the lane before stored) is
            // not: a party unordered with the run saw the value before it.
            let run_same = if shadow.continues_run(me) {
                let repeats = shadow.same
                    && shadow.prior_known & me.bytes == me.bytes
                    && (shadow.prior ^ value) & bits == 0;
                shadow.run_one &= w.bytes == me.bytes
                    && shadow.known & me.bytes == me.bytes
                    && (shadow.value ^ value) & bits == 0;
                shadow.run_lanes |= lane;
                repeats
            } else {
                // A new run: it stores the value there when `same`.
                shadow.prior = shadow.value;
                shadow.prior_known = known;
                shadow.run_one = true;
                shadow.run_lanes = lane;
                same
            };
            if !same {
                shadow.changed();
            }
            let merge = w.is_some() && w.bytes & me.bytes == 0;
            shadow.write = Access {
                bytes: if merge { w.bytes | me.bytes } else { me.bytes },
                ..*me
            };
            shadow.same = run_same;
            shadow.value = (shadow.value & !bits) | (value & bits);
            shadow.known |= me.bytes;
            shadow.init |= me.bytes;
        }
    }
}

/// Keeps read (or atomic) `me` in one of a word's two read (or atomic)
/// slots: in an empty one, or over one ordered before it, which it stands
/// for; with independent lanes, over one of two slots of one wave when it
/// comes from another. Otherwise `me` is dropped. Under lockstep the slots
/// then hold two waves' accesses unordered with `me`; a later write unordered
/// with `me` cannot be ordered after both (that takes a later epoch, which
/// orders it after `me` too), so the race is still found, named after a kept
/// one.
#[inline(always)]
fn keep_read(reads: &mut [Access; 2], me: &Access, order: HappensBefore<'_>) {
    let one_wave = reads[0].group == reads[1].group && reads[0].wave == reads[1].wave;
    let slot = reads
        .iter()
        .position(|r| !r.is_some() || order.ordered(r, me))
        .or_else(|| {
            let other_wave = reads[0].group != me.group || reads[0].wave != me.wave;
            (order.independent && one_wave && other_wave).then_some(0)
        });
    if let Some(r) = slot.and_then(|s| reads.get_mut(s)) {
        *r = *me;
    }
}
#[cfg(test)]
mod tests {
    use super::{AccessKind, Lanes, Sanitizer, Shadow};
    use crate::ir::{Program, SourceLoc};
    use crate::isa::Inst;
    use crate::launch::LaneOrder;
    use std::borrow::Cow;

    fn program(insts: usize) -> Program {
        Program {
            name: Cow::Borrowed("raw"),
            file: Cow::Borrowed("raw.rs"),
            params: Cow::Owned(Vec::new()),
            lds: Cow::Owned(Vec::new()),
            insts: Cow::Owned(vec![Inst::End; insts]),
            locs: Cow::Owned(
                (1..=insts as u32)
                    .map(|line| SourceLoc { line, column: 1 })
                    .collect(),
            ),
            vregs: 0,
            sregs: 0,
            mregs: 0,
            lds_bytes: 32,
            reg_names: Cow::Owned(Vec::new()),
            workgroup_size: None,
            race_free: None,
            formats: Default::default(),
            scratch_words: 0,
        }
    }

    /// What a shadow records, less the stamp (which only the shortcut reads).
    fn records(s: &[Shadow]) -> Vec<String> {
        s.iter()
            .map(|s| {
                format!(
                    "{} {:?} {:?} {:?} {} {} {} {} {} {} {} {}",
                    s.generation,
                    s.write,
                    s.reads,
                    s.atomics,
                    s.value,
                    s.known,
                    s.init,
                    s.prior,
                    s.prior_known,
                    s.same,
                    s.run_lanes,
                    s.run_one
                )
            })
            .collect()
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Random accesses of a few waves of a few workgroups to a small buffer and
    /// LDS, crowded so that words' first accesses, of every kind, mix with
    /// later ones: skipping the check on a word's first access leaves the same
    /// findings and records as the full check, access by access.
    #[test]
    fn first_access_shortcut_agrees_with_full_check() {
        let program = program(8);
        for seed in 1..=1500u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let lanes = if rng.next(4) == 0 {
                LaneOrder::Independent
            } else {
                LaneOrder::Lockstep
            };
            let initial: Vec<u8> = (0..32).map(|_| rng.next(3) as u8).collect();
            let mut fast = Sanitizer::default();
            let mut full = Sanitizer {
                general: true,
                ..Sanitizer::default()
            };
            for launch in 0..2 {
                for s in [&mut fast, &mut full] {
                    s.start(&program, [3, 1, 1], &[&initial[..]], 3, lanes);
                }
                for group in 0..3u32 {
                    let mut last_run: Option<(usize, u64, Vec<u32>)> = None;
                    for s in [&mut fast, &mut full] {
                        s.workgroup(group, [group, 0, 0]);
                    }
                    for _ in 0..rng.next(30) {
                        let step = rng.next(16);
                        if step == 0 {
                            fast.barrier();
                            full.barrier();
                            continue;
                        }
                        let mut wave = rng.next(3) as usize;
                        if step == 1 {
                            let exec = rng.next(256);
                            fast.wave_barrier(wave, exec);
                            full.wave_barrier(wave, exec);
                            continue;
                        }
                        let mut kind = match rng.next(5) {
                            0 | 1 => AccessKind::Load,
                            2 | 3 => AccessKind::Store,
                            _ => AccessKind::Atomic,
                        };
                        let mut size = [1u32, 2, 4, 4][rng.next(4) as usize];
                        let mut count = if rng.next(4) == 0 { 2 } else { 1 };
                        let mut exec = rng.next(256);
                        let mut offs: Vec<u32> = (0..8)
                            .map(|lane| match rng.next(3) {
                                // Rising, shared or anywhere in 32 bytes.
                                0 => lane * size,
                                1 => 4,
                                _ => rng.next(32 / u64::from(size)) as u32 * size,
                            })
                            .collect();
                        if rng.next(3) == 0 {
                            // A run of lanes on consecutive words, as most
                            // loads and stores are (some past the end).
                            let first = rng.next(8);
                            let n = 1 + rng.next(8 - first);
                            exec = ((1u64 << n) - 1) << first;
                            let w0 = rng.next(10) as u32;
                            offs = (0..8)
                                .map(|l| (w0 + l).wrapping_sub(first as u32).wrapping_mul(4))
                                .collect();
                            (size, count) = (4, 1);
                            // Half the time, the last run's wave stores
                            // where it loaded or stored (an in-place update).
                            if let (Some((w, e, o)), 0) = (&last_run, rng.next(2)) {
                                (wave, exec, offs) = (*w, *e, o.clone());
                                kind = AccessKind::Store;
                            }
                            last_run = Some((wave, exec, offs.clone()));
                        }
                        let values: Vec<Vec<u32>> = (0..count)
                            .map(|_| (0..8).map(|_| rng.next(3) as u32).collect())
                            .collect();
                        let values: Vec<&[u32]> = values.iter().map(|v| &v[..]).collect();
                        let global = rng.next(2) == 0;
                        let access = Lanes {
                            kind,
                            buffer: global.then_some(0),
                            base: 0,
                            exec,
                            offs: &offs,
                            size,
                            count,
                            values: if kind == AccessKind::Store {
                                &values
                            } else {
                                &[]
                            },
                            cost: &crate::stats::Counters::default(),
                        };
                        let pc = rng.next(8) as usize;
                        fast.memory(&program, pc, wave, &access);
                        full.memory(&program, pc, wave, &access);
                        let at = format!("seed {seed} launch {launch} group {group}");
                        assert_eq!(fast.findings, full.findings, "{at}");
                        assert_eq!(records(&fast.lds), records(&full.lds), "{at}");
                        assert_eq!(records(&fast.global[0]), records(&full.global[0]), "{at}");
                    }
                }
            }
        }
    }
}
