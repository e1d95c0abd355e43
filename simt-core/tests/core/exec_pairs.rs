//! The 64-bit operations on register pairs, against values computed by hand:
//! carries across the words, wrapping, signed and unsigned orders, rounding
//! ties, a fused result the unfused sequence loses, saturation and NaN.
//! Each runs on the odd lanes only, at both widths: the even lanes keep their
//! registers.

use crate::exec_util;

use exec_util::*;
use simt_core::{
    Arg, Bin64Op, Cmp64Type, CmpOp, ElemType, GlobalRef, Inst, MReg, NarrowOp, Operand,
    ProgramBuilder, Tern64Op, Un64Op, VReg, WidenOp, Width,
};

/// Both words of the registers the operations write before they run.
const SENTINEL: u64 = 0xdead_beef_dead_beef;
const NAN: u64 = 0x7ff8_0000_0000_0000;

fn f(x: f64) -> u64 {
    x.to_bits()
}

fn wide(d: u16, src: GlobalRef) -> Inst {
    Inst::GlobalLoadWide {
        width: Width::X2,
        dst: VReg(d),
        src,
    }
}

/// Runs `body` on the odd lanes with the pairs `a` (v0, v1), `b` (v2, v3)
/// and `c` (v4, v5) of the cases, item `i` reading case `i / 2`; returns
/// the pair v6, v7 of every item and the bit of mask register `m1`.
fn odd_lanes(body: &[Inst], cases: &[[u64; 3]], width: u32) -> Vec<(u64, bool)> {
    let items = 128;
    let words = |k: usize| -> Vec<u32> {
        (0..items)
            .flat_map(|i| {
                let x = cases[(i / 2) % cases.len()][k];
                [x as u32, (x >> 32) as u32]
            })
            .collect()
    };
    let (a, b, c) = (words(0), words(1), words(2));
    let mut p = ProgramBuilder::new("odd_lanes");
    let ba = p.buffer::<u32>("a");
    let bb = p.buffer::<u32>("b");
    let bc = p.buffer::<u32>("c");
    let out = p.buffer_mut::<u32>("out");
    let bits = p.buffer_mut::<u32>("bits");
    p.extend([
        bin(simt_core::BinOp::Shl, 8, gid(), imm(1)),
        wide(0, gref(ba, v(8))),
        wide(2, gref(bb, v(8))),
        wide(4, gref(bc, v(8))),
        mov(6, imm(SENTINEL as u32)),
        mov(7, imm((SENTINEL >> 32) as u32)),
        eq(1, lane(), imm(1000)),
        bin(simt_core::BinOp::And, 9, lane(), imm(1)),
        eq(0, v(9), imm(1)),
        if_(0),
    ]);
    p.extend(body.iter().copied());
    p.extend([
        endif(),
        Inst::GlobalStoreWide {
            width: Width::X2,
            dst: gref(out, v(8)),
            src: VReg(6),
        },
        Inst::VSelect {
            dst: VReg(10),
            mask: MReg(1),
            on_true: imm(1),
            on_false: imm(0),
        },
        store(ElemType::U32, gref(bits, gid()), v(10)),
    ]);
    let program = p.build().expect("valid");
    let mut result = vec![0u32; 2 * items];
    let mut flags = vec![0u32; items];
    run(
        &program,
        &cfg(items as u32 / 64, 64, width),
        &mut [
            Arg::buffer(&a),
            Arg::buffer(&b),
            Arg::buffer(&c),
            Arg::buffer_mut(&mut result),
            Arg::buffer_mut(&mut flags),
        ],
    );
    (0..items)
        .map(|i| {
            let pair = u64::from(result[2 * i]) | (u64::from(result[2 * i + 1]) << 32);
            (pair, flags[i] == 1)
        })
        .collect()
}

/// Checks that each odd item of `got` is `want` of its case, and each even
/// one is untouched.
fn check<T: PartialEq + Clone + std::fmt::Debug>(
    what: &str,
    got: &[(u64, bool)],
    cases: usize,
    untouched: T,
    pick: impl Fn(&(u64, bool)) -> T,
    want: impl Fn(usize) -> T,
) {
    for (i, g) in got.iter().enumerate() {
        let want = if i % 2 == 1 {
            want((i / 2) % cases)
        } else {
            untouched.clone()
        };
        assert_eq!(pick(g), want, "{what}: item {i}");
    }
}

/// `op` on pairs: each case is `[a, b, c, want]`.
fn pairs_case(body: Inst, cases: &[[u64; 4]]) {
    let inputs: Vec<[u64; 3]> = cases.iter().map(|c| [c[0], c[1], c[2]]).collect();
    for width in [32, 64] {
        let got = odd_lanes(&[body], &inputs, width);
        let what = format!("{body:?} wave{width}");
        check(&what, &got, cases.len(), SENTINEL, |g| g.0, |k| cases[k][3]);
    }
}

fn binary(op: Bin64Op) -> Inst {
    Inst::VBinary64 {
        op,
        dst: VReg(6),
        a: VReg(0),
        b: VReg(2),
    }
}

fn unary(op: Un64Op) -> Inst {
    Inst::VUnary64 {
        op,
        dst: VReg(6),
        a: VReg(0),
    }
}

#[test]
fn integer_operations_carry_and_wrap_across_the_words() {
    let m1 = u64::MAX;
    pairs_case(
        binary(Bin64Op::AddU64),
        &[
            [0xffff_ffff, 1, 0, 0x1_0000_0000],
            [m1, 1, 0, 0],
            [m1, m1, 0, m1 - 1],
        ],
    );
    pairs_case(
        binary(Bin64Op::SubU64),
        &[[0, 1, 0, m1], [0x1_0000_0000, 1, 0, 0xffff_ffff]],
    );
    // (2^32 + 1)^2 = 2^64 + 2^33 + 1, wrapped.
    pairs_case(
        binary(Bin64Op::MulU64),
        &[
            [0x1_0000_0001, 0x1_0000_0001, 0, 0x2_0000_0001],
            [m1, m1, 0, 1],
        ],
    );
    pairs_case(binary(Bin64Op::MinU64), &[[m1, 1, 0, 1]]);
    pairs_case(binary(Bin64Op::MinI64), &[[m1, 1, 0, m1]]);
    pairs_case(binary(Bin64Op::MaxU64), &[[m1, 1, 0, m1]]);
    pairs_case(binary(Bin64Op::MaxI64), &[[m1, 1, 0, 1]]);
    pairs_case(
        binary(Bin64Op::Xor),
        &[[
            0xff00_0000_0000_00ff,
            0x0ff0_0000_0000_0ff0,
            0,
            0xf0f0_0000_0000_0f0f,
        ]],
    );
    pairs_case(
        unary(Un64Op::NegI64),
        &[[1, 0, 0, m1], [1 << 63, 0, 0, 1 << 63]],
    );
    // 2^32 * 3 + 5 = 0x3_0000_0005.
    pairs_case(
        Inst::VTernary64 {
            op: Tern64Op::MadU64,
            dst: VReg(6),
            a: VReg(0),
            b: VReg(2),
            c: VReg(4),
        },
        &[[0x1_0000_0000, 3, 5, 0x3_0000_0005], [m1, m1, m1, 0]],
    );
}

#[test]
fn f64_operations_round_once_and_give_one_nan() {
    pairs_case(
        binary(Bin64Op::AddF64),
        &[
            // 0.1 + 0.2 = 0.30000000000000004.
            [f(0.1), f(0.2), 0, 0x3fd3_3333_3333_3334],
            [f(f64::INFINITY), f(f64::NEG_INFINITY), 0, NAN],
        ],
    );
    pairs_case(
        binary(Bin64Op::DivF64),
        &[
            [f(1.0), f(0.0), 0, 0x7ff0_0000_0000_0000],
            [f(0.0), f(0.0), 0, NAN],
            [f(1.0), f(3.0), 0, 0x3fd5_5555_5555_5555],
        ],
    );
    pairs_case(
        binary(Bin64Op::MinF64),
        &[[NAN, f(2.0), 0, f(2.0)], [f(-1.0), f(2.0), 0, f(-1.0)]],
    );
    pairs_case(
        unary(Un64Op::SqrtF64),
        &[[f(2.0), 0, 0, 0x3ff6_a09e_667f_3bcd], [f(-1.0), 0, 0, NAN]],
    );
    pairs_case(unary(Un64Op::NegF64), &[[f(0.0), 0, 0, 1 << 63]]);
    // (1 + 2^-30)(1 - 2^-30) = 1 - 2^-60: rounded alone it is 1, so the
    // unfused sum is 0; fused, the sum is -2^-60.
    pairs_case(
        Inst::VTernary64 {
            op: Tern64Op::FmaF64,
            dst: VReg(6),
            a: VReg(0),
            b: VReg(2),
            c: VReg(4),
        },
        &[[
            0x3ff0_0000_0040_0000,
            0x3fef_ffff_ff80_0000,
            f(-1.0),
            0xbc30_0000_0000_0000,
        ]],
    );
}

#[test]
fn conversions_between_pairs_round_to_even_and_saturate() {
    pairs_case(
        unary(Un64Op::CvtF64U64),
        &[
            // 2^53 + 1 lies halfway between 2^53 and 2^53 + 2: to even.
            [(1 << 53) + 1, 0, 0, 0x4340_0000_0000_0000],
            [(1 << 53) + 3, 0, 0, 0x4340_0000_0000_0002],
            [u64::MAX, 0, 0, 0x43f0_0000_0000_0000],
        ],
    );
    pairs_case(unary(Un64Op::CvtF64I64), &[[u64::MAX, 0, 0, f(-1.0)]]);
    pairs_case(
        unary(Un64Op::CvtU64F64),
        &[
            [f(1e20), 0, 0, u64::MAX],
            [f(-1.0), 0, 0, 0],
            [NAN, 0, 0, 0],
            [f(4_294_967_296.75), 0, 0, 1 << 32],
        ],
    );
    pairs_case(
        unary(Un64Op::CvtI64F64),
        &[
            [f(-2.5), 0, 0, (-2i64) as u64],
            [f(-1e20), 0, 0, i64::MIN as u64],
        ],
    );
}

/// A conversion of the pair v0, v1 (or of its low word): each case is
/// `[a, want]`. A conversion into 32 bits leaves the high word of the
/// destination pair its sentinel, so `want` is compared with it.
fn conversion_case(body: Inst, cases: &[[u64; 2]]) {
    let inputs: Vec<[u64; 3]> = cases.iter().map(|c| [c[0], 0, 0]).collect();
    let keep = match body {
        Inst::VNarrow { .. } => SENTINEL & !0xffff_ffff,
        _ => 0,
    };
    for width in [32, 64] {
        let got = odd_lanes(&[body], &inputs, width);
        check(
            &format!("{body:?} wave{width}"),
            &got,
            cases.len(),
            SENTINEL,
            |g| g.0,
            |k| keep | cases[k][1],
        );
    }
}

fn narrow_case(op: NarrowOp, cases: &[[u64; 2]]) {
    let a = VReg(0);
    conversion_case(
        Inst::VNarrow {
            op,
            dst: VReg(6),
            a,
        },
        cases,
    );
}

fn widen_case(op: WidenOp, cases: &[[u64; 2]]) {
    let a = Operand::V(VReg(0));
    conversion_case(
        Inst::VWiden {
            op,
            dst: VReg(6),
            a,
        },
        cases,
    );
}

#[test]
fn conversions_to_32_bits() {
    narrow_case(
        NarrowOp::CvtF32F64,
        &[
            // 0.1 as f32, and the two sides of a tie at 1 + 2^-24.
            [f(0.1), 0x3dcc_cccd],
            [f(1.0 + 2f64.powi(-24)), 0x3f80_0000],
            [f(1.0 + 3.0 * 2f64.powi(-24)), 0x3f80_0002],
            [f(1e300), 0x7f80_0000],
            [NAN, 0x7fc0_0000],
        ],
    );
    narrow_case(
        NarrowOp::CvtI32F64,
        &[[f(-2.5), 0xffff_fffe], [f(1e10), 0x7fff_ffff], [NAN, 0]],
    );
    narrow_case(NarrowOp::CvtU32F64, &[[f(-3.0), 0], [f(1e10), 0xffff_ffff]]);
    narrow_case(NarrowOp::CvtU32U64, &[[0x1234_5678_9abc_def0, 0x9abc_def0]]);
}

#[test]
fn conversions_from_32_bits() {
    widen_case(
        WidenOp::CvtF64F32,
        &[[0x3dcc_cccd, 0x3fb9_9999_a000_0000], [0x7fc0_0001, NAN]],
    );
    widen_case(WidenOp::CvtF64U32, &[[0xffff_ffff, f(4_294_967_295.0)]]);
    widen_case(WidenOp::CvtF64I32, &[[0xffff_ffff, f(-1.0)]]);
    widen_case(WidenOp::CvtU64U32, &[[0xffff_ffff, 0xffff_ffff]]);
    widen_case(WidenOp::CvtI64I32, &[[0xffff_fffb, (-5i64) as u64]]);
}

#[test]
fn compares_read_the_pairs_as_their_type() {
    let cases: Vec<[u64; 3]> = vec![
        [u64::MAX, 0, 0],
        [0, u64::MAX, 0],
        [NAN, f(1.0), 0],
        [f(-0.0), f(0.0), 0],
        [0x1_0000_0000, 0xffff_ffff, 0],
    ];
    // Per case: (u64 <, i64 <, f64 <, f64 ==, f64 !=).
    let want = [
        (false, true, false, false, true),
        (true, false, false, false, true),
        (false, false, false, false, true),
        (false, true, false, true, false),
        (false, false, false, false, true),
    ];
    let compare = |op, ty| Inst::VCmp64 {
        op,
        ty,
        dst: MReg(1),
        a: VReg(0),
        b: VReg(2),
    };
    // Each compare with the column of `want` it must give.
    let rows = [
        (compare(CmpOp::Lt, Cmp64Type::U64), 0),
        (compare(CmpOp::Lt, Cmp64Type::I64), 1),
        (compare(CmpOp::Lt, Cmp64Type::F64), 2),
        (compare(CmpOp::Eq, Cmp64Type::F64), 3),
        (compare(CmpOp::Ne, Cmp64Type::F64), 4),
    ];
    let pick =
        |w: &(bool, bool, bool, bool, bool), column: usize| [w.0, w.1, w.2, w.3, w.4][column];
    for (body, column) in rows {
        for width in [32, 64] {
            let got = odd_lanes(&[body], &cases, width);
            check(
                &format!("{body:?} wave{width}"),
                &got,
                cases.len(),
                false,
                |g| g.1,
                |k| pick(&want[k], column),
            );
        }
    }
}

#[test]
fn f64_operations_round_toward_zero_down_and_up() {
    let one = f(1.0);
    let (below_one, above_one) = (f(1.0f64.next_down()), f(1.0f64.next_up()));
    let tiny = f(2f64.powi(-60));
    let fma = |op| Inst::VTernary64 {
        op,
        dst: VReg(6),
        a: VReg(0),
        b: VReg(2),
        c: VReg(4),
    };
    let max = f(f64::MAX);
    // 1 * 1 + 2^-60 lies just above 1, 1 * 1 - 2^-60 just below; an exact
    // zero is -0.0 rounding down and +0.0 otherwise; past the largest
    // double, toward zero stays at it and away from zero is infinite.
    let ops = [Tern64Op::FmaRzF64, Tern64Op::FmaRmF64, Tern64Op::FmaRpF64];
    let want: [[u64; 6]; 3] = [
        [one, below_one, 0, max, f(-f64::MAX), NAN],
        [one, below_one, 1 << 63, max, f(f64::NEG_INFINITY), NAN],
        [above_one, one, 0, f(f64::INFINITY), f(-f64::MAX), NAN],
    ];
    for (op, w) in ops.into_iter().zip(want) {
        pairs_case(
            fma(op),
            &[
                [one, one, tiny, w[0]],
                [one, one, tiny | 1 << 63, w[1]],
                [one, one, f(-1.0), w[2]],
                [max, f(2.0), 0, w[3]],
                [max, f(-2.0), 0, w[4]],
                [f(f64::INFINITY), 0, 0, w[5]],
            ],
        );
    }
    // 1 / 3 = 0x3fd5_5555_5555_5555 rounded to nearest, which is below it;
    // sqrt(2) to nearest, 0x3ff6_a09e_667f_3bcd, is above it.
    let third = 0x3fd5_5555_5555_5555u64;
    let root = 0x3ff6_a09e_667f_3bcdu64;
    for (div, sqrt, q, r) in [
        (Bin64Op::DivRzF64, Un64Op::SqrtRzF64, third, root - 1),
        (Bin64Op::DivRmF64, Un64Op::SqrtRmF64, third, root - 1),
        (Bin64Op::DivRpF64, Un64Op::SqrtRpF64, third + 1, root),
    ] {
        // -1 / 3 toward zero and up is -third, down is the next below.
        let neg = match div {
            Bin64Op::DivRmF64 => (third + 1) | 1 << 63,
            _ => third | 1 << 63,
        };
        pairs_case(
            binary(div),
            &[
                [one, f(3.0), 0, q],
                [f(-1.0), f(3.0), 0, neg],
                [f(6.0), f(3.0), 0, f(2.0)],
                [f(0.0), f(0.0), 0, NAN],
            ],
        );
        pairs_case(
            unary(sqrt),
            &[
                [f(2.0), 0, 0, r],
                [f(9.0), 0, 0, f(3.0)],
                [1 << 63, 0, 0, 1 << 63],
                [f(-1.0), 0, 0, NAN],
            ],
        );
    }
}
