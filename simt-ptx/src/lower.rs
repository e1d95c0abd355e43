//! One kernel (`.entry`) to a validated simt kernel: parameters planned,
//! shared variables laid out, registers classified, each block's
//! instructions selected, control flow structured, registers allocated, and
//! the program checked by the same validator as every simt kernel (its
//! errors placed back on the PTX line they come from).

use crate::ast::{Entry, Inst, Module, Operand as Arg, Space, Stmt};
use crate::cfg::{self, Term};
use crate::diagnostic::{Pos, PtxError};
use crate::structure::Structurer;
use crate::values::{self, Class, Prov, Values};
use crate::Options;
use simt_lang::{
    ElemType, Inst as S, Kernel, LdsDecl, MReg, Param, ParamIdx, ParamKind, Program, ScalarType,
    SourceLoc, VReg,
};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// One lowered instruction: what it is, the PTX it came from, and the
/// source place listings show (the CUDA line under `-lineinfo`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Code {
    pub inst: S,
    pub at: Pos,
    pub loc: SourceLoc,
}

/// Where a PTX register lives, in virtual registers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Loc {
    /// A 32-bit value (or a pointer's offset, or an address's low word).
    V(VReg),
    /// A 64-bit value: two consecutive registers, low word first.
    Pair(VReg),
    /// A predicate.
    M(MReg),
}

/// What a PTX parameter became.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ParamPlan {
    /// A buffer: the simt parameter.
    Buffer(ParamIdx),
    /// A 32-bit (or narrower) scalar.
    Word(ParamIdx),
    /// A 64-bit scalar: its low and high words, two `u32` parameters
    /// (`name` and `name.hi`).
    Pair(ParamIdx, ParamIdx),
}

/// A kernel being lowered.
pub(crate) struct Kern<'a> {
    pub entry: &'a Entry,
    pub values: Values,
    /// Shared variables' byte offsets in the LDS window.
    pub shared: HashMap<String, u32>,
    /// Local variables' byte offsets in each work-item's local memory.
    pub locals: HashMap<String, u32>,
    /// Where local memory lives, when the kernel has any.
    pub scratch: Option<crate::local::Scratch>,
    pub params: Vec<ParamPlan>,
    regs: HashMap<String, Loc>,
    pub next_v: u16,
    pub next_m: u16,
    pub next_s: u16,
    /// Whether more virtual registers were asked for than 16 bits number
    /// (then some share a number, and the kernel is refused).
    pub exhausted: bool,
    /// Source places by PTX position, in order.
    locs: BTreeMap<Pos, SourceLoc>,
    /// Registers that only ever hold one constant (written once, by a
    /// `mov` of an immediate): their reads read the immediate and their
    /// `mov` is dropped, as ptxas folds them into the instructions that
    /// read them.
    pub consts: HashMap<String, u32>,
    /// `neg.f32` results read once, by an instruction that takes the
    /// negation in (an FMA's addend, an add's term): the register each
    /// negates. ptxas folds such a `neg` into its reader (FFMA's negated
    /// operand); lowering does too, so that the instruction counts and the
    /// dependent chains are the GPU's.
    pub negs: HashMap<String, String>,
    /// Set while an `f32` instruction with `.ftz` is lowered: its operands
    /// are read flushed (a subnormal as the zero of its sign).
    pub ftz: bool,
}

/// A lowered kernel and the PTX position of each of its instructions.
pub(crate) struct Lowered {
    pub kernel: Kernel,
    pub cuda_file: Option<String>,
    /// The 64-bit scalars that are `.f64` (see `PtxKernel::doubles`).
    pub doubles: Vec<String>,
}

impl<'a> Kern<'a> {
    pub(crate) fn loc_of(&self, at: Pos) -> SourceLoc {
        // Code the structurer adds (a branch's mask, an `else`) is placed
        // at a token of a PTX instruction rather than at its start: it
        // takes the line of the instruction it stands for or follows.
        let placed = self.locs.range(..=at).next_back();
        placed
            .or_else(|| self.locs.iter().next())
            .map(|(_, loc)| *loc)
            .unwrap_or(SourceLoc {
                line: at.line,
                column: at.column,
            })
    }

    pub(crate) fn loc(&self, name: &str, at: Pos) -> Result<Loc, PtxError> {
        self.regs.get(name).copied().ok_or_else(|| {
            PtxError::new(
                at,
                name.len() as u32 + 1,
                format!("`%{name}` is not a declared register"),
            )
        })
    }

    /// Where every PTX register lives.
    pub(crate) fn locs_iter(&self) -> impl Iterator<Item = Loc> + '_ {
        self.regs.values().copied()
    }

    /// The simt parameter of PTX parameter `k`, a buffer.
    pub(crate) fn buffer_param(&self, k: usize) -> ParamIdx {
        match self.params[k] {
            ParamPlan::Buffer(p) | ParamPlan::Word(p) | ParamPlan::Pair(p, _) => p,
        }
    }

    pub(crate) fn new_v(&mut self, n: u16) -> VReg {
        let v = VReg(self.next_v);
        self.exhausted |= self.next_v.checked_add(n).is_none();
        self.next_v = self.next_v.saturating_add(n);
        v
    }

    pub(crate) fn new_m(&mut self) -> MReg {
        let m = MReg(self.next_m);
        self.exhausted |= self.next_m == u16::MAX;
        self.next_m = self.next_m.saturating_add(1);
        m
    }
}

/// Lays out the shared variables `entry` uses: its own, and the module's
/// that it names; those sized at launch (`extern .shared x[]`) last, with
/// `dynamic` bytes.
fn shared_layout(
    module: &Module,
    entry: &Entry,
    insts: &[&Inst],
    dynamic: u32,
) -> (HashMap<String, u32>, u32) {
    let mut named = std::collections::HashSet::new();
    for i in insts {
        for a in &i.args {
            let mut stack = vec![a];
            while let Some(a) = stack.pop() {
                match a {
                    Arg::Sym(s, _) => {
                        named.insert(s.as_str());
                    }
                    Arg::Addr { base, .. } => stack.push(base),
                    _ => {}
                }
            }
        }
    }
    let vars = entry
        .vars
        .iter()
        .chain(
            module
                .vars
                .iter()
                .filter(|v| named.contains(v.name.as_str())),
        )
        .filter(|v| v.space == Space::Shared);
    let (mut sized, at_launch): (Vec<_>, Vec<_>) = vars.partition(|v| v.count.is_some());
    sized.extend(at_launch);
    let mut offsets = HashMap::new();
    let mut end = 0u32;
    for v in sized {
        let align = v.align.max(1);
        let at = end.div_ceil(align).saturating_mul(align);
        let bytes = match v.count {
            Some(n) => n.saturating_mul(v.elem_size),
            None => dynamic,
        };
        offsets.insert(v.name.clone(), at);
        end = at.saturating_add(bytes);
    }
    (offsets, end)
}

/// The element type a buffer's accesses move, from its first access.
fn buffer_elem(insts: &[&Inst], values: &Values, k: usize) -> (ElemType, bool) {
    let mut elem = None;
    let mut writable = false;
    for i in insts.iter().filter(|i| values::is_memory(i)) {
        let through = i.args.iter().any(|a| {
            values::addr_reg(a).is_some_and(|r| values.prov.get(r) == Some(&Prov::Param(k)))
        });
        if !through {
            continue;
        }
        if matches!(i.op.as_str(), "st" | "atom" | "red") {
            writable = true;
        }
        if elem.is_none() {
            let t = values::types(i).last().copied().unwrap_or("u32");
            elem = Some(match t {
                "f32" => ElemType::F32,
                "s32" => ElemType::I32,
                "u8" | "b8" => ElemType::U8,
                "s8" => ElemType::I8,
                "u16" | "b16" => ElemType::U16,
                "s16" => ElemType::I16,
                "f16" => ElemType::F16,
                "bf16" => ElemType::BF16,
                "f64" => ElemType::F64,
                "s64" => ElemType::I64,
                "u64" | "b64" => ElemType::U64,
                _ => ElemType::U32,
            });
        }
    }
    (elem.unwrap_or(ElemType::U32), writable)
}

/// The 32-bit registers every write of which is an unguarded `mov` of one
/// immediate (once, or in copies of one instruction from unrolling), and
/// their values.
fn constants(insts: &[&Inst], values: &Values) -> HashMap<String, u32> {
    let mut defs: HashMap<&str, u32> = HashMap::new();
    let mut movs: HashMap<String, u32> = HashMap::new();
    let mut consts: HashMap<String, u32> = HashMap::new();
    let mut set = |name: &String, value: u32| {
        // Copies of one `mov` (unrolled loops) set the same constant.
        if *consts.entry(name.clone()).or_insert(value) == value {
            *movs.entry(name.clone()).or_default() += 1;
        }
    };
    for i in insts {
        for r in values::written(i) {
            *defs.entry(r).or_default() += 1;
        }
        if i.op != "mov" || i.guard.is_some() {
            continue;
        }
        let ty = values::types(i);
        let (Some(Arg::Reg { name, .. }), Some(src)) = (i.args.first(), i.args.get(1)) else {
            continue;
        };
        if values.class.get(name) != Some(&Class::Word)
            || !matches!(ty.last(), Some(&"b32" | &"u32" | &"s32" | &"f32"))
        {
            continue;
        }
        match src {
            Arg::Int(n, _) => set(name, *n as u32),
            Arg::F32(b, _) => set(name, *b),
            _ => {}
        }
    }
    consts.retain(|name, _| defs.get(name.as_str()) == movs.get(name));
    consts
}

/// The `neg.f32 t, x` whose `t` is read once after each definition, later in the same block, where
/// its reader can take `x` instead (see [`Kern::negs`]), with nothing
/// writing `x` between the two.
fn foldable_negs(
    cfg: &cfg::Cfg,
    insts: &[&Inst],
    consts: &HashMap<String, u32>,
) -> HashMap<String, String> {
    let mut reads: HashMap<&str, u32> = HashMap::new();
    let mut defs: HashMap<&str, u32> = HashMap::new();
    for i in insts {
        for r in values::written(i) {
            *defs.entry(r).or_default() += 1;
        }
        if let Some((_, p, _)) = &i.guard {
            *reads.entry(p.as_str()).or_default() += 1;
        }
        let writes = values::writes_first(i);
        for (n, a) in i.args.iter().enumerate() {
            let mut stack = vec![a];
            while let Some(a) = stack.pop() {
                match a {
                    Arg::Reg { name, .. } if !(n == 0 && writes) => {
                        *reads.entry(name.as_str()).or_default() += 1;
                    }
                    Arg::Addr { base, .. } => stack.push(base),
                    Arg::Vector(items, _) => stack.extend(items.iter()),
                    Arg::Pair(a, b) => stack.extend([&**a, &**b]),
                    _ => {}
                }
            }
        }
    }
    for block in &cfg.blocks {
        if let Some(t) = block.term.pred() {
            *reads.entry(t).or_default() += 1;
        }
    }
    fn reg(a: Option<&Arg>) -> Option<&str> {
        match a {
            Some(Arg::Reg {
                name, not: false, ..
            }) => Some(name.as_str()),
            _ => None,
        }
    }
    let immediate = |a: Option<&Arg>| match a {
        Some(Arg::F32(..)) => true,
        Some(Arg::Reg { name, .. }) => consts.contains_key(name),
        _ => false,
    };
    // Each `t` with every definition a foldable `neg t, x` of one `x`
    // (copies of one, in unrolled loops), each read once.
    let mut found: HashMap<&str, (&str, u32)> = HashMap::new();
    for block in &cfg.blocks {
        for (k, &n) in block.insts.iter().enumerate() {
            let neg = insts[n];
            let (Some(t), Some(x)) = (reg(neg.args.first()), reg(neg.args.get(1))) else {
                continue;
            };
            if neg.op != "neg"
                || neg.guard.is_some()
                || neg.has("ftz")
                || values::types(neg).last() != Some(&"f32")
                || defs.get(t) != reads.get(t)
            {
                continue;
            }
            // The reader, later in the block, with `x` unwritten on the way.
            for &m in &block.insts[k + 1..] {
                let user = insts[m];
                let at = |i: usize| reg(user.args.get(i)) == Some(t);
                let f32 = values::types(user).last() == Some(&"f32");
                let nearest = !user.has("rz") && !user.has("rm") && !user.has("rp");
                let takes = f32
                    && nearest
                    && match user.op.as_str() {
                        "fma" | "mad" => {
                            at(3)
                                || (at(1) && immediate(user.args.get(2)))
                                || (at(2) && immediate(user.args.get(1)))
                        }
                        "add" => at(1) || at(2),
                        "sub" => at(2),
                        _ => false,
                    };
                if takes {
                    let (to, n) = found.entry(t).or_insert((x, 0));
                    *n += u32::from(*to == x);
                    break;
                }
                if values::written(user).contains(&x)
                    || values::written(user).contains(&t)
                    || user.args.iter().skip(1).any(|a| reg(Some(a)) == Some(t))
                {
                    break;
                }
            }
        }
    }
    found
        .into_iter()
        .filter(|(t, (_, n))| defs.get(t) == Some(n) && reads.get(t) == Some(n))
        .map(|(t, (x, _))| (t.to_owned(), x.to_owned()))
        .collect()
}

/// The simt parameters of `entry`'s PTX parameters (a buffer where one is
/// addressed, a pair of words for 8 bytes), and the scratch buffer for its
/// `local_bytes` of local memory.
struct Params {
    list: Vec<Param>,
    plans: Vec<ParamPlan>,
    /// The `f64` parameters, passed as pairs of words.
    doubles: Vec<String>,
    scratch: Option<ParamIdx>,
    scratch_words: u32,
}

/// Plans `entry`'s parameters (see [`Params`]); a parameter that cannot be
/// passed is an error in `errors`.
fn parameters(
    entry: &Entry,
    insts: &[&Inst],
    values: &Values,
    local_bytes: u32,
    errors: &mut Vec<PtxError>,
) -> Params {
    let mut simt_params: Vec<Param> = Vec::new();
    let mut plans = Vec::new();
    let mut doubles = Vec::new();
    let mut add = |name: String, kind: ParamKind| -> ParamIdx {
        simt_params.push(Param {
            name: Cow::Owned(name),
            kind,
        });
        ParamIdx((simt_params.len() - 1) as u16)
    };
    for (k, p) in entry.params.iter().enumerate() {
        if p.array.is_some() {
            errors.push(
                PtxError::new(
                    p.at,
                    p.name.len() as u32,
                    format!(
                        "`{}` is passed by value as bytes (a struct or array): not supported",
                        p.name
                    ),
                )
                .help("pass its fields as separate parameters, or a pointer to it"),
            );
            plans.push(ParamPlan::Word(ParamIdx(0)));
            continue;
        }
        let size = crate::parse::type_size(&p.ty).unwrap_or(4);
        let plan = if values.buffers.get(k).copied().unwrap_or(false) {
            let (elem, writable) = buffer_elem(insts, values, k);
            ParamPlan::Buffer(add(p.name.clone(), ParamKind::Buffer { elem, writable }))
        } else if size == 8 {
            if p.ty == "f64" {
                doubles.push(p.name.clone());
            }
            let lo = add(p.name.clone(), ParamKind::Scalar(ScalarType::U32));
            let hi = add(format!("{}.hi", p.name), ParamKind::Scalar(ScalarType::U32));
            ParamPlan::Pair(lo, hi)
        } else {
            let ty = match p.ty.as_str() {
                "f32" => ScalarType::F32,
                "s32" | "s16" | "s8" => ScalarType::I32,
                _ => ScalarType::U32,
            };
            ParamPlan::Word(add(p.name.clone(), ParamKind::Scalar(ty)))
        };
        plans.push(plan);
    }
    // Local memory: a scratch buffer after the parameters, which the launch
    // allocates.
    let scratch_words = local_bytes.div_ceil(4);
    let taken: Vec<&str> = entry.params.iter().map(|p| p.name.as_str()).collect();
    let scratch = (scratch_words > 0).then(|| {
        let name = ["local", "__local"]
            .into_iter()
            .find(|n| !taken.contains(n))
            .map_or_else(|| format!("__local{}", taken.len()), str::to_owned);
        add(
            name,
            ParamKind::Buffer {
                elem: ElemType::U32,
                writable: true,
            },
        )
    });

    Params {
        list: simt_params,
        plans,
        doubles,
        scratch,
        scratch_words,
    }
}

/// The CUDA file `insts` came from (under `-lineinfo`) and each
/// instruction's line in it.
fn source_places(module: &Module, insts: &[&Inst]) -> (Option<String>, BTreeMap<Pos, SourceLoc>) {
    let cuda_file = insts
        .iter()
        .find_map(|i| i.loc)
        .and_then(|(f, _, _)| module.files.get(&f).cloned());
    let mut locs = BTreeMap::new();
    if cuda_file.is_some() {
        // Lines of other files (headers inlined into the kernel) keep the
        // kernel file's line before them.
        let main = insts.iter().find_map(|i| i.loc).map(|l| l.0);
        let mut last = insts.iter().find_map(|i| i.loc);
        for i in insts {
            if i.loc.is_some_and(|l| Some(l.0) == main) {
                last = i.loc;
            }
            if let Some((_, line, column)) = last {
                locs.insert(
                    i.at,
                    SourceLoc {
                        line,
                        column: column.max(1),
                    },
                );
            }
        }
    }

    (cuda_file, locs)
}

/// Each block's simt code, selected from its PTX instructions, and the
/// predicate each conditional branch reads; what cannot be selected is an
/// error in `errors`.
fn select_blocks(
    k: &mut Kern<'_>,
    cfg: &cfg::Cfg,
    insts: &[&Inst],
    errors: &mut Vec<PtxError>,
) -> (Vec<Vec<Code>>, HashMap<usize, MReg>) {
    let mut blocks: Vec<Vec<Code>> = Vec::with_capacity(cfg.blocks.len());
    let mut preds = HashMap::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        let mut code = Vec::new();
        if cfg.order[b] != usize::MAX {
            // A `membar` or `fence` lowers to nothing, but nothing moves
            // across it: the block is scheduled in the stretches between.
            let mut stretch = Vec::new();
            for &i in &block.insts {
                if matches!(insts[i].op.as_str(), "membar" | "fence") {
                    crate::schedule::schedule(&mut stretch);
                    code.append(&mut stretch);
                }
                if let Err(e) = k.select(insts[i], &mut stretch) {
                    errors.push(e);
                }
            }
            crate::schedule::schedule(&mut stretch);
            code.append(&mut stretch);
            if let Term::Branch { pred, at, .. } = &block.term {
                match k.loc(pred, *at) {
                    Ok(Loc::M(m)) => {
                        preds.insert(b, m);
                    }
                    Ok(_) => errors.push(PtxError::new(
                        *at,
                        pred.len() as u32 + 1,
                        format!("`%{pred}` is not a predicate"),
                    )),
                    Err(e) => errors.push(e),
                }
            }
        }
        blocks.push(code);
    }
    (blocks, preds)
}

/// Whether each predicate register is written once in the whole kernel.
fn single_defs(blocks: &[Vec<Code>]) -> HashMap<MReg, bool> {
    let mut defs: HashMap<MReg, u32> = HashMap::new();
    for code in blocks {
        for c in code {
            for r in c.inst.fields().written() {
                if let simt_lang::Reg::M(m) = r {
                    *defs.entry(m).or_default() += 1;
                }
            }
        }
    }
    defs.into_iter().map(|(m, n)| (m, n == 1)).collect()
}

impl Kern<'_> {
    /// A virtual register (or pair, or mask) for each PTX register, in the
    /// order of their names.
    fn registers(&mut self) -> HashMap<String, Loc> {
        let mut names: Vec<(String, Class)> = self
            .values
            .class
            .iter()
            .map(|(n, c)| (n.clone(), *c))
            .collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let mut regs = HashMap::new();
        for (name, class) in names {
            let loc = match class {
                Class::Pred => Loc::M(self.new_m()),
                Class::Word => Loc::V(self.new_v(1)),
                Class::Wide if self.values.is_pair(&name) => Loc::Pair(self.new_v(2)),
                Class::Wide => Loc::V(self.new_v(1)),
            };
            regs.insert(name, loc);
        }
        regs
    }
}

/// Lowers `entry` of `module`.
pub(crate) fn lower(
    module: &Module,
    entry: &Entry,
    name: &str,
    options: &Options,
    ptx_file: &str,
) -> Result<Lowered, Vec<PtxError>> {
    let insts: Vec<&Inst> = entry
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Inst(i) => Some(i),
            Stmt::Label { .. } => None,
        })
        .collect();
    let (shared, lds_bytes) = shared_layout(module, entry, &insts, options.dynamic_shared_bytes);
    let (locals, local_bytes) = crate::local::layout(entry)?;
    let values = values::analyse(entry, &insts, &shared, &locals)?;
    let cfg = cfg::build(&entry.body, &insts, entry.at)?;
    let mut errors = Vec::new();

    let Params {
        list: simt_params,
        plans,
        doubles,
        scratch: scratch_param,
        scratch_words,
    } = parameters(entry, &insts, &values, local_bytes, &mut errors);

    let (cuda_file, locs) = source_places(module, &insts);

    let consts = constants(&insts, &values);
    let negs = foldable_negs(&cfg, &insts, &consts);
    let mut k = Kern {
        entry,
        consts,
        negs,
        ftz: false,
        values,
        shared,
        locals,
        scratch: None,
        params: plans,
        regs: HashMap::new(),
        next_v: 0,
        next_m: 0,
        next_s: 0,
        exhausted: false,
        locs,
    };
    k.regs = k.registers();
    k.scratch = scratch_param.map(|param| crate::local::Scratch {
        param,
        base: k.new_v(1),
        words: scratch_words,
    });

    let (mut blocks, preds) = select_blocks(&mut k, &cfg, &insts, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    if let (Some(scratch), Some(first)) = (k.scratch, blocks.first_mut()) {
        let mut prologue = k.scratch_prologue(scratch, entry.at);
        prologue.append(first);
        *first = prologue;
    }
    let single_def = single_defs(&blocks);
    let structurer = Structurer {
        k: &mut k,
        cfg: &cfg,
        blocks,
        preds,
        loop_span: Vec::new(),
        single_def,
    };
    let (mut code, loop_span) = structurer.run(entry.at);
    if k.exhausted {
        return Err(vec![PtxError::new(
            entry.at,
            entry.name.len() as u32,
            "the kernel is too large to lower: it needs more than 65,535 virtual registers",
        )]);
    }
    let counts = crate::alloc::allocate(&mut code, &k, &cfg, &insts, &loop_span)
        .map_err(|m| vec![PtxError::new(entry.at, entry.name.len() as u32, m)])?;
    code.push(Code {
        inst: S::End,
        at: entry.at,
        loc: code.last().map_or(SourceLoc::default(), |c| c.loc),
    });
    // One LDS array of bytes holds every `.shared` variable.
    let lds = (!k.shared.is_empty()).then_some(LdsDecl {
        name: Cow::Borrowed("shared"),
        elem: ElemType::U8,
        len: lds_bytes,
        offset: 0,
    });
    let file = cuda_file.clone().unwrap_or_else(|| ptx_file.to_owned());
    let program = Program {
        name: Cow::Owned(name.to_owned()),
        file: Cow::Owned(file),
        params: Cow::Owned(simt_params),
        lds: Cow::Owned(lds.into_iter().collect()),
        insts: Cow::Owned(code.iter().map(|c| c.inst).collect()),
        locs: Cow::Owned(code.iter().map(|c| c.loc).collect()),
        vregs: counts.0,
        sregs: counts.1,
        mregs: counts.2,
        lds_bytes,
        reg_names: Cow::Owned(Vec::new()),
        workgroup_size: entry.reqntid,
        race_free: None,
        formats: Cow::Owned(Vec::new()),
        scratch_words,
    };
    Kernel::new(program)
        .map(|kernel| Lowered {
            kernel,
            cuda_file,
            doubles,
        })
        .map_err(|errs| {
            errs.errors
                .iter()
                .map(|e| {
                    let at = e
                        .inst
                        .and_then(|i| code.get(i as usize))
                        .map_or(entry.at, |c| c.at);
                    PtxError::new(at, 1, e.kind.to_string())
                })
                .collect()
        })
}
