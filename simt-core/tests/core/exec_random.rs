//! Random structured programs against a per-lane model.
//!
//! Every mask in these programs is computed per lane, so each lane's run can be
//! replayed on its own: `if` takes the branch its bit selects, a loop repeats while
//! its bit is set, `break` and `continue` leave per lane. The interpreter's outputs
//! must equal the model's for every lane, and its `active_lanes` total must equal
//! the number of vector instructions the model's lanes executed, summed.

use crate::exec_util;

use exec_util::*;
use simt_core::{Arg, BinOp, CmpOp, CmpType, ElemType, Inst, ProgramBuilder};

#[derive(Clone, Debug)]
enum Src {
    Reg(u16),
    Lane,
    Imm(u32),
}

#[derive(Clone, Debug)]
struct Cond {
    op: CmpOp,
    a: Src,
    b: Src,
}

#[derive(Clone, Debug)]
enum Node {
    Alu(BinOp, u16, Src, Src),
    If(Cond, Vec<Node>, Option<Vec<Node>>),
    Loop(Vec<Node>),
    Break(Cond),
    Continue(Cond),
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as u32
    }
}

const DATA: u16 = 4; // v0..v3 hold data
const BOUND: u16 = 8; // v8: per-lane trip bound
const COUNTER: u16 = 10; // v10 + depth: loop counters

fn src(r: &mut Lcg) -> Src {
    match r.next(4) {
        0 => Src::Lane,
        1 => Src::Imm(r.next(40)),
        _ => Src::Reg(r.next(DATA as u32) as u16),
    }
}

fn cond(r: &mut Lcg) -> Cond {
    let op = [CmpOp::Lt, CmpOp::Gt, CmpOp::Eq, CmpOp::Ne, CmpOp::Le][r.next(5) as usize];
    // Keep conditions varied: compare small values of registers and lanes.
    Cond {
        op,
        a: src(r),
        b: Src::Imm(r.next(24)),
    }
}

fn block(r: &mut Lcg, depth: u32, in_loop: bool) -> Vec<Node> {
    let n = 1 + r.next(4);
    let mut nodes = Vec::new();
    for _ in 0..n {
        let pick = if depth >= 3 { 0 } else { r.next(10) };
        nodes.push(match pick {
            0..=4 => {
                let op = [
                    BinOp::AddU32,
                    BinOp::Xor,
                    BinOp::MulU32,
                    BinOp::SubU32,
                    BinOp::RemU32,
                ][r.next(5) as usize];
                Node::Alu(op, r.next(DATA as u32) as u16, src(r), src(r))
            }
            5 | 6 => {
                let then = block(r, depth + 1, in_loop);
                let other = (r.next(2) == 0).then(|| block(r, depth + 1, in_loop));
                Node::If(cond(r), then, other)
            }
            7 => Node::Loop(block(r, depth + 1, true)),
            8 if in_loop => Node::Break(cond(r)),
            9 if in_loop => Node::Continue(cond(r)),
            _ => Node::Alu(
                BinOp::AddU32,
                r.next(DATA as u32) as u16,
                src(r),
                Src::Imm(1),
            ),
        });
    }
    nodes
}

fn operand(s: &Src) -> simt_core::Operand {
    match *s {
        Src::Reg(r) => v(r),
        Src::Lane => lane(),
        Src::Imm(x) => imm(x),
    }
}

/// Lowers `nodes` at nesting `depth`; masks: m(depth) for ifs, m(8 + depth) for
/// break/continue, m(16 + loop depth) for loop conditions.
fn lower(nodes: &[Node], depth: u16, loops: u16, out: &mut Vec<Inst>) {
    for node in nodes {
        match node {
            Node::Alu(op, d, a, b) => out.push(bin(*op, *d, operand(a), operand(b))),
            Node::If(c, then, other) => {
                out.push(cmp(c.op, CmpType::U32, depth, operand(&c.a), operand(&c.b)));
                out.push(if_(depth));
                lower(then, depth + 1, loops, out);
                if let Some(other) = other {
                    out.push(else_());
                    lower(other, depth + 1, loops, out);
                }
                out.push(endif());
            }
            Node::Loop(body) => {
                let counter = COUNTER + loops;
                out.push(mov(counter, imm(0)));
                out.push(loop_());
                out.push(add(counter, v(counter), imm(1)));
                out.push(lt(16 + loops, v(counter), v(BOUND)));
                lower(body, depth + 1, loops + 1, out);
                out.push(endloop(16 + loops));
            }
            Node::Break(c) | Node::Continue(c) => {
                out.push(cmp(
                    c.op,
                    CmpType::U32,
                    8 + depth,
                    operand(&c.a),
                    operand(&c.b),
                ));
                out.push(if matches!(node, Node::Break(_)) {
                    break_(8 + depth)
                } else {
                    continue_(8 + depth)
                });
            }
        }
    }
}

/// One lane's state in the model.
struct LaneState {
    lane: u32,
    regs: [u32; 32],
    loop_bits: [bool; 8],
    vector: u64,
}

enum Flow {
    Normal,
    Break,
    Continue,
}

fn value(s: &Src, st: &LaneState) -> u32 {
    match *s {
        Src::Reg(r) => st.regs[r as usize],
        Src::Lane => st.lane,
        Src::Imm(x) => x,
    }
}

fn test(c: &Cond, st: &mut LaneState) -> bool {
    st.vector += 1;
    let (a, b) = (value(&c.a, st), value(&c.b, st));
    match c.op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

fn model(nodes: &[Node], loops: usize, st: &mut LaneState) -> Flow {
    for node in nodes {
        match node {
            Node::Alu(op, d, a, b) => {
                st.vector += 1;
                let (x, y) = (value(a, st), value(b, st));
                st.regs[*d as usize] = match op {
                    BinOp::AddU32 => x.wrapping_add(y),
                    BinOp::Xor => x ^ y,
                    BinOp::MulU32 => x.wrapping_mul(y),
                    BinOp::SubU32 => x.wrapping_sub(y),
                    BinOp::RemU32 => x.checked_rem(y).unwrap_or(x),
                    _ => unreachable!(),
                };
            }
            Node::If(c, then, other) => {
                let flow = if test(c, st) {
                    model(then, loops, st)
                } else if let Some(other) = other {
                    model(other, loops, st)
                } else {
                    Flow::Normal
                };
                if !matches!(flow, Flow::Normal) {
                    return flow;
                }
            }
            Node::Loop(body) => {
                let counter = COUNTER as usize + loops;
                st.vector += 1;
                st.regs[counter] = 0;
                loop {
                    st.vector += 2;
                    st.regs[counter] += 1;
                    st.loop_bits[loops] = st.regs[counter] < st.regs[BOUND as usize];
                    if let Flow::Break = model(body, loops + 1, st) {
                        break;
                    }
                    if !st.loop_bits[loops] {
                        break;
                    }
                }
            }
            Node::Break(c) => {
                if test(c, st) {
                    return Flow::Break;
                }
            }
            Node::Continue(c) => {
                if test(c, st) {
                    return Flow::Continue;
                }
            }
        }
    }
    Flow::Normal
}

#[test]
fn random_structured_programs_match_a_per_lane_model() {
    let mut r = Lcg(7);
    for case in 0..300 {
        let nodes = block(&mut r, 0, false);
        let mut p = ProgramBuilder::new("random");
        let out = p.buffer_mut::<u32>("out");
        let mut insts = vec![
            // v0..v3 = lane * k + k; v8 = lane % 4 + 1.
            bin(BinOp::MulU32, 0, lane(), imm(3)),
            add(1, lane(), imm(5)),
            bin(BinOp::Xor, 2, lane(), imm(9)),
            mov(3, imm(2)),
            bin(BinOp::RemU32, BOUND, lane(), imm(4)),
            add(BOUND, v(BOUND), imm(1)),
        ];
        lower(&nodes, 0, 0, &mut insts);
        insts.push(bin(BinOp::MulU32, 9, gid(), imm(4)));
        for k in 0..4 {
            insts.push(store(ElemType::U32, gref(out, v(9)), v(k)));
            insts.push(add(9, v(9), imm(1)));
        }
        p.extend(insts);
        let program = p
            .build()
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{nodes:?}"));
        for (width, size) in [(32u32, 64u32), (64, 64), (32, 48), (64, 100)] {
            let mut got = vec![0u32; 4 * size as usize];
            let stats = run(
                &program,
                &cfg(1, size, width),
                &mut [Arg::buffer_mut(&mut got)],
            );
            let mut active_lanes = 0;
            for item in 0..size {
                let lane = item % width;
                let mut st = LaneState {
                    lane,
                    regs: [0; 32],
                    loop_bits: [false; 8],
                    vector: 0,
                };
                st.regs[0] = lane * 3;
                st.regs[1] = lane + 5;
                st.regs[2] = lane ^ 9;
                st.regs[3] = 2;
                st.regs[BOUND as usize] = lane % 4 + 1;
                st.vector += 6;
                model(&nodes, 0, &mut st);
                st.vector += 9;
                active_lanes += st.vector;
                let base = 4 * item as usize;
                assert_eq!(
                    &got[base..base + 4],
                    &st.regs[..4],
                    "case {case} wave{width} size {size} item {item}\n{nodes:?}"
                );
            }
            assert_eq!(
                stats.totals.active_lanes, active_lanes,
                "case {case} wave{width} size {size}\n{nodes:?}"
            );
            let mut sum = simt_core::Counters::default();
            for c in &stats.per_instruction {
                sum.add(c);
            }
            assert_eq!(sum, stats.totals);
        }
    }
}
