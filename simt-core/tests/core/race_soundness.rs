//! The race verdicts over generated kernels: LDS and global loads, stores and
//! atomics at affine indices, under `if`s on the lane, the wave, the
//! workgroup and loop counters, in uniform loops, with and without barriers,
//! loops with a barrier in every iteration, a work-item's own store before
//! its load of the same word, a word read and stored back (`v = t[i];
//! t[i] = v`, LDS four times in five, the index often one for many
//! work-items: 6 in 100 statements, and the first statement of a quarter of
//! the kernels, whose word nothing wrote before; about half the kernels have
//! one), plain loads and stores of one byte of the word now and then (15 in
//! 100: accesses of different sizes meet in part), launched at 1-D sizes 1,
//! 31, 32, 33, 64, 96 and 1024 and at 16x16, on grids of one to three
//! workgroups, at wave32 and wave64.
//!
//! - A pair proved free, under assumptions the launch meets, gets no race
//!   and no disagreeing store from the sanitizer, under both lane orders
//!   (lockstep only when the proof needs lockstep), unless the model has no
//!   two work-items of the launch touching a common byte with the two (the
//!   sanitizer's shadow keeps a record per word, named after its latest
//!   access, and can name a byte's race after the word's other byte:
//!   counted, not failed); a kernel whose pairs
//!   are all proved free gives the same output whatever the order of its
//!   workgroups and waves (reversed, shuffled).
//! - A pair proved racing names two work-items that do race: a model of the
//!   generated kernel, written here from its own description and not from the
//!   facts, runs each of the two and finds them touching one byte unordered.
//! - Every exact or ranged cost fact agrees with the counters of the
//!   launch's fully active phases.
//! - The prover decides: at least a fifth of the pairs are proved free and a
//!   fifth proved racing (and, at the defaults, no fewer proved free than
//!   before store-backs were generated).
//! - Too strict, counted: a pair the prover refuses for the launch (racing,
//!   or not proved free under assumptions it meets in some lane order) that
//!   the sanitizer under both lane orders and the schedule check found free.
//!   The count is printed by the refusal's reason (the verdict's witness
//!   outside the launch, the assumption it needs, or for an unknown verdict
//!   what the facts show: a guard or address reading the workgroup's id or
//!   the argument, one store's lanes storing a value the search cannot
//!   evaluate, ...) and, at the defaults, may not grow past the count
//!   committed. Not counted: pairs of kernels whose output depends on the
//!   order, and witnesses in the launch (the model runs them) the sanitizer,
//!   which keeps a word's last write, named with another instruction.
//!
//! `SIMT_SOUNDNESS_KERNELS` sets how many kernels are tried (5,000 by
//! default) and `SIMT_SOUNDNESS_SEED` where the generator starts.

use simt_core::facts::{
    facts, AccessKind, Facts, Pair, RaceAssumption, SpecialSym, Sym, Verdict, WorkItem,
};
use simt_core::AtomicOp;
use simt_core::{
    launch, predictions, Addressing, Arg, Axis, BinOp, CmpOp, CmpType, ElemType, FindingKind,
    GlobalRef, Inst, InstIdx, Kernel, LaneOrder, LaunchConfig, LdsRef, MReg, MemoryModel, Operand,
    Order, ProgramBuilder, SReg, ScalarType, Special, Stats, TernOp, UnOp, VReg,
};

use std::collections::BTreeMap;

/// SplitMix64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, in_hundred: u64) -> bool {
        self.below(100) < in_hundred
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A per-work-item quantity an index or a condition reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    X,
    Y,
    Lane,
    Wave,
    Group,
    Gid,
    /// The counter of the enclosing loop at this depth.
    Counter(usize),
    /// `wave_id * WAVE_STEP`, in a scalar register: a bound that means one
    /// thing per wave.
    WaveScalar,
}

/// `c + Σ k·term`, in elements.
#[derive(Clone, Debug)]
struct Form {
    c: i64,
    terms: Vec<(Term, i64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mem {
    Lds,
    Global,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    X,
    Imm(u32),
    WaveScalar,
    /// What the load just before (of the same word) read: a store-back.
    Loaded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Load,
    Store(Value),
    Atomic,
}

#[derive(Clone, Copy, Debug)]
enum Rhs {
    Imm(u32),
    Term(Term),
    /// The kernel's scalar `n`.
    Arg,
}

#[derive(Clone, Copy, Debug)]
struct Cond {
    op: CmpOp,
    lhs: Term,
    rhs: Rhs,
}

#[derive(Clone, Debug)]
enum Stmt {
    Access {
        mem: Mem,
        op: Op,
        index: Form,
        /// A byte access at this offset into the indexed word (a load, or a
        /// store of a work-item's id or a constant); else the word.
        byte: Option<u8>,
    },
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    Loop {
        trips: u32,
        body: Vec<Stmt>,
    },
    Barrier,
}

/// What the wave scalar steps by from wave to wave: past a wave's 32 or 64
/// lanes, so that `local_id.x < wave_id * 64` holds in no lane of wave 0 and
/// every lane of wave 1.
const WAVE_STEP: u32 = 64;

/// The value of the scalar `n`.
const N: u32 = 40;
/// What keeps every index non-negative: past the largest magnitude the terms
/// reach with coefficients of at most 2.
const LDS_BASE: i64 = 4_000;
const LDS_LEN: u32 = 12_000;
const GLOBAL_BASE: i64 = 6_200;
const GLOBAL_LEN: u32 = 18_600;

struct Gen<'r> {
    rng: &'r mut Rng,
    /// Loops around the statement being generated.
    loops: usize,
    /// `if`s around it (a barrier goes only where there is none).
    ifs: usize,
    /// Statements left to generate.
    budget: usize,
}

impl Gen<'_> {
    fn term(&mut self, global: bool) -> Term {
        let mut terms = vec![
            Term::X,
            Term::X,
            Term::Lane,
            Term::Wave,
            Term::Group,
            Term::Y,
        ];
        terms.push(Term::WaveScalar);
        if global {
            terms.extend([Term::Gid, Term::Gid, Term::Group]);
        }
        for d in 0..self.loops {
            terms.push(Term::Counter(d));
        }
        self.rng.pick(&terms)
    }

    fn index(&mut self, mem: Mem) -> Form {
        let n = self.rng.pick(&[0usize, 0, 1, 1, 1, 2]);
        let terms = (0..n)
            .map(|_| {
                let t = self.term(mem == Mem::Global);
                let k = self.rng.pick(&[1i64, 1, 1, 1, 2, -1, 0]);
                (t, k)
            })
            .collect();
        Form {
            c: self.rng.below(40) as i64 - 8,
            terms,
        }
    }

    fn cond(&mut self) -> Cond {
        let op = self
            .rng
            .pick(&[CmpOp::Lt, CmpOp::Lt, CmpOp::Ge, CmpOp::Eq, CmpOp::Ne]);
        let lhs = self.rng.pick(&[
            Term::X,
            Term::X,
            Term::X,
            Term::Lane,
            Term::Group,
            Term::WaveScalar,
        ]);
        let rhs = match self.rng.below(10) {
            0 => Rhs::Arg,
            1 | 2 => Rhs::Term(Term::WaveScalar),
            3 if self.loops > 0 => Rhs::Term(Term::Counter(self.loops - 1)),
            _ => Rhs::Imm(self.rng.pick(&[0u32, 1, 16, 31, 32, 33, 48, 64, 100])),
        };
        Cond { op, lhs, rhs }
    }

    /// A word read and stored back, `v = t[i]; t[i] = v`: LDS mostly, the
    /// index often one for many work-items, the word often one nothing wrote
    /// before (always, at the kernel's start).
    fn store_back(&mut self) -> [Stmt; 2] {
        let mem = if self.rng.chance(80) {
            Mem::Lds
        } else {
            Mem::Global
        };
        let index = self.index(mem);
        [
            Stmt::Access {
                byte: None,
                mem,
                op: Op::Load,
                index: index.clone(),
            },
            Stmt::Access {
                byte: None,
                mem,
                op: Op::Store(Value::Loaded),
                index,
            },
        ]
    }

    fn block(&mut self, len: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..len {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            let roll = self.rng.below(100);
            let depth = self.loops + self.ifs;
            let stmt = if roll < 5 && depth < 3 {
                // An exchange: one arm stores what the other loads, a word
                // or two along, as tree steps and halos do.
                let mem = if self.rng.chance(70) {
                    Mem::Lds
                } else {
                    Mem::Global
                };
                let cond = self.cond();
                let index = self.index(mem);
                let mut other = index.clone();
                other.c += self.rng.pick(&[-1i64, 1, 0, 16]);
                let store = Stmt::Access {
                    byte: None,
                    mem,
                    op: Op::Store(Value::X),
                    index,
                };
                let load = Stmt::Access {
                    byte: None,
                    mem,
                    op: Op::Load,
                    index: other,
                };
                Stmt::If {
                    cond,
                    then: vec![store],
                    els: Some(vec![load]),
                }
            } else if roll < 16 && depth < 3 {
                self.ifs += 1;
                let cond = self.cond();
                let n = 1 + self.rng.below(3) as usize;
                let then = self.block(n);
                let els = self.rng.chance(30).then(|| self.block(1));
                self.ifs -= 1;
                Stmt::If { cond, then, els }
            } else if roll < 22 && depth < 3 && self.loops < 2 {
                self.loops += 1;
                let n = 1 + self.rng.below(3) as usize;
                let mut body = self.block(n);
                self.loops -= 1;
                // A barrier in every iteration, as tree steps have.
                if self.ifs == 0 && self.rng.chance(40) {
                    body.push(Stmt::Barrier);
                }
                Stmt::Loop {
                    trips: 1 + self.rng.below(3) as u32,
                    body,
                }
            } else if roll < 34 && self.ifs == 0 {
                Stmt::Barrier
            } else if roll < 38 {
                // A work-item's own store, then its load of the same word.
                let mem = if self.rng.chance(70) {
                    Mem::Lds
                } else {
                    Mem::Global
                };
                let index = self.index(mem);
                out.push(Stmt::Access {
                    byte: None,
                    mem,
                    op: Op::Store(Value::X),
                    index: index.clone(),
                });
                Stmt::Access {
                    byte: None,
                    mem,
                    op: Op::Load,
                    index,
                }
            } else if roll < 44 {
                let [load, store] = self.store_back();
                out.push(load);
                store
            } else {
                let mem = if self.rng.chance(55) {
                    Mem::Lds
                } else {
                    Mem::Global
                };
                let op = match self.rng.below(10) {
                    0..=3 => Op::Load,
                    4..=8 => Op::Store(match self.rng.below(3) {
                        0 => Value::X,
                        1 => Value::Imm(self.rng.pick(&[0, 7])),
                        _ => Value::WaveScalar,
                    }),
                    _ => Op::Atomic,
                };
                // Now and then a byte of the word: accesses of different
                // sizes meet in part.
                let byte = (op != Op::Atomic
                    && op != Op::Store(Value::WaveScalar)
                    && self.rng.chance(BYTES))
                .then(|| self.rng.below(4) as u8);
                Stmt::Access {
                    byte,
                    mem,
                    op,
                    index: self.index(mem),
                }
            };
            out.push(stmt);
        }
        out
    }
}

/// The generated kernel's registers.
const INDEX: VReg = VReg(0);
const ACC: VReg = VReg(1);
const TMP: VReg = VReg(2);
const OUT: VReg = VReg(3);
const WAVE_SCALAR: SReg = SReg(0);

fn counter(depth: usize) -> SReg {
    SReg(1 + depth as u16)
}

fn operand(t: Term) -> Operand {
    match t {
        Term::X => Operand::Special(Special::LocalId(Axis::X)),
        Term::Y => Operand::Special(Special::LocalId(Axis::Y)),
        Term::Lane => Operand::Special(Special::LaneId),
        Term::Wave => Operand::Special(Special::WaveId),
        Term::Group => Operand::Special(Special::GroupId(Axis::X)),
        Term::Gid => Operand::Special(Special::GlobalId(Axis::X)),
        Term::Counter(d) => Operand::S(counter(d)),
        Term::WaveScalar => Operand::S(WAVE_SCALAR),
    }
}

/// The built kernel and, for each access statement in walk order, its
/// instruction.
struct Built {
    kernel: Kernel,
    /// The instruction of each access, in the order [`Emit`] met them.
    accesses: Vec<usize>,
    /// The stores of store-backs.
    backs: Vec<usize>,
}

struct Emit {
    b: ProgramBuilder,
    count: usize,
    accesses: Vec<usize>,
    backs: Vec<usize>,
    t: simt_core::LdsIdx,
    g: simt_core::ParamIdx,
    n: simt_core::ParamIdx,
    depth: usize,
    loops: usize,
}

impl Emit {
    fn push(&mut self, inst: Inst) -> usize {
        self.b.push(inst);
        self.count += 1;
        self.count - 1
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Access {
                mem,
                op,
                index,
                byte,
            } => {
                let base = match mem {
                    Mem::Lds => LDS_BASE,
                    Mem::Global => GLOBAL_BASE,
                };
                self.push(Inst::VUnary {
                    op: UnOp::Mov,
                    dst: INDEX,
                    a: Operand::Imm((base + index.c) as u32),
                });
                for &(t, k) in &index.terms {
                    self.push(Inst::VTernary {
                        op: TernOp::MadU32,
                        dst: INDEX,
                        a: operand(t),
                        b: Operand::Imm(k as u32),
                        c: Operand::V(INDEX),
                    });
                }
                // A byte's address in bytes, `4 index + offset`.
                if let Some(k) = byte {
                    self.push(Inst::VTernary {
                        op: TernOp::MadU32,
                        dst: INDEX,
                        a: Operand::V(INDEX),
                        b: Operand::Imm(4),
                        c: Operand::Imm(u32::from(*k)),
                    });
                }
                let at = Operand::V(INDEX);
                let (ty, addressing) = match byte {
                    Some(_) => (ElemType::U8, Addressing::Byte),
                    None => (ElemType::U32, Addressing::Element),
                };
                let lds = LdsRef {
                    addressing,
                    ..LdsRef::element(self.t, at)
                };
                let global = GlobalRef {
                    addressing,
                    ..GlobalRef::element(self.g, at)
                };
                let value = |v: &Value| match *v {
                    Value::X => operand(Term::X),
                    Value::Imm(k) => Operand::Imm(k),
                    Value::WaveScalar => Operand::S(WAVE_SCALAR),
                    // The load before it left what it read in `TMP`.
                    Value::Loaded => Operand::V(TMP),
                };
                let inst = match (mem, op) {
                    (Mem::Lds, Op::Load) => Inst::LdsLoad {
                        ty,
                        dst: TMP,
                        src: lds,
                    },
                    (Mem::Lds, Op::Store(v)) => Inst::LdsStore {
                        ty,
                        dst: lds,
                        src: value(v),
                    },
                    (Mem::Lds, Op::Atomic) => Inst::LdsAtomic {
                        op: AtomicOp::AddU32,
                        dst: None,
                        mem: LdsRef::element(self.t, at),
                        src: Operand::Imm(1),
                    },
                    (Mem::Global, Op::Load) => Inst::GlobalLoad {
                        ty,
                        dst: TMP,
                        src: global,
                    },
                    (Mem::Global, Op::Store(v)) => Inst::GlobalStore {
                        ty,
                        dst: global,
                        src: value(v),
                    },
                    (Mem::Global, Op::Atomic) => Inst::GlobalAtomic {
                        op: AtomicOp::AddU32,
                        dst: None,
                        mem: GlobalRef::element(self.g, at),
                        src: Operand::Imm(1),
                    },
                };
                let i = self.push(inst);
                self.accesses.push(i);
                if *op == Op::Store(Value::Loaded) {
                    self.backs.push(i);
                }
                if *op == Op::Load {
                    self.push(Inst::VBinary {
                        op: BinOp::AddU32,
                        dst: ACC,
                        a: Operand::V(ACC),
                        b: Operand::V(TMP),
                    });
                }
            }
            Stmt::If { cond, then, els } => {
                let mask = MReg(self.depth as u16);
                let rhs = match cond.rhs {
                    Rhs::Imm(k) => Operand::Imm(k),
                    Rhs::Term(t) => operand(t),
                    Rhs::Arg => Operand::Arg(self.n),
                };
                self.push(Inst::VCmp {
                    op: cond.op,
                    ty: CmpType::U32,
                    dst: mask,
                    a: operand(cond.lhs),
                    b: rhs,
                });
                self.push(Inst::If {
                    mask,
                    next: InstIdx::UNLINKED,
                });
                self.depth += 1;
                self.stmts(then);
                if let Some(els) = els {
                    self.push(Inst::Else {
                        end: InstIdx::UNLINKED,
                    });
                    self.stmts(els);
                }
                self.depth -= 1;
                self.push(Inst::EndIf);
            }
            Stmt::Loop { trips, body } => {
                let c = counter(self.loops);
                self.push(Inst::SUnary {
                    op: UnOp::Mov,
                    dst: c,
                    a: Operand::Imm(0),
                });
                self.push(Inst::Loop {
                    end: InstIdx::UNLINKED,
                });
                self.loops += 1;
                self.depth += 1;
                self.stmts(body);
                self.depth -= 1;
                self.loops -= 1;
                self.push(Inst::SBinary {
                    op: BinOp::AddU32,
                    dst: c,
                    a: Operand::S(c),
                    b: Operand::Imm(1),
                });
                let go = MReg(4 + self.loops as u16);
                self.push(Inst::SCmp {
                    op: CmpOp::Lt,
                    ty: CmpType::U32,
                    dst: go,
                    a: Operand::S(c),
                    b: Operand::Imm(*trips),
                });
                self.push(Inst::EndLoop {
                    mask: go,
                    start: InstIdx::UNLINKED,
                });
            }
            Stmt::Barrier => {
                self.push(Inst::Barrier);
            }
        }
    }
}

fn build(stmts: &[Stmt], shape: [u32; 3]) -> Built {
    let mut b = ProgramBuilder::new("generated");
    let g = b.buffer_mut::<u32>("g");
    let out = b.buffer_mut::<u32>("out");
    let n = b.scalar("n", ScalarType::U32);
    let t = b.lds("t", ElemType::U32, LDS_LEN);
    let mut e = Emit {
        b,
        count: 0,
        accesses: Vec::new(),
        backs: Vec::new(),
        t,
        g,
        n,
        depth: 0,
        loops: 0,
    };
    e.push(Inst::VUnary {
        op: UnOp::Mov,
        dst: ACC,
        a: Operand::Imm(0),
    });
    e.push(Inst::SBinary {
        op: BinOp::MulU32,
        dst: WAVE_SCALAR,
        a: operand(Term::Wave),
        b: Operand::Imm(WAVE_STEP),
    });
    e.stmts(stmts);
    // Each work-item's sum of what it loaded, to its own word of `out`.
    let items = shape[0] * shape[1];
    e.push(Inst::VTernary {
        op: TernOp::MadU32,
        dst: OUT,
        a: operand(Term::Y),
        b: Operand::Imm(shape[0]),
        c: operand(Term::X),
    });
    e.push(Inst::VTernary {
        op: TernOp::MadU32,
        dst: OUT,
        a: operand(Term::Group),
        b: Operand::Imm(items),
        c: Operand::V(OUT),
    });
    e.push(Inst::GlobalStore {
        ty: ElemType::U32,
        dst: GlobalRef::element(out, Operand::V(OUT)),
        src: Operand::V(ACC),
    });
    let kernel = e.b.build().expect("the generated kernel validates");
    Built {
        kernel,
        accesses: e.accesses,
        backs: e.backs,
    }
}

/// One access a work-item makes, in the model.
#[derive(Clone, Copy, Debug)]
struct Touch {
    inst: usize,
    mem: Mem,
    /// The first byte touched and how many.
    bytes: (i64, i64),
    /// A store's value.
    value: Option<Stored>,
    /// Barriers the work-item had passed.
    epoch: u32,
}

/// What a store writes, in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stored {
    Known(u32),
    /// What the work-item's load of the word just before read: in one wave,
    /// one value for every lane storing to one word (they read it in one
    /// instruction).
    Back,
}

/// A work-item of a launch, as the model sees it.
struct Who {
    group: u32,
    x: u32,
    y: u32,
    linear: u32,
    width: u32,
    size_x: u32,
}

impl Who {
    fn of(item: &WorkItem, shape: [u32; 3], width: u32) -> Who {
        let linear = item.local[0] + shape[0] * item.local[1];
        Who {
            group: item.group[0],
            x: item.local[0],
            y: item.local[1],
            linear,
            width,
            size_x: shape[0],
        }
    }

    fn term(&self, t: Term, counters: &[u32]) -> i64 {
        i64::from(match t {
            Term::X => self.x,
            Term::Y => self.y,
            Term::Lane => self.linear % self.width,
            Term::Wave => self.linear / self.width,
            Term::Group => self.group,
            Term::Gid => self.group * self.size_x + self.x,
            Term::Counter(d) => counters[d],
            Term::WaveScalar => self.linear / self.width * WAVE_STEP,
        })
    }
}

/// What the work-item does, by the generated description alone.
fn model(stmts: &[Stmt], who: &Who, accesses: &[usize]) -> Vec<Touch> {
    struct Run<'a> {
        who: &'a Who,
        accesses: &'a [usize],
        next: usize,
        counters: Vec<u32>,
        epoch: u32,
        out: Vec<Touch>,
    }
    impl Run<'_> {
        /// Walks `stmts`; `on`: whether the work-item runs them (an access
        /// statement is numbered whether or not it runs).
        fn walk(&mut self, stmts: &[Stmt], on: bool) {
            for s in stmts {
                match s {
                    Stmt::Access {
                        mem,
                        op,
                        index,
                        byte,
                    } => {
                        let inst = self.accesses[self.next];
                        self.next += 1;
                        if !on {
                            continue;
                        }
                        let base = match mem {
                            Mem::Lds => LDS_BASE,
                            Mem::Global => GLOBAL_BASE,
                        };
                        let mut word = base + index.c;
                        for &(t, k) in &index.terms {
                            word += k * self.who.term(t, &self.counters);
                        }
                        // What a store writes: a byte store its value's
                        // low byte.
                        let low = |v: u32| if byte.is_some() { v & 0xff } else { v };
                        let value = match op {
                            Op::Store(Value::X) => Some(Stored::Known(low(self.who.x))),
                            Op::Store(Value::Imm(k)) => Some(Stored::Known(low(*k))),
                            Op::Store(Value::WaveScalar) => {
                                Some(Stored::Known(self.who.linear / self.who.width * WAVE_STEP))
                            }
                            Op::Store(Value::Loaded) => Some(Stored::Back),
                            _ => None,
                        };
                        let bytes = match byte {
                            Some(k) => (4 * word + i64::from(*k), 1),
                            None => (4 * word, 4),
                        };
                        self.out.push(Touch {
                            inst,
                            mem: *mem,
                            bytes,
                            value,
                            epoch: self.epoch,
                        });
                    }
                    Stmt::If { cond, then, els } => {
                        let l = self.who.term(cond.lhs, &self.counters) as u32;
                        let r = match cond.rhs {
                            Rhs::Imm(k) => k,
                            Rhs::Term(t) => self.who.term(t, &self.counters) as u32,
                            Rhs::Arg => N,
                        };
                        let holds = match cond.op {
                            CmpOp::Lt => l < r,
                            CmpOp::Ge => l >= r,
                            CmpOp::Eq => l == r,
                            CmpOp::Ne => l != r,
                            CmpOp::Le => l <= r,
                            CmpOp::Gt => l > r,
                        };
                        self.walk(then, on && holds);
                        if let Some(els) = els {
                            self.walk(els, on && !holds);
                        }
                    }
                    Stmt::Loop { trips, body } => {
                        // Uniform: every work-item runs every trip; the
                        // accesses are numbered once.
                        let first = self.next;
                        self.counters.push(0);
                        for trip in 0..*trips {
                            self.next = first;
                            *self.counters.last_mut().expect("pushed") = trip;
                            self.walk(body, on);
                        }
                        self.counters.pop();
                    }
                    Stmt::Barrier => self.epoch += 1,
                }
            }
        }
    }
    let mut run = Run {
        who,
        accesses,
        next: 0,
        counters: Vec::new(),
        epoch: 0,
        out: Vec::new(),
    };
    run.walk(stmts, true);
    run.out
}

/// The launch shapes tried.
const SHAPES: [[u32; 3]; 8] = [
    [1, 1, 1],
    [31, 1, 1],
    [32, 1, 1],
    [33, 1, 1],
    [64, 1, 1],
    [96, 1, 1],
    [1024, 1, 1],
    [16, 16, 1],
];

#[derive(Default)]
struct Tally {
    kernels: u64,
    /// Pairs decided for the launch's shape (a race needs a shape), and how
    /// many were proved free and racing.
    pairs: u64,
    free: u64,
    race: u64,
    /// Pairs decided for any shape, and how many were proved free.
    any_pairs: u64,
    any_free: u64,
    free_checked: u64,
    races_checked: u64,
    facts_compared: u64,
    /// Pairs the prover refuses for the launch: racing, or not proved free
    /// under assumptions it meets in some lane order.
    refused: u64,
    /// Refused pairs every launch of their kernel found free (no race of
    /// the two under either lane order, one output in every order), by the
    /// reason of the refusal; and the kernels with one.
    strict: BTreeMap<String, u64>,
    strict_kernels: u64,
    /// Refused pairs both sanitizers found free in a kernel whose output the
    /// schedule check found to depend on the order (not counted above).
    strict_unchecked: u64,
    /// Refused pairs proved racing with a witness in the launch, which the
    /// model confirmed, that the sanitizers reported with another instruction.
    named_otherwise: u64,
    /// Kernels with a store-back.
    with_back: u64,
    /// Pairs proved free the sanitizer named as racing where the model has
    /// no two work-items of the launch touching a common byte with them
    /// (its word-sized shadow named another access's race after them).
    misnamed: u64,
}

/// The two instructions of a race finding, lower first.
fn raced(stats: &Stats) -> Vec<(u32, u32)> {
    stats
        .findings
        .list
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FindingKind::Race { .. } | FindingKind::LanesDisagree { .. }
            )
        })
        .map(|f| {
            let other = f.other.map_or(f.at.inst, |o| o.inst);
            (f.at.inst.min(other), f.at.inst.max(other))
        })
        .collect()
}

fn assumptions_hold(a: &[RaceAssumption], grid: u32, shape: [u32; 3], lanes: LaneOrder) -> bool {
    a.iter().all(|x| x.holds([grid, 1, 1], shape, lanes))
}

/// Checks one generated kernel; a failure names what went wrong.
fn check(
    stmts: &[Stmt],
    shape: [u32; 3],
    grid: u32,
    width: u32,
    tally: &mut Tally,
) -> Result<(), String> {
    let built = build(stmts, shape);
    let kernel = &built.kernel;
    let program = kernel.program();
    let items = (shape[0] * shape[1] * grid) as usize;
    let go = |config: LaunchConfig| -> Stats {
        let mut g = vec![0u32; GLOBAL_LEN as usize];
        let mut out = vec![0u32; items];
        let mut args = [
            Arg::buffer_mut(&mut g),
            Arg::buffer_mut(&mut out),
            Arg::U32(N),
        ];
        launch(kernel, &config, &mut args).expect("the generated kernel runs")
    };
    let config = LaunchConfig::new(grid, [shape[0], shape[1]]).wave_width(width);
    let lockstep = go(config.clone().sanitize(true).record_worst_phases());
    let independent = go(config.clone().sanitize_lanes(LaneOrder::Independent));
    let any_shape = facts(program, None);
    let this_shape = facts(program, Some(shape));
    tally.kernels += 1;
    let mut all_free = true;
    for (f, decided) in [(&any_shape, "any shape"), (&this_shape, "this shape")] {
        for pair in &f.pairs {
            let key = (pair.a.min(pair.b), pair.a.max(pair.b));
            let shaped = decided == "this shape";
            if shaped {
                tally.pairs += 1;
            } else {
                tally.any_pairs += 1;
            }
            match &pair.verdict {
                Verdict::Free(assumptions) => {
                    if shaped {
                        tally.free += 1;
                    } else {
                        tally.any_free += 1;
                    }
                    for (lanes, stats) in [
                        (LaneOrder::Lockstep, &lockstep),
                        (LaneOrder::Independent, &independent),
                    ] {
                        if !assumptions_hold(assumptions, grid, shape, lanes) {
                            if lanes == LaneOrder::Lockstep && decided == "this shape" {
                                all_free = false;
                            }
                            continue;
                        }
                        tally.free_checked += 1;
                        if raced(stats).contains(&key) {
                            // The sanitizer's shadow keeps one record per
                            // word, named after its latest access: two byte
                            // accesses of one word that never share a byte
                            // can be named as a race another access made.
                            if !ever_meet(stmts, &built, key, shape, grid, width) {
                                tally.misnamed += 1;
                                continue;
                            }
                            return Err(format!(
                                "pair {key:?} proved free ({decided}, {assumptions:?}), yet the sanitizer ({lanes:?}) found {:#?}",
                                stats.findings.list
                            ));
                        }
                    }
                }
                Verdict::Race(w) => {
                    tally.race += 1;
                    if decided == "this shape" {
                        all_free = false;
                    }
                    witness_is_real(stmts, &built, pair.a as usize, pair.b as usize, w, shape)
                        .map_err(|e| format!("pair {key:?} ({decided}): {e}"))?;
                    tally.races_checked += 1;
                }
                Verdict::Unknown => {
                    if decided == "this shape" {
                        all_free = false;
                    }
                }
            }
        }
    }
    // The first order in which the output differs, and how.
    let dependent = || -> Option<(Order, String)> {
        [Order::Reversed, Order::Shuffled(u64::from(width) + 7)]
            .into_iter()
            .find_map(|order| {
                let stats = go(config.clone().schedule_check(Some(order)));
                let f = stats
                    .findings
                    .list
                    .iter()
                    .find(|f| f.kind == FindingKind::ScheduleDependent)?;
                Some((order, f.to_string()))
            })
    };
    // Whether every order gave one output, once checked.
    let mut one_output = None;
    // A kernel proved free gives one output in every order.
    if all_free {
        if let Some((order, f)) = dependent() {
            return Err(format!(
                "every pair proved free, yet in order {order:?}: {f}"
            ));
        }
        one_output = Some(true);
    }
    // Too strict: pairs refused for this launch that the launches found
    // free.
    tally.with_back += u64::from(!built.backs.is_empty());
    let (by_lockstep, by_independent) = (raced(&lockstep), raced(&independent));
    let mut strict = Vec::new();
    for pair in &this_shape.pairs {
        let refused = [LaneOrder::Lockstep, LaneOrder::Independent]
            .into_iter()
            .any(|lanes| {
                !matches!(&pair.verdict, Verdict::Free(a) if assumptions_hold(a, grid, shape, lanes))
            });
        if !refused {
            continue;
        }
        tally.refused += 1;
        let key = (pair.a.min(pair.b), pair.a.max(pair.b));
        if by_lockstep.contains(&key) || by_independent.contains(&key) {
            continue;
        }
        // A witness in this launch the model ran (above): a race the
        // sanitizer, which keeps a word's last write, named with another
        // instruction.
        let in_launch = |w: &simt_core::facts::Witness| {
            w.width == width && w.items.iter().all(|i| i.group[0] < grid)
        };
        if matches!(&pair.verdict, Verdict::Race(w) if in_launch(w)) {
            tally.named_otherwise += 1;
            continue;
        }
        strict.push(refusal(pair, &this_shape, &built, grid, width));
    }
    if !strict.is_empty() {
        if *one_output.get_or_insert_with(|| dependent().is_none()) {
            tally.strict_kernels += 1;
            for why in strict {
                *tally.strict.entry(why).or_default() += 1;
            }
        } else {
            tally.strict_unchecked += strict.len() as u64;
        }
    }
    // Exact and ranged cost facts agree with fully active phases.
    for p in predictions(program, &this_shape, &lockstep, &MemoryModel::reference()) {
        if p.agrees() == Some(false) {
            return Err(format!(
                "instruction {} {:?}: predicted {}, measured {} over {} phases (worst {:?})",
                p.inst, p.what, p.fact.value, p.total, p.phases, p.worst
            ));
        }
        if p.agrees().is_some() {
            tally.facts_compared += 1;
        }
    }
    Ok(())
}

/// Why the prover refused `pair` for a launch of `grid` workgroups at wave
/// width `width`, as the verdict says it (or, for an unknown one, what the
/// facts show of the two accesses), and whether a store-back is one of them.
fn refusal(pair: &Pair, facts: &Facts, built: &Built, grid: u32, width: u32) -> String {
    let access = |i: u32| facts.accesses[i as usize].as_ref();
    let why = match &pair.verdict {
        Verdict::Race(w) if w.width != width => {
            "racing: the witness at the other wave width".to_string()
        }
        Verdict::Race(w) if w.items.iter().any(|i| i.group[0] >= grid) => {
            "racing: the witness in a workgroup past the grid".to_string()
        }
        Verdict::Race(_) => unreachable!("left out: the model runs it"),
        Verdict::Free(a) => {
            let only: Vec<String> = a
                .iter()
                .filter(|x| {
                    let shape = facts.shape.expect("decided for the launch's shape");
                    !x.holds([grid, 1, 1], shape, LaneOrder::Independent)
                        || !x.holds([grid, 1, 1], shape, LaneOrder::Lockstep)
                })
                .map(ToString::to_string)
                .collect();
            format!("free only {}", only.join(", "))
        }
        Verdict::Unknown => {
            let (a, b) = (access(pair.a), access(pair.b));
            let affine =
                |x: Option<&simt_core::facts::Access>| x.is_some_and(|x| x.addr.affine().is_some());
            let reads = |x: Option<&simt_core::facts::Access>, what: &dyn Fn(Sym) -> bool| {
                x.is_some_and(|x| {
                    x.guards.iter().any(|g| {
                        g.cond
                            .as_ref()
                            .is_some_and(|c| c.a.syms().chain(c.b.syms()).any(what))
                    }) || x.addr.affine().is_some_and(|f| f.syms().any(what))
                })
            };
            let arg = |s: Sym| matches!(s, Sym::Arg(_));
            let opaque = |s: Sym| matches!(s, Sym::Value { .. });
            let group =
                |s: Sym| matches!(s, Sym::Special(SpecialSym::GroupId(_)) | Sym::GroupBase(_));
            if !affine(a) || !affine(b) {
                "unknown: an address not affine".to_string()
            } else if reads(a, &arg) || reads(b, &arg) {
                "unknown: a guard reads the argument n".to_string()
            } else if reads(a, &opaque) || reads(b, &opaque) {
                "unknown: a guard or address reads a value the walk does not follow".to_string()
            } else if a
                .zip(b)
                .is_some_and(|(a, b)| a.guards.iter().chain(&b.guards).any(|g| g.cond.is_none()))
            {
                "unknown: a guard's condition not followed".to_string()
            } else if reads(a, &group) || reads(b, &group) {
                "unknown: a guard or address reads the workgroup's id".to_string()
            } else if let Some(value) = a
                .filter(|x| pair.a == pair.b && x.kind == AccessKind::Store)
                .map(|x| x.value.affine())
            {
                match value {
                    Some(v) if v.is_uniform() => {
                        "unknown: one store's lanes, storing one value per wave the search cannot evaluate"
                            .to_string()
                    }
                    _ => "unknown: one store's lanes, its value not affine".to_string(),
                }
            } else if !pair.same_interval {
                "unknown: a barrier between the two in some runs only".to_string()
            } else {
                "unknown: other".to_string()
            }
        }
    };
    let back = [pair.a, pair.b]
        .iter()
        .any(|&i| built.backs.contains(&(i as usize)));
    if back {
        format!("{why} (a store-back)")
    } else {
        why
    }
}

/// The model runs the witness's two work-items: the first makes access `a`,
/// the second `b`, at one word, with no order between them.
fn witness_is_real(
    stmts: &[Stmt],
    built: &Built,
    a: usize,
    b: usize,
    w: &simt_core::facts::Witness,
    shape: [u32; 3],
) -> Result<(), String> {
    let [p, q] = &w.items;
    let (wp, wq) = (Who::of(p, shape, w.width), Who::of(q, shape, w.width));
    let tp = model(stmts, &wp, &built.accesses);
    let tq = model(stmts, &wq, &built.accesses);
    let found = tp.iter().filter(|t| t.inst == a).any(|x| {
        tq.iter().filter(|t| t.inst == b).any(|y| {
            let same_group = wp.group == wq.group;
            let one_wave = same_group && wp.linear / w.width == wq.linear / w.width;
            let unordered = if !same_group {
                true
            } else if x.epoch != y.epoch || wp.linear == wq.linear {
                false
            } else if !one_wave {
                true
            } else {
                // Lanes of one wave in lockstep: only one store disagreeing.
                a == b && x.value != y.value
            };
            let meet = x.bytes.0 < y.bytes.0 + y.bytes.1 && y.bytes.0 < x.bytes.0 + x.bytes.1;
            x.mem == y.mem && meet && unordered
        })
    });
    if found {
        Ok(())
    } else {
        Err(format!(
            "witness {w:?} is not a race: the model has {:?} and {:?}",
            tp.iter().filter(|t| t.inst == a).collect::<Vec<_>>(),
            tq.iter().filter(|t| t.inst == b).collect::<Vec<_>>()
        ))
    }
}

/// Whether two work-items of the launch run instructions `a` and `b` on a
/// common byte, in any order: by the model, byte by byte.
fn ever_meet(
    stmts: &[Stmt],
    built: &Built,
    (a, b): (u32, u32),
    shape: [u32; 3],
    grid: u32,
    width: u32,
) -> bool {
    let mut touched: std::collections::HashMap<(bool, i64), Vec<u32>> = Default::default();
    let mut others = Vec::new();
    let mut id = 0;
    for group in 0..grid {
        for y in 0..shape[1] {
            for x in 0..shape[0] {
                let item = WorkItem {
                    group: [group, 0, 0],
                    local: [x, y, 0],
                };
                let who = Who::of(&item, shape, width);
                for t in model(stmts, &who, &built.accesses) {
                    let global = t.mem == Mem::Global;
                    for byte in t.bytes.0..t.bytes.0 + t.bytes.1 {
                        if t.inst == a as usize {
                            touched.entry((global, byte)).or_default().push(id);
                        }
                        if t.inst == b as usize {
                            others.push((global, byte, id));
                        }
                    }
                }
                id += 1;
            }
        }
    }
    others.iter().any(|(global, byte, id)| {
        touched
            .get(&(*global, *byte))
            .is_some_and(|items| items.iter().any(|i| i != id))
    })
}

/// In a hundred plain loads and stores, how many move one byte.
const BYTES: u64 = 15;

/// In a hundred kernels, how many start with a store-back.
const STORE_BACK_FIRST: u64 = 25;

fn generate(rng: &mut Rng) -> Vec<Stmt> {
    let mut g = Gen {
        rng,
        loops: 0,
        ifs: 0,
        budget: 12,
    };
    let n = 2 + g.rng.below(5) as usize;
    // A store-back first: of a word nothing wrote before.
    let mut stmts = Vec::new();
    if g.rng.chance(STORE_BACK_FIRST) {
        stmts.extend(g.store_back());
    }
    stmts.extend(g.block(n));
    stmts
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const DEFAULT_KERNELS: u64 = 5_000;
const DEFAULT_SEED: u64 = 1;
/// The refused pairs every launch found free, at the default kernels and
/// seed: 8,354 (13.2% of the 63,201 pairs, in 2,165 kernels) since
/// addresses that keep one residue modulo a power of two apart are proved
/// free and byte accesses are generated (8,737 of 62,582 before). It may
/// fall, not grow. Other seeds and counts print theirs unchecked.
const STRICT_BOUND: u64 = 8_354;
/// The share of pairs proved free at the default kernels and seed (59.7%;
/// 58.7% before store-backs were generated, 59.0% with them, before the
/// residue proof): it may not fall.
const FREE_FLOOR: f64 = 0.596;

#[test]
fn race_verdicts_are_sound_over_generated_kernels() {
    let kernels = env("SIMT_SOUNDNESS_KERNELS", DEFAULT_KERNELS);
    let seed = env("SIMT_SOUNDNESS_SEED", DEFAULT_SEED);
    let mut tally = Tally::default();
    for k in 0..kernels {
        let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(k));
        let stmts = generate(&mut rng);
        let shape = rng.pick(&SHAPES);
        let grid = 1 + rng.below(3) as u32;
        let width = rng.pick(&[32u32, 64]);
        if let Err(e) = check(&stmts, shape, grid, width, &mut tally) {
            let text = build(&stmts, shape).kernel.program().display().to_string();
            panic!(
                "kernel {k} (seed {seed}), {}x{} x{grid} at wave{width}: {e}\n{text}",
                shape[0], shape[1]
            );
        }
    }
    let share = |n: u64| n as f64 / tally.pairs.max(1) as f64;
    println!(
        "{} kernels; for the launch's shape, {} pairs: {:.1}% proved free, {:.1}% proved racing; for any shape, {} pairs: {:.1}% proved free; {} free verdicts checked against a launch, {} witnesses run, {} cost facts compared",
        tally.kernels,
        tally.pairs,
        100.0 * share(tally.free),
        100.0 * share(tally.race),
        tally.any_pairs,
        100.0 * tally.any_free as f64 / tally.any_pairs.max(1) as f64,
        tally.free_checked,
        tally.races_checked,
        tally.facts_compared
    );
    let strict: u64 = tally.strict.values().sum();
    println!(
        "{} kernels with a store-back; too strict: {strict} pairs in {} kernels, {:.2}% of the pairs, {:.1}% of the {} refused; not counted: {} refused pairs both sanitizers found free in kernels whose output depends on the order, {} racing in this launch (the model runs the witness) that the sanitizer named with another instruction; {} proved free that the sanitizer's word-sized shadow named racing where no two work-items touch a common byte",
        tally.with_back,
        tally.strict_kernels,
        100.0 * share(strict),
        100.0 * strict as f64 / tally.refused.max(1) as f64,
        tally.refused,
        tally.strict_unchecked,
        tally.named_otherwise,
        tally.misnamed
    );
    let mut by_count: Vec<_> = tally.strict.iter().collect();
    by_count.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
    for (why, n) in by_count {
        println!("{n:>8}  {why}");
    }
    // A prover that decides nothing passes nothing.
    assert!(share(tally.free) >= 0.2, "too few pairs proved free");
    assert!(share(tally.race) >= 0.2, "too few pairs proved racing");
    if (kernels, seed) == (DEFAULT_KERNELS, DEFAULT_SEED) {
        assert!(
            strict <= STRICT_BOUND,
            "{strict} pairs refused too strictly, more than the {STRICT_BOUND} measured"
        );
        assert!(
            share(tally.free) >= FREE_FLOOR,
            "fewer pairs proved free than the {FREE_FLOOR} measured"
        );
    }
}
