//! One wave: its registers, its exec mask and divergence stack, how it
//! issues an instruction (what each does is in [`issue`]), and its memory
//! accesses, one lane at a time.

mod issue;

use issue::counts_as_vector;

use crate::memory::{self, Place, Shape};
use crate::{pairs, Counts, Fault, FaultKind, Launch, Shared, Value};
use simt_lang::{Atomic64Op, AtomicOp, ElemType, GlobalRef, Inst, LdsRef, Operand, Special, VReg};

/// One open construct of the divergence stack.
#[derive(Clone, Copy, Debug)]
enum Frame {
    If {
        /// Exec before the `if`, restored by `endif`.
        saved: u64,
        /// The lanes the `else` part runs (none once it started).
        else_lanes: u64,
        /// Where a wave with no lane left goes: the `else` (or the `endif`) in
        /// the then-part, the `endif` in the else-part.
        next: usize,
    },
    Loop {
        /// Exec at the `loop`, restored when it exits.
        entry: u64,
        /// Lanes that `continue`d in this iteration.
        continued: u64,
        /// The `endloop`.
        end: usize,
    },
}

/// What one issue did to the wave's run.
pub(crate) enum Step {
    /// Go on.
    Next,
    /// Parked at the barrier at this index.
    Parked(usize),
    /// Ended at this index.
    Done(usize),
}

/// What a memory instruction moves, whichever space it reaches.
#[derive(Clone, Copy)]
enum Move {
    /// One element per lane into a register.
    Load(ElemType, VReg),
    /// `n` words per lane into the registers from the one named on.
    LoadRun(u16, VReg),
    /// One element per lane from an operand.
    Store(ElemType, Operand),
    /// `n` words per lane from the registers from the one named on.
    StoreRun(u16, VReg),
    /// A 32-bit atomic (`None`: compare-and-swap, with its compare operand),
    /// the old values to the register if one is named.
    Atomic(Option<AtomicOp>, Option<VReg>, Operand, Operand),
    /// A 64-bit atomic on register pairs (`None`: compare-and-swap, with its
    /// compare pair).
    Atomic64(Option<Atomic64Op>, VReg, VReg, Option<VReg>),
}

pub(crate) struct Wave {
    index: usize,
    width: usize,
    /// The lanes the wave was launched with.
    launch: u64,
    exec: u64,
    pc: usize,
    stack: Vec<Frame>,
    v: Vec<[u32; 64]>,
    s: Vec<u32>,
    m: Vec<u64>,
    /// Each lane's local id.
    local: Vec<[u32; 3]>,
    pub(crate) parked: bool,
    pub(crate) done: bool,
}

fn bit(mask: u64, lane: usize) -> bool {
    mask >> lane & 1 == 1
}

impl Wave {
    /// Wave `index` of a workgroup, with its first `lanes` lanes launched.
    pub(crate) fn new(index: usize, lanes: usize, launch: &Launch) -> Wave {
        let width = launch.wave_width as usize;
        let [wx, wy, _] = launch.workgroup;
        let local = (0..width)
            .map(|l| {
                if l >= lanes {
                    return [0; 3];
                }
                let item = (index * width + l) as u32;
                [item % wx, item / wx % wy, item / (wx * wy)]
            })
            .collect();
        let mask = (0..lanes).fold(0u64, |m, l| m | 1 << l);
        Wave {
            index,
            width,
            launch: mask,
            exec: mask,
            pc: 0,
            stack: Vec::new(),
            v: vec![[0; 64]; 256],
            s: vec![0; 128],
            m: vec![0; 32],
            local,
            parked: false,
            done: false,
        }
    }

    fn lanes(&self) -> Vec<usize> {
        (0..self.width).filter(|&l| bit(self.exec, l)).collect()
    }

    fn special(&self, sh: &Shared<'_>, sp: Special, lane: usize) -> u32 {
        let wg = sh.launch.workgroup;
        match sp {
            Special::LaneId => lane as u32,
            Special::LocalId(a) => self.local[lane][a.index()],
            Special::GlobalId(a) => sh.group[a.index()]
                .wrapping_mul(wg[a.index()])
                .wrapping_add(self.local[lane][a.index()]),
            Special::GroupId(a) => sh.group[a.index()],
            Special::GroupSize(a) => wg[a.index()],
            Special::NumGroups(a) => sh.launch.grid[a.index()],
            Special::WaveId => self.index as u32,
            Special::WaveWidth => self.width as u32,
        }
    }

    /// Operand `op` as lane `lane` reads it.
    fn value(&self, sh: &Shared<'_>, op: Operand, lane: usize) -> u32 {
        match op {
            Operand::V(r) => self.v[r.0 as usize][lane],
            Operand::S(r) => self.s[r.0 as usize],
            Operand::Arg(p) => match sh.args.get(p.0 as usize) {
                Some(Value::Scalar(x)) => *x,
                _ => 0,
            },
            Operand::Imm(x) => x,
            Operand::Special(sp) => self.special(sh, sp, lane),
        }
    }

    /// A wave-uniform operand (validation keeps per-lane ones out of scalar
    /// positions).
    fn uniform(&self, sh: &Shared<'_>, op: Operand) -> u32 {
        self.value(sh, op, 0)
    }

    /// Lane `l` of the pair of registers from `r` on, the low word first.
    fn pair(&self, r: VReg, l: usize) -> u64 {
        let word = |k: usize| u64::from(self.v[k][l]);
        let r = usize::from(r.0);
        word(r) | (word(r + 1) << 32)
    }

    /// Writes 64-bit lane values to the pair of registers from `dst` on.
    fn write_pairs(&mut self, dst: u16, vals: &[u64]) {
        let lo: Vec<u32> = vals.iter().map(|&x| x as u32).collect();
        let hi: Vec<u32> = vals.iter().map(|&x| (x >> 32) as u32).collect();
        self.write(dst, &lo);
        self.write(dst + 1, &hi);
    }

    fn write(&mut self, dst: u16, vals: &[u32]) {
        for (l, &x) in vals.iter().enumerate().take(self.width) {
            if bit(self.exec, l) {
                self.v[dst as usize][l] = x;
            }
        }
    }

    /// The active lanes' indices of a memory operand, offset added.
    fn indices(&self, sh: &Shared<'_>, index: Operand, offset: Operand) -> Vec<(usize, u32)> {
        let k = self.uniform(sh, offset);
        self.lanes()
            .into_iter()
            .map(|l| (l, self.value(sh, index, l).wrapping_add(k)))
            .collect()
    }

    fn global_place(sh: &Shared<'_>, r: &GlobalRef) -> Place {
        let len = match sh.args.get(r.buffer.0 as usize) {
            Some(Value::Buffer(b)) => b.len() as u64,
            _ => 0,
        };
        let scale = match sh.program.params.get(r.buffer.0 as usize).map(|p| &p.kind) {
            Some(simt_lang::ParamKind::Buffer { elem, .. }) => u64::from(elem.size()),
            _ => 4,
        };
        Place::Global {
            param: r.buffer.0 as usize,
            len,
            scale,
            addressing: r.addressing,
        }
    }

    fn lds_place(sh: &Shared<'_>, r: &LdsRef) -> Place {
        let d = &sh.program.lds[r.lds.0 as usize];
        Place::Lds {
            origin: d.offset as u64,
            len: d.bytes() as u64,
            scale: u64::from(d.elem.size()),
            addressing: r.addressing,
        }
    }

    /// Leaves a body in which no lane is left: to the innermost construct's
    /// next control point (or the end), counting what is jumped over.
    fn leave_empty(&mut self, sh: &mut Shared<'_>, from: usize) {
        let last = sh.program.insts.len() - 1;
        let to = match self.stack.last() {
            Some(Frame::If { next, .. }) => *next,
            Some(Frame::Loop { end, .. }) => *end,
            None => last,
        };
        skip(sh, from, to);
        self.pc = to;
    }

    /// Issues the instruction at `pc`.
    pub(crate) fn step(&mut self, sh: &mut Shared<'_>) -> Result<Step, Fault> {
        let pc = self.pc;
        if sh.issued >= sh.launch.budget {
            return Err(self.fault(sh, pc, FaultKind::BudgetExceeded));
        }
        sh.issued += 1;
        let inst = sh.program.insts[pc];
        self.count_issue(sh, pc, &inst);
        let lanes = self.lanes();
        self.pc = pc + 1;
        inst.visit(&mut issue::Issue {
            wave: self,
            sh,
            pc,
            lanes: &lanes,
        })
    }

    /// A fault of the instruction at `pc` not tied to a lane.
    fn fault(&self, sh: &Shared<'_>, pc: usize, kind: FaultKind) -> Fault {
        Fault {
            kind,
            inst: pc,
            workgroup: sh.group,
            wave: self.index,
            lane: None,
        }
    }

    /// Counts the issue of `inst` at `pc` by the active lanes.
    fn count_issue(&self, sh: &mut Shared<'_>, pc: usize, inst: &Inst) {
        let active = self.exec.count_ones() as usize;
        let c = &mut sh.report.per_instruction[pc];
        // `print` counts in no counter.
        c.instructions += u64::from(!matches!(inst, Inst::Print { .. }));
        if counts_as_vector(inst) {
            c.vector_instructions += 1;
            c.active_lanes += active as u64;
            c.divergent_vector_instructions += u64::from(self.exec != self.launch);
            sh.report.histogram[active] += 1;
        }
        if active < self.width {
            sh.report.masked_issues[pc] += 1;
        }
        if self.exec != self.launch {
            sh.report.diverged_issues[pc] += 1;
        }
    }

    /// A load, store or atomic of either space: what moves, at the place
    /// with its index and offset operands.
    fn memory(
        &mut self,
        sh: &mut Shared<'_>,
        pc: usize,
        (place, index, offset): (&Place, Operand, Operand),
        moved: Move,
    ) -> Result<(), Fault> {
        let idx = self.indices(sh, index, offset);
        match moved {
            Move::Load(ty, dst) => {
                let vals = self.load(sh, pc, place, &idx, ty, 1)?;
                let mut out = vec![0; self.width];
                for (&(l, _), v) in idx.iter().zip(vals) {
                    out[l] = v[0];
                }
                self.write(dst.0, &out);
            }
            Move::LoadRun(n, dst) => self.load_wide(sh, pc, place, &idx, dst.0, n)?,
            Move::Store(ty, src) => {
                let vals: Vec<Vec<u32>> = idx
                    .iter()
                    .map(|&(l, _)| vec![self.value(sh, src, l)])
                    .collect();
                self.store(sh, pc, place, &idx, ty, &vals)?;
            }
            Move::StoreRun(n, src) => {
                let vals = self.run_values(&idx, src.0, n);
                self.store(sh, pc, place, &idx, ElemType::U32, &vals)?;
            }
            Move::Atomic(op, dst, src, cmp) => {
                let ops: Vec<(u32, u32)> = idx
                    .iter()
                    .map(|&(l, _)| (self.value(sh, src, l), self.value(sh, cmp, l)))
                    .collect();
                self.atomic(sh, pc, (place, &idx), (op, &ops), dst.map(|d| d.0))?;
            }
            Move::Atomic64(op, dst, src, cmp) => {
                let ops: Vec<(u64, u64)> = idx
                    .iter()
                    .map(|&(l, _)| (self.pair(src, l), cmp.map_or(0, |c| self.pair(c, l))))
                    .collect();
                self.atomic64(sh, pc, (place, &idx), (op, &ops), dst.0)?;
            }
        }
        Ok(())
    }

    /// The values of registers `first..first + n` of each listed lane.
    fn run_values(&self, idx: &[(usize, u32)], first: u16, n: u16) -> Vec<Vec<u32>> {
        idx.iter()
            .map(|&(l, _)| (0..n).map(|k| self.v[(first + k) as usize][l]).collect())
            .collect()
    }

    /// Checks and counts an access of `shape` by the lanes of `idx`; the byte
    /// offsets of the lanes, within the buffer or the LDS.
    fn access(
        &self,
        sh: &mut Shared<'_>,
        pc: usize,
        idx: &[(usize, u32)],
        shape: &Shape<'_>,
    ) -> Result<Vec<(usize, u64)>, Fault> {
        let offs =
            memory::offsets(shape.place, idx, shape.ty, shape.count).map_err(|(kind, lane)| {
                Fault {
                    kind,
                    inst: pc,
                    workgroup: sh.group,
                    wave: self.index,
                    lane: Some(lane as u32),
                }
            })?;
        let c: &mut Counts = &mut sh.report.per_instruction[pc];
        let geo = &sh.launch.geometry;
        memory::count(c, &mut sh.report.paths, geo, self.width, shape, &offs);
        Ok(offs)
    }

    fn load(
        &self,
        sh: &mut Shared<'_>,
        pc: usize,
        place: &Place,
        idx: &[(usize, u32)],
        ty: ElemType,
        count: u16,
    ) -> Result<Vec<Vec<u32>>, Fault> {
        let shape = Shape {
            place,
            ty,
            count,
            atomic: false,
        };
        let offs = self.access(sh, pc, idx, &shape)?;
        Ok(offs
            .iter()
            .map(|&(_, o)| {
                (0..count as u64)
                    .map(|k| {
                        let at = o + k * ty.size() as u64;
                        memory::extend(ty, &bytes(sh, place)[at as usize..])
                    })
                    .collect()
            })
            .collect())
    }

    fn load_wide(
        &mut self,
        sh: &mut Shared<'_>,
        pc: usize,
        place: &Place,
        idx: &[(usize, u32)],
        dst: u16,
        n: u16,
    ) -> Result<(), Fault> {
        let vals = self.load(sh, pc, place, idx, ElemType::U32, n)?;
        for k in 0..n {
            let mut out = vec![0; self.width];
            for (&(l, _), v) in idx.iter().zip(&vals) {
                out[l] = v[k as usize];
            }
            self.write(dst + k, &out);
        }
        Ok(())
    }

    /// Stores `vals[i][k]` of lane `idx[i]` at element `k` of its access, in
    /// lane order.
    fn store(
        &self,
        sh: &mut Shared<'_>,
        pc: usize,
        place: &Place,
        idx: &[(usize, u32)],
        ty: ElemType,
        vals: &[Vec<u32>],
    ) -> Result<(), Fault> {
        let count = vals.first().map_or(1, |v| v.len() as u16);
        let shape = Shape {
            place,
            ty,
            count,
            atomic: false,
        };
        let offs = self.access(sh, pc, idx, &shape)?;
        let size = ty.size() as usize;
        let mem = bytes_mut(sh, place);
        for (&(_, o), v) in offs.iter().zip(vals) {
            for (k, &x) in v.iter().enumerate() {
                let at = o as usize + k * size;
                mem[at..at + size].copy_from_slice(&x.to_le_bytes()[..size]);
            }
        }
        Ok(())
    }

    /// An atomic (`op`) or, without one, a compare-and-swap, lane by lane in
    /// lane order; `ops[i]` is lane `idx[i]`'s (value, compared value), and
    /// `dst` receives the old values.
    fn atomic(
        &mut self,
        sh: &mut Shared<'_>,
        pc: usize,
        (place, idx): (&Place, &[(usize, u32)]),
        (op, ops): (Option<AtomicOp>, &[(u32, u32)]),
        dst: Option<u16>,
    ) -> Result<(), Fault> {
        let shape = Shape {
            place,
            ty: ElemType::U32,
            count: 1,
            atomic: true,
        };
        let offs = self.access(sh, pc, idx, &shape)?;
        let mut paths = sh.report.paths;
        if matches!(op, Some(AtomicOp::MinI32 | AtomicOp::MaxI32))
            && ops.iter().any(|&(v, _)| (v as i32) < 0)
        {
            paths.signed_min_max_negative += 1;
        }
        let mem = bytes_mut(sh, place);
        let mut out = vec![0; self.width];
        for (&(l, o), &(v, cmp)) in offs.iter().zip(ops) {
            let at = o as usize;
            let old = memory::extend(ElemType::U32, &mem[at..]);
            let new = match op {
                None if old == cmp => {
                    paths.cmpswap_succeeded += 1;
                    v
                }
                None => {
                    paths.cmpswap_failed += 1;
                    old
                }
                Some(op) => atomic_update(op, old, v),
            };
            mem[at..at + 4].copy_from_slice(&new.to_le_bytes());
            out[l] = old;
        }
        sh.report.paths = paths;
        if let Some(d) = dst {
            self.write(d, &out);
        }
        Ok(())
    }

    /// [`Self::atomic`] on 64-bit elements: `ops[i]` is lane `idx[i]`'s
    /// (value, compared value) pairs, and the pair `dst` receives the old
    /// elements.
    fn atomic64(
        &mut self,
        sh: &mut Shared<'_>,
        pc: usize,
        (place, idx): (&Place, &[(usize, u32)]),
        (op, ops): (Option<Atomic64Op>, &[(u64, u64)]),
        dst: u16,
    ) -> Result<(), Fault> {
        let shape = Shape {
            place,
            ty: ElemType::U64,
            count: 1,
            atomic: true,
        };
        let offs = self.access(sh, pc, idx, &shape)?;
        let mut paths = sh.report.paths;
        let mem = bytes_mut(sh, place);
        let mut out = vec![0u64; self.width];
        for (&(l, o), &(v, cmp)) in offs.iter().zip(ops) {
            let at = o as usize;
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&mem[at..at + 8]);
            let old = u64::from_le_bytes(bytes);
            let new = match op {
                None if old == cmp => {
                    paths.cmpswap_succeeded += 1;
                    v
                }
                None => {
                    paths.cmpswap_failed += 1;
                    old
                }
                Some(op) => atomic64_update(op, old, v),
            };
            mem[at..at + 8].copy_from_slice(&new.to_le_bytes());
            out[l] = old;
        }
        sh.report.paths = paths;
        self.write_pairs(dst, &out);
        Ok(())
    }
}

fn atomic64_update(op: Atomic64Op, old: u64, v: u64) -> u64 {
    match op {
        Atomic64Op::AddU64 => old.wrapping_add(v),
        Atomic64Op::AddF64 => pairs::canon(f64::from_bits(old) + f64::from_bits(v)),
        Atomic64Op::MinU64 => old.min(v),
        Atomic64Op::MinI64 => (old as i64).min(v as i64) as u64,
        Atomic64Op::MaxU64 => old.max(v),
        Atomic64Op::MaxI64 => (old as i64).max(v as i64) as u64,
        Atomic64Op::And => old & v,
        Atomic64Op::Or => old | v,
        Atomic64Op::Xor => old ^ v,
        Atomic64Op::Exchange => v,
    }
}

fn atomic_update(op: AtomicOp, old: u32, v: u32) -> u32 {
    match op {
        AtomicOp::AddU32 => old.wrapping_add(v),
        AtomicOp::SubU32 => old.wrapping_sub(v),
        AtomicOp::MinU32 => old.min(v),
        AtomicOp::MinI32 => (old as i32).min(v as i32) as u32,
        AtomicOp::MaxU32 => old.max(v),
        AtomicOp::MaxI32 => (old as i32).max(v as i32) as u32,
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Exchange => v,
        AtomicOp::IncU32 if old >= v => 0,
        AtomicOp::IncU32 => old.wrapping_add(1),
        AtomicOp::AddF32 => crate::alu::bits(f32::from_bits(old) + f32::from_bits(v)),
    }
}

/// Counts the instructions strictly between `from` and `to` as skipped.
fn skip(sh: &mut Shared<'_>, from: usize, to: usize) {
    for k in from + 1..to {
        // `print` counts in no counter, skipped or not.
        let counted = !matches!(sh.program.insts[k], Inst::Print { .. });
        sh.report.per_instruction[k].skipped_instructions += u64::from(counted);
    }
}

fn bytes<'s>(sh: &'s Shared<'_>, place: &Place) -> &'s [u8] {
    match *place {
        Place::Global { param, .. } => match &sh.args[param] {
            Value::Buffer(b) => b,
            Value::Scalar(_) => &[],
        },
        Place::Lds { .. } => &sh.lds,
    }
}

fn bytes_mut<'s>(sh: &'s mut Shared<'_>, place: &Place) -> &'s mut [u8] {
    match *place {
        Place::Global { param, .. } => match &mut sh.args[param] {
            Value::Buffer(b) => b,
            Value::Scalar(_) => &mut [],
        },
        Place::Lds { .. } => &mut sh.lds,
    }
}

/// Whether `op` is a signed minimum or maximum with a negative operand.
fn signed_min_max_negative(op: simt_lang::BinOp, x: u32, y: u32) -> bool {
    matches!(op, simt_lang::BinOp::MinI32 | simt_lang::BinOp::MaxI32)
        && ((x as i32) < 0 || (y as i32) < 0)
}
