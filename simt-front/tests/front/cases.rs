//! Unit tests over `proc_macro2` tokens (fallback mode): the lowered IR, the
//! errors and the tokens they point at, and robustness on arbitrary input.

use proc_macro2::TokenStream;
use proptest::prelude::*;
use simt_front as front;
use simt_lang::{
    Addressing, Axis, CmpOp, CmpType, ElemType, GlobalRef, Inst, InstIdx, LdsRef, MReg, Operand,
    ParamIdx, Program, SReg, Special, TernOp, UnOp, VReg,
};

fn tokens(src: &str) -> TokenStream {
    src.parse().expect("test source tokenizes")
}

/// The text of the token starting at line/column `at` (1-based line, 0-based column).
fn token_at(src: &str, line: usize, column: usize) -> String {
    let Some(text) = src.lines().nth(line.wrapping_sub(1)) else {
        return format!("<line {line}>");
    };
    let rest: String = text.chars().skip(column).collect();
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    if word.is_empty() {
        rest.chars().take(1).collect()
    } else {
        word
    }
}

/// Every error of the invocation as (message, the token it points at).
type Errors = Vec<(String, String)>;

/// Checks every kernel in `src`: the programs, or every error.
fn lower_all(src: &str) -> Result<Vec<Program>, Errors> {
    let (parsed, mut errors) = front::parse(tokens(src));
    let mut programs = Vec::new();
    for p in parsed {
        if p.errors.is_empty() {
            match front::check(&p.kernel) {
                Ok(kernel) => programs.push(kernel.program().clone()),
                Err(e) => errors.extend(e),
            }
        } else {
            errors.extend(p.errors);
        }
    }
    if errors.is_empty() {
        return Ok(programs);
    }
    Err(as_errors(src, &errors))
}

/// Diagnostics as the macro shows them ([`front::Diagnostic::as_errors`]):
/// each label an error of its own, its message starting `note: `.
fn as_errors<'a>(src: &str, errors: impl IntoIterator<Item = &'a front::Diagnostic>) -> Errors {
    errors
        .into_iter()
        .flat_map(front::Diagnostic::as_errors)
        .map(|(at, message)| {
            let start = at.first.start();
            (message, token_at(src, start.line, start.column))
        })
        .collect()
}

fn lower(src: &str) -> Program {
    match lower_all(src) {
        Ok(mut programs) if programs.len() == 1 => programs.remove(0),
        other => panic!("expected one valid kernel, got {other:?}"),
    }
}

fn errors(src: &str) -> Errors {
    match lower_all(src) {
        Ok(_) => panic!("expected errors in {src}"),
        Err(e) => e,
    }
}

/// Asserts that some error's message contains `message` and points at `token`.
#[track_caller]
fn assert_error(errors: &Errors, message: &str, token: &str) {
    assert!(
        errors
            .iter()
            .any(|(m, t)| m.contains(message) && t == token),
        "no error containing {message:?} at `{token}` in {errors:#?}"
    );
}

/// The instructions of a one-kernel body with the given parameters, `end` dropped.
fn body(params: &str, body: &str) -> Vec<Inst> {
    let p = lower(&format!("kernel k({params}) {{ {body} }}"));
    let mut insts = p.insts.to_vec();
    assert_eq!(insts.pop(), Some(Inst::End));
    insts
}

fn v(n: u16) -> Operand {
    Operand::V(VReg(n))
}

#[test]
fn saxpy_lowers_to_the_expected_program() {
    let src = "
        /// y = a x + y
        pub kernel saxpy(x: &[f32], y: &mut [f32], a: f32, n: u32) {
            vreg i, xi, yi;
            mreg inside;
            v_mov        i, global_id.x
            v_cmp_lt_u32 inside, i, n
            if inside
                global_load  xi, x[i]
                global_load  yi, y[i]
                v_fma_f32    yi, a, xi, yi
                global_store y[i], yi
            endif
        }";
    let p = lower(src);
    let at = |buffer: u16| GlobalRef {
        buffer: ParamIdx(buffer),
        index: v(0),
        offset: simt_lang::Operand::Imm(0),
        addressing: Addressing::Element,
    };
    assert_eq!(p.name, "saxpy");
    assert_eq!(
        p.insts[..],
        [
            Inst::VUnary {
                op: UnOp::Mov,
                dst: VReg(0),
                a: Operand::Special(Special::GlobalId(Axis::X)),
            },
            Inst::VCmp {
                op: CmpOp::Lt,
                ty: CmpType::U32,
                dst: MReg(0),
                a: v(0),
                b: Operand::Arg(ParamIdx(3)),
            },
            Inst::If {
                mask: MReg(0),
                next: InstIdx(7),
            },
            Inst::GlobalLoad {
                ty: ElemType::F32,
                dst: VReg(1),
                src: at(0),
            },
            Inst::GlobalLoad {
                ty: ElemType::F32,
                dst: VReg(2),
                src: at(1),
            },
            Inst::VTernary {
                op: TernOp::FmaF32,
                dst: VReg(2),
                a: Operand::Arg(ParamIdx(2)),
                b: v(1),
                c: v(2),
            },
            Inst::GlobalStore {
                ty: ElemType::F32,
                dst: at(1),
                src: v(2),
            },
            Inst::EndIf,
            Inst::End,
        ]
    );
    assert_eq!((p.vregs, p.sregs, p.mregs, p.lds_bytes), (3, 0, 1, 0));
    // One location per instruction, at the mnemonic; `end` at the closing brace.
    let lines: Vec<u32> = p.locs.iter().map(|l| l.line).collect();
    assert_eq!(lines, [6, 7, 8, 9, 10, 11, 12, 13, 14]);
    assert_eq!(p.locs[0].column, 13);
    assert_eq!(p.locs[3].column, 17);
    assert_eq!(p.locs[8].column, 9);
}

#[test]
fn named_registers_take_indices_numbered_ones_leave_free() {
    let p = lower(
        "kernel k() {
            vreg a, b; sreg t; mreg m;
            v_mov v0, 1
            v_mov a, 2
            v_mov v2, 3
            v_mov b, v1
            s_mov s0, 4
            s_mov t, s0
            v_cmp_eq_u32 m1, v0, 0
            v_cmp_eq_u32 m, v0, 1
        }",
    );
    let dsts: Vec<_> = p
        .insts
        .iter()
        .filter_map(|i| i.fields().written().next())
        .collect();
    use simt_lang::Reg::*;
    assert_eq!(
        dsts,
        [
            V(VReg(0)),
            V(VReg(3)),
            V(VReg(2)),
            V(VReg(4)),
            S(SReg(0)),
            S(SReg(1)),
            M(MReg(1)),
            M(MReg(0)),
        ]
    );
    assert_eq!((p.vregs, p.sregs, p.mregs), (5, 2, 2));
}

#[test]
fn immediates() {
    let insts = body(
        "",
        "v_mov v0, -3
         v_mov v0, 0x1f
         v_mov v0, 4294967295
         v_mov v0, -2147483648
         v_mov v0, 1.5
         v_mov v0, -0.0
         v_add_f32 v0, v0, 2
         v_add_f32 v0, v0, -2
         v_add_f32 v0, v0, 2.5f32
         v_add_u32 v0, v0, 7u32
         v_sub_i32 v0, v0, -7i32
         v_cvt_f32_u32 v0, 3
         v_cvt_u32_f32 v0, 3",
    );
    let imms: Vec<u32> = insts
        .iter()
        .map(|i| match *i {
            Inst::VUnary {
                a: Operand::Imm(x), ..
            } => x,
            Inst::VBinary {
                b: Operand::Imm(x), ..
            } => x,
            ref other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        imms,
        [
            (-3i32) as u32,
            31,
            u32::MAX,
            0x8000_0000,
            1.5f32.to_bits(),
            (-0.0f32).to_bits(),
            2.0f32.to_bits(),
            (-2.0f32).to_bits(),
            2.5f32.to_bits(),
            7,
            (-7i32) as u32,
            3,
            3.0f32.to_bits(),
        ]
    );
}

#[test]
fn immediate_errors() {
    let e = errors(
        "kernel k() {
            v_add_u32 v0, v0, 1.5
            v_mov v0, 4294967296
            v_mov v0, -2147483649
            v_add_f32 v0, v0, 16777217
            v_mov v0, 3u64
            v_mov v1, 2.0f64
        }",
    );
    assert_error(&e, "float literal where an integer is expected", "1.5");
    assert_error(&e, "out of range", "4294967296");
    assert_error(&e, "out of range", "-");
    assert_error(&e, "not exactly an `f32`", "16777217");
    assert_error(&e, "unsupported suffix `u64`", "3u64");
    assert_error(&e, "unsupported suffix `f64`", "2.0f64");
}

#[test]
fn specials_and_uniformity_of_scalar_sources() {
    let insts = body(
        "n: u32",
        "v_mov v0, local_id.y
         v_mov v0, group_size.z
         v_mov v0, num_groups
         s_mov s0, wave_id
         s_mov s0, group_id.x
         s_add_u32 s0, n, wave_width
         v_mov v0, lane_id",
    );
    let sources: Vec<Operand> = insts
        .iter()
        .map(|i| i.fields().operands().last().unwrap().0)
        .collect();
    use Special::*;
    assert_eq!(
        sources,
        [
            Operand::Special(LocalId(Axis::Y)),
            Operand::Special(GroupSize(Axis::Z)),
            Operand::Special(NumGroups(Axis::X)),
            Operand::Special(WaveId),
            Operand::Special(GroupId(Axis::X)),
            Operand::Special(WaveWidth),
            Operand::Special(LaneId),
        ]
    );
    let e = errors(
        "kernel k() {
            vreg i;
            s_mov s0, lane_id
            s_add_u32 s1, s0, i
            s_mov s2, global_id.y
            v_mov v0, lane_id.x
            v_mov v0, local_id.w
        }",
    );
    // The validator's rule, at each operand at fault.
    assert_error(
        &e,
        "a scalar instruction cannot read a per-lane value",
        "lane_id",
    );
    assert_error(&e, "a scalar instruction cannot read a per-lane value", "i");
    assert_error(
        &e,
        "a scalar instruction cannot read a per-lane value",
        "global_id.y",
    );
    assert_error(&e, "`lane_id` has no axes", "x");
    assert_error(&e, "`local_id` has no axis `w`", "w");
}

#[test]
fn memory_operands() {
    let insts = body(
        "b: &mut [u8], f: &[f32]",
        "lds t: [u16; 10];
         lds u: [f32; 4];
         global_load_u8 v0, b[v1]
         global_load_u32 v0, b.bytes[4]
         global_store_i16 b.bytes[v0], -1
         global_load v2, f[3]
         lds_store t[0], 7
         lds_load_u32 v3, t.bytes[s0]
         lds_store u[1], 2",
    );
    assert_eq!(
        insts[1],
        Inst::GlobalLoad {
            ty: ElemType::U32,
            dst: VReg(0),
            src: GlobalRef {
                buffer: ParamIdx(0),
                index: Operand::Imm(4),
                offset: simt_lang::Operand::Imm(0),
                addressing: Addressing::Byte
            }
        }
    );
    assert_eq!(
        insts[2],
        Inst::GlobalStore {
            ty: ElemType::I16,
            dst: GlobalRef {
                buffer: ParamIdx(0),
                index: v(0),
                offset: simt_lang::Operand::Imm(0),
                addressing: Addressing::Byte
            },
            src: Operand::Imm(u32::MAX)
        }
    );
    assert!(matches!(
        insts[3],
        Inst::GlobalLoad {
            ty: ElemType::F32,
            ..
        }
    ));
    assert!(matches!(
        insts[4],
        Inst::LdsStore {
            ty: ElemType::U16,
            ..
        }
    ));
    assert_eq!(
        insts[5],
        Inst::LdsLoad {
            ty: ElemType::U32,
            dst: VReg(3),
            src: LdsRef {
                lds: simt_lang::LdsIdx(0),
                index: Operand::S(SReg(0)),
                offset: simt_lang::Operand::Imm(0),
                addressing: Addressing::Byte
            }
        }
    );
    // An f32 store converts an integer immediate to its float value.
    assert!(
        matches!(insts[6], Inst::LdsStore { src: Operand::Imm(x), .. } if x == 2.0f32.to_bits())
    );
    let p = lower("kernel k() { lds t: [u16; 3]; lds u: [f32; 4]; lds w: [u8; 1]; }");
    let layout: Vec<(u32, u32)> = p.lds.iter().map(|d| (d.offset, d.len)).collect();
    assert_eq!(layout, [(0, 3), (8, 4), (24, 1)]);
    assert_eq!(p.lds_bytes, 25);
}

#[test]
fn memory_errors() {
    let e = errors(
        "kernel k(x: &[f32], y: &mut [u32], n: u32) {
            lds t: [f32; 4];
            global_store x[0], v0
            global_load_u8 v0, y[0]
            global_load v0, t[0]
            lds_load v0, y[0]
            global_load v0, n[0]
            global_load v0, x[y[0]]
            v_mov v0, y[1]
            v_add_u32 v0, x, t
            v_add_u32 v0, x, 1
            global_load v0, v1
            global_store_f32 y.bytes[0], 1.5
            global_store y[0], 1.5
        }",
    );
    assert_error(&e, "store to read-only buffer `x`", "x");
    assert_error(&e, "note: `x` is declared read-only here", "&");
    // The validator's rule, at the mnemonic that names the type, with the fix.
    assert_error(
        &e,
        "load of `y` moves u8 but its elements are u32\n= help: address bytes with `y.bytes[i]`",
        "global_load_u8",
    );
    assert_error(&e, "`t` is an LDS array", "t");
    assert_error(&e, "`y` is a buffer", "y");
    assert_error(&e, "parameter `n` is a scalar, not a buffer", "n");
    assert_error(&e, "cannot be an index", "y");
    assert_error(
        &e,
        "memory operands are only allowed in loads and stores",
        "y",
    );
    // The validator's rule, at the operand it names.
    assert_error(
        &e,
        "parameter `x` is a buffer, not a scalar\n= help: load an element with `global_load dst, x[i]`",
        "x",
    );
    assert_error(&e, "LDS array `t` is not a value", "t");
    assert_error(&e, "expected a buffer element", "v1");
    assert_error(&e, "float literal where an integer is expected", "1.5");
}

#[test]
fn operand_kind_errors() {
    let e = errors(
        "kernel k(x: &mut [u32], n: u32) {
            vreg i; sreg t; mreg m;
            v_mov t, i
            s_mov i, t
            v_mov m, i
            v_mov global_id, i
            v_mov n, i
            v_mov x, i
            v_add_u32 i, m, i
            v_select i, i, i, i
            if t
            endif
            v_mov 3, i
            m_and m, m, 1
        }",
    );
    assert_error(
        &e,
        "`v_mov` writes a vector register, but scalar register `t` is not one",
        "t",
    );
    assert_error(
        &e,
        "`s_mov` writes a scalar register, but vector register `i` is not one",
        "i",
    );
    assert_error(&e, "but mask register `m` is not one", "m");
    assert_error(&e, "cannot write to special value `global_id`", "global_id");
    assert_error(&e, "cannot write to scalar parameter `n`", "n");
    assert_error(&e, "cannot write to buffer `x` directly", "x");
    assert_error(&e, "mask register `m` is not a value", "m");
    assert_error(
        &e,
        "expected a mask register, found vector register `i`",
        "i",
    );
    assert_error(
        &e,
        "expected a mask register, found scalar register `t`",
        "t",
    );
    assert_error(
        &e,
        "expected a vector register to write, found an immediate",
        "3",
    );
    assert_error(&e, "expected a mask register, found an immediate", "1");
}

#[test]
fn names() {
    let e = errors(
        "kernel k(x: &[u32], x: u32, config: u32, PROGRAM: u32) {
            vreg a, a, v3, lane_id, v_mov, lds;
            mreg inside;
            v_mov a, undeclared
            v_mov a, insid
            v_mov a, v256
            v_mov a, s128
            v_cmp_eq_u32 m32, a, a
            v_mov a, x.y
            v_mov a, x.bytes
        }",
    );
    assert_error(&e, "`x` is declared twice", "x");
    assert_error(&e, "note: `x` is first declared here", "x");
    assert_error(&e, "`config` is reserved", "config");
    assert_error(
        &e,
        "parameter `PROGRAM` must start with a lowercase letter",
        "PROGRAM",
    );
    assert_error(&e, "`a` is declared twice", "a");
    assert_error(&e, "`v3` is the name of a numbered register", "v3");
    assert_error(&e, "`lane_id` is a special value", "lane_id");
    assert_error(
        &e,
        "`v_mov` is reserved: it is a mnemonic, which starts an instruction wherever it appears",
        "v_mov",
    );
    assert_error(
        &e,
        "`lds` is reserved: it is a declaration keyword, which starts a declaration",
        "lds",
    );
    assert_error(
        &e,
        "unknown name `undeclared`; declare registers",
        "undeclared",
    );
    assert_error(
        &e,
        "unknown name `insid`\n= help: a similar name exists: `inside`",
        "insid",
    );
    assert_error(
        &e,
        "register `v256` is out of range: the machine has 256 vector registers (v0..v255)",
        "v256",
    );
    assert_error(&e, "register `s128` is out of range", "s128");
    assert_error(&e, "register `m32` is out of range", "m32");
    assert_error(&e, "`x` has no field `y`", "y");
    assert_error(&e, "expected `[index]` after `x.bytes`", "bytes");
}

#[test]
fn parameter_limit_and_register_spelling() {
    let params: Vec<String> = (0..65).map(|i| format!("p{i}: u32")).collect();
    let e = errors(&format!("kernel k({}) {{ }}", params.join(", ")));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_error(
        &e,
        "too many parameters: the machine takes at most 64, and this kernel has 65",
        "p64",
    );
    // `v07` is a name like any other, not `v7`.
    let e = errors("kernel k() { v_mov v07, 1 }");
    assert_error(&e, "unknown name `v07`", "v07");
    let p = lower("kernel k() { vreg v07; v_mov v07, 1 }");
    assert_eq!(p.vregs, 1);
}

#[test]
fn register_and_lds_limits() {
    let many: Vec<String> = (0..257).map(|i| format!("r{i}")).collect();
    let e = errors(&format!("kernel k() {{ vreg {}; }}", many.join(", ")));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_error(
        &e,
        "too many vector registers: `r256` does not fit in the machine's 256",
        "r256",
    );
    // Numbered registers are not given to names.
    let names: Vec<String> = (0..32).map(|i| format!("n{i}")).collect();
    let e = errors(&format!(
        "kernel k() {{ mreg {}; v_cmp_eq_u32 m5, v0, 0 }}",
        names.join(", ")
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_error(&e, "too many mask registers: `n31`", "n31");
    // A named register past the limit is one error, at its declaration, with
    // a note at its first use; its uses add none.
    let e = errors(&format!(
        "kernel k() {{ mreg {}; v_cmp_eq_u32 m5, lane_id, 0 v_cmp_eq_u32 n31, lane_id, 0 v_cmp_eq_u32 n31, lane_id, 1 }}",
        names.join(", ")
    ));
    assert_eq!(e.len(), 2, "{e:?}");
    assert_error(&e, "too many mask registers: `n31`", "n31");
    assert_error(&e, "note: `n31` used here", "v_cmp_eq_u32");
    // A numbered register past the limit is an error at each use, as written,
    // wherever it stands (a memory operand's index too), even a number past
    // what a register index holds.
    let e = errors(
        "kernel k(out: &mut [u32]) { global_store out[v300], 1 v_mov v70000, 1 v_mov v1, v300 }",
    );
    assert_eq!(e.len(), 3, "{e:?}");
    assert_error(
        &e,
        "register `v300` is out of range: the machine has 256 vector registers (v0..v255)",
        "v300",
    );
    assert_error(&e, "register `v70000` is out of range", "v70000");
    let e = errors("kernel k() { lds a: [f32; 58112]; lds b: [u8; 1]; lds c: [u8; 0]; }");
    assert_error(
        &e,
        "`b` does not fit: the LDS arrays need 232449 bytes, and the machine has 232448 bytes",
        "1",
    );
    assert_error(&e, "length must be a positive integer", "0");
    lower("kernel k() { lds a: [f32; 58111]; lds b: [u8; 4]; }");
    let e =
        errors("kernel k() { lds a: [u32; 4294967295]; lds b: [u8; 3]; lds c: [u8; 4294967296]; }");
    // 4294967295 * 4 = 17179869180 bytes for `a` alone.
    assert_error(
        &e,
        "the length of `a`, 4294967295 elements of 4 bytes (17179869180 bytes), exceeds the machine's 232448 bytes of LDS",
        "4294967295",
    );
    // Past `u32`, a length is still told it is too long for the LDS; `c`
    // comes after the LDS is already over, so only `a` is reported.
    assert_eq!(e.len(), 1, "{e:?}");
    let e = errors("kernel k() { lds c: [u8; 4294967296]; }");
    assert_error(
        &e,
        "the length of `c`, 4294967296 elements of 1 byte (",
        "4294967296",
    );
}

#[test]
fn operand_counts_and_mnemonics() {
    let e = errors(
        "kernel k() {
            v_add_u32 v0, v1
            v_mov v0, v1, v2
            v_add_u32 v0, v1,
            v_mov v0, v1
            v_ad_u32 v0, v1, v2
            v_add v0, v1, v2
            endfi
            frobnicate
            barrier v0
        }",
    );
    assert_error(
        &e,
        "`v_add_u32` takes 3 operands (dst, a, b), found 2",
        "v_add_u32",
    );
    assert_error(
        &e,
        "unexpected operand: `v_mov` takes 2 operands (dst, a)",
        "v2",
    );
    assert_error(
        &e,
        "unknown mnemonic `v_ad_u32`\n= help: similar mnemonics exist: `v_add_u32` or `v_mad_u32`",
        "v_ad_u32",
    );
    assert_error(
        &e,
        "unknown mnemonic `v_add`\n= help: similar mnemonics exist: `v_add_u32`, `v_add_i32` or `v_add_f32`",
        "v_add",
    );
    assert_error(
        &e,
        "unknown mnemonic `endfi`\n= help: a similar mnemonic exists: `endif`",
        "endfi",
    );
    assert_error(
        &e,
        "found the operand `v0` (the previous instruction takes no operands)",
        "v0",
    );
    assert_error(&e, "unknown mnemonic `frobnicate`", "frobnicate");
    // The trailing comma did not swallow the next instruction.
    assert_eq!(
        e.iter()
            .filter(|(m, _)| m.contains("takes 3 operands"))
            .count(),
        2,
        "{e:#?}"
    );
}

/// A C assignment is told what to write instead, once: not read as the
/// mnemonic `v` with its 170 extensions for suggestions.
#[test]
fn an_assignment_is_told_the_instruction_to_write() {
    let e = errors(
        "kernel k(x: &[u32], out: &mut [u32]) {
            vreg v;
            v = x[global_id.x]
            global_store out[global_id.x], v
        }",
    );
    assert_error(
        &e,
        "`v = ...` is an assignment, and the kernel language has none: an instruction is a mnemonic and its operands, the destination first\n= help: a load is `global_load v, x[i]`",
        "v",
    );
    assert_eq!(e.len(), 1, "{e:#?}");
    // A word that is not a register, too; `==` is not an assignment.
    let e = errors("kernel k() { total = 3 }");
    assert_error(&e, "`total = ...` is an assignment", "total");
    let e = errors("kernel k() { v == 3 }");
    assert!(e.iter().all(|(m, _)| !m.contains("assignment")), "{e:#?}");
}

/// The syntax errors of the only kernel in `src`, as (message, token).
fn syntax_errors(src: &str) -> Errors {
    let (parsed, errors) = front::parse(tokens(src));
    assert!(errors.is_empty(), "{errors:?}");
    as_errors(src, parsed.iter().flat_map(|p| &p.errors))
}

#[test]
fn a_missing_comma_is_reported_between_the_operands() {
    let e = syntax_errors(
        "kernel k(x: &[u32], n: u32) {
            v_add_u32 v i, 1
            global_load v x[i]
            v_add_u32 v0, v1 2
            v_add_u32 v0, v1 -2
            v_add_u32 v0, v1 n
            v_add_u32 v0, v1 global_id.y
            v_add_u32 v0 undeclared, 1
            lds_store t.bytes[0] v0
            vreg v, i;
            lds t: [u32; 4];
        }",
    );
    assert_error(&e, "expected `,` between `v` and `i`", "v");
    assert_error(&e, "expected `,` between `v` and `x[i]`", "v");
    assert_error(&e, "expected `,` between `v1` and `2`", "v1");
    assert_error(&e, "expected `,` between `v1` and `-2`", "v1");
    assert_error(&e, "expected `,` between `v1` and `n`", "v1");
    assert_error(&e, "expected `,` between `v1` and `global_id.y`", "v1");
    assert_error(&e, "expected `,` between `v0` and `undeclared`", "v0");
    assert_error(&e, "expected `,` between `t.bytes[0]` and `v0`", "]");
    assert_eq!(e.len(), 8, "{e:#?}");
    // Each instruction got its operands: nothing was left to misparse.
    let (parsed, _) = front::parse(tokens(
        "kernel k() { vreg a, b; v_add_u32 a b, 1 v_mov a, 2 }",
    ));
    let counts: Vec<usize> = parsed[0]
        .kernel
        .body
        .iter()
        .filter_map(|s| match s {
            simt_front::ast::Stmt::Inst(i) => Some(i.operands.len()),
            _ => None,
        })
        .collect();
    assert_eq!(counts, [3, 2]);
}

#[test]
fn a_word_after_a_complete_or_short_instruction_may_still_be_a_mnemonic() {
    // Short of an operand, a word close to a mnemonic starts the next instruction.
    let e = errors(
        "kernel k() {
            v_add_u32 v0, v1
            v_ad_u32 v0, v1, 2
        }",
    );
    assert_error(&e, "`v_add_u32` takes 3 operands", "v_add_u32");
    assert_error(
        &e,
        "unknown mnemonic `v_ad_u32`\n= help: similar mnemonics",
        "v_ad_u32",
    );
    // After a complete instruction, an operand is one too many.
    let e = errors("kernel k() { vreg a; v_mov a, 1 a }");
    assert_error(
        &e,
        "expected an instruction, found the operand `a` (the previous instruction takes 2 operands)",
        "a",
    );
}

#[test]
fn suggestions_for_spellings_of_other_languages() {
    let e = syntax_errors(
        "kernel k(raw: &mut [u8]) {
            global_load_u16 v0, raw.byte[0]
            global_load_u16 v0, raw.y[0]
            v_mov v0, get_local_id(1)
            v_mov v0, get_local_id(n)
            v_mov v0, frob()
        }",
    );
    assert_error(&e, "unknown field `.byte`\n= note: `raw.bytes[i]` indexes bytes, `raw[i]` elements\n= help: a similar field exists: `bytes`", "byte");
    assert_error(&e, "unknown field `.y` before `[`", "y");
    assert_error(
        &e,
        "operands are not calls\n= help: the special value of that meaning is: `local_id.y`",
        "get_local_id",
    );
    assert_error(
        &e,
        "operands are not calls\n= help: the special value of that meaning is: `local_id`",
        "get_local_id",
    );
    assert_error(
        &e,
        "operands are not calls: `frob` cannot take arguments",
        "frob",
    );
    let e = errors(
        "kernel k(raw: &mut [u8]) {
            V_MOV v0, 1
            v_mov v0, threadIdx.z
            v_mov v0, GRIDDIM
            v_mov v0, laneid.x
            v_mov v0, raw.byte
            v_mov v0, Lane_ID
        }",
    );
    assert_error(
        &e,
        "unknown mnemonic `V_MOV`\n= help: a similar mnemonic exists: `v_mov`",
        "V_MOV",
    );
    assert_error(
        &e,
        "unknown name `threadIdx.z`\n= help: the special value of that meaning is: `local_id.z`",
        "threadIdx.z",
    );
    assert_error(
        &e,
        "unknown name `GRIDDIM`\n= help: the special value of that meaning is: `num_groups`",
        "GRIDDIM",
    );
    assert_error(
        &e,
        "unknown name `laneid.x`\n= help: the special value of that meaning is: `lane_id`",
        "laneid.x",
    );
    assert_error(
        &e,
        "`raw` has no field `byte`\n= help: address bytes with `raw.bytes[index]`",
        "byte",
    );
    assert_error(
        &e,
        "unknown name `Lane_ID`\n= help: a similar name exists: `lane_id`",
        "Lane_ID",
    );
}

#[test]
fn keywords_are_reserved_with_a_reason() {
    for word in front::CONTROL {
        let e = errors(&format!("kernel k() {{ vreg {word}; }}"));
        assert_error(
            &e,
            &format!("`{word}` is reserved: it is a keyword of the language, which starts an instruction wherever it appears, so it could never be read as an operand; choose another name"),
            word,
        );
    }
    for word in ["vreg", "sreg", "mreg", "lds"] {
        let e = errors(&format!("kernel k({word}: u32) {{ }}"));
        assert_error(
            &e,
            &format!("`{word}` is reserved: it is a declaration keyword"),
            word,
        );
    }
}

#[test]
fn else_if_is_explained_when_it_leaves_an_if_open() {
    let e = syntax_errors(
        "kernel k() {
            if m0
            else if m1
            else
            endif
        }",
    );
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_error(
        &e,
        "there is no `else if`: an `if` after `else` is nested in it and needs its own `endif` (`else` / `if m1` ... `endif` / `endif`)",
        "else",
    );
    let e = syntax_errors("kernel k() { loop if m0 else if m1 endif endloop m0 }");
    assert_error(&e, "there is no `else if`", "else");
    // Nested and closed, `else if` is an `else` holding an `if`.
    lower("kernel k() { if m0 else if m1 endif endif }");
    // Other imbalance is the validator's to report.
    let e = errors("kernel k() { if m0 endif endif }");
    assert_error(&e, "`endif` without an `if`", "endif");
}

#[test]
fn diagnostics_say_which_rule_and_where() {
    use front::Kind;
    let src = "kernel k(out: &[u32], n: u32) {
            vreg a, a;
            lds t: [u32; 4];
            s_mov s0, lane_id
            lds_load v0, t[4]
            global_store out[0], 1
            global_load v1, n[0]
        }";
    let errors = front::check_tokens(tokens(src)).errors;
    let found: Vec<(Kind, String, String)> = errors
        .iter()
        .map(|d| {
            let start = d.at.first.start();
            (
                d.kind,
                d.message.clone(),
                token_at(src, start.line, start.column),
            )
        })
        .collect();
    let has = |kind: Kind, message: &str, token: &str| {
        assert!(
            found
                .iter()
                .any(|(k, m, t)| *k == kind && m.contains(message) && t == token),
            "no {kind:?} {message:?} at `{token}` in {found:#?}"
        );
    };
    has(Kind::DeclaredTwice, "`a` is declared twice", "a");
    // The validator's rules, at the operand each is about.
    has(Kind::Uniformity, "cannot read a per-lane value", "lane_id");
    has(Kind::OutOfBounds, "index 4 is outside `t`", "t");
    has(Kind::ReadOnly, "store to read-only buffer `out`", "out");
    has(
        Kind::OperandKind,
        "parameter `n` is a scalar, not a buffer",
        "n",
    );
    // Related places are labels of one diagnostic, not errors of their own.
    let twice = errors.iter().find(|d| d.kind == Kind::DeclaredTwice);
    assert_eq!(twice.map(|d| d.labels.len()), Some(1), "{errors:#?}");
    let read_only = errors.iter().find(|d| d.kind == Kind::ReadOnly);
    assert_eq!(
        read_only.map(|d| d.labels[0].message.clone()).as_deref(),
        Some("`out` is declared read-only here")
    );
    assert!(errors.iter().all(|d| !d.message.starts_with("note: ")));
    // Source order, whichever stage found each.
    let lines: Vec<usize> = errors.iter().map(|d| d.at.first.start().line).collect();
    assert!(lines.is_sorted(), "{lines:?}");
    // The fix of a per-lane offset depends on the index: the validator's
    // uniformity, not a copy of it, decides which one is shown.
    let help = |src: &str| {
        let errors = front::check_tokens(tokens(src)).errors;
        let offset = errors.iter().find(|d| d.kind == Kind::Uniformity);
        offset
            .and_then(|d| d.help.as_ref())
            .map(|h| h.message.clone())
    };
    assert_eq!(
        help("kernel k(x: &[u32], s: u32) { global_load v0, x[s + lane_id] }").as_deref(),
        Some("write the per-lane value first: `x[lane_id + s]`")
    );
    assert_eq!(
        help("kernel k(x: &[u32]) { global_load v0, x[v1 + lane_id] }").as_deref(),
        Some("add the two into a register first, `v_add_u32 j, v1, lane_id`, and write `x[j]`")
    );
}

/// Floods are bounded by kind: errors of one rule count together whatever
/// their messages say.
#[test]
fn floods_are_bounded_by_kind_not_by_message() {
    // Two messages of one kind (an unknown name with and without a
    // suggestion), 15 of each: 30 of one kind.
    let mut body = String::from("vreg frobnicate; ");
    for _ in 0..15 {
        body.push_str("v_mov v0, frobnicat v_mov v0, zzz ");
    }
    let errors = front::check_tokens(tokens(&format!("kernel k() {{ {body} }}"))).errors;
    assert_eq!(errors.len(), front::FLOOD + 1, "{errors:#?}");
    assert!(errors.iter().all(|d| d.kind == front::Kind::UnknownName));
    assert_eq!(
        errors.last().map(|d| d.message.as_str()),
        Some("... and 10 more errors like this: unknown name `frobnicat`")
    );
}

#[test]
fn floods_of_one_kind_are_counted_not_listed() {
    // Every error of an invocation, in order, each followed by its labels as notes.
    let checked = |src: &str| -> Vec<String> {
        front::check_tokens(tokens(src))
            .errors
            .iter()
            .flat_map(|d| {
                let labels = d.labels.iter().map(|l| format!("note: {}", l.message));
                std::iter::once(d.message.clone()).chain(labels)
            })
            .collect()
    };
    let count = |out: &[String]| out.len();
    let text = |out: &[String]| out.join("\n");
    // 10,000 errors of one kind (names and numbers differ) and 30 of another.
    let mut body = String::new();
    for i in 0..10_000 {
        body.push_str(&format!("v_mov v{}, frob{i} ", i % 200));
    }
    for _ in 0..30 {
        body.push_str("v_add_u32 v0, v0, 0.5 ");
    }
    let out = checked(&format!("kernel k() {{ {body} }}"));
    assert_eq!(count(&out), 2 * (front::FLOOD + 1), "{out:?}");
    assert!(
        text(&out).contains("... and 9980 more errors like this: unknown name `frob20`"),
        "{out:?}"
    );
    assert!(
        text(&out).contains("... and 10 more errors like this: float literal"),
        "{out:?}"
    );
    // Notes stay with their errors.
    let names: Vec<String> = (0..30).map(|_| "a".to_owned()).collect();
    let out = checked(&format!("kernel k() {{ vreg {}; }}", names.join(", ")));
    assert_eq!(
        text(&out).matches("is declared twice").count(),
        front::FLOOD + 1
    );
    assert_eq!(
        text(&out)
            .matches("note: `a` is first declared here")
            .count(),
        front::FLOOD
    );
    assert!(
        text(&out).contains("... and 9 more errors like this"),
        "{out:?}"
    );
    // Deep nesting: the validator's errors are bounded too.
    let deep = format!(
        "kernel k() {{ {} {} }}",
        "if m0 ".repeat(10_000),
        "endif ".repeat(10_000)
    );
    let out = checked(&deep);
    assert_eq!(count(&out), front::FLOOD + 1, "{out:?}");
    assert!(
        text(&out).contains("... and 9916 more errors like this"),
        "{out:?}"
    );
    // Each kernel has its own bound.
    let two = "kernel a() { frob v0 frob v0 } kernel b() { frob v0 }";
    assert_eq!(count(&checked(two)), 3);
}

#[test]
fn control_flow_errors_point_at_the_instruction_and_note_the_opener() {
    let e = errors(
        "kernel k() {
            loop
                if m0
            endloop m0
            else
            endif
            break m0
            continue m0
            if m0
            else
            else
            endif
            if m1
        }",
    );
    assert_error(&e, "`endloop` closes a `if`", "endloop");
    assert_error(&e, "note: innermost open `if` is here", "if");
    assert_error(&e, "`break` outside a loop", "break");
    assert_error(&e, "`continue` outside a loop", "continue");
    assert_error(&e, "second `else` in one `if`", "else");
    assert_error(&e, "unclosed `if`", "if");
    let e = errors("kernel k() { loop if m0 endif }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert_error(&e, "unclosed `loop`", "loop");
    let e = errors("kernel k() { endif endloop m0 else }");
    assert_error(&e, "`endif` without an `if`", "endif");
    assert_error(&e, "`endloop` without a `loop`", "endloop");
    assert_error(&e, "`else` without an `if`", "else");
}

#[test]
fn control_flow_with_bad_operands_still_checks_nesting() {
    let e = errors("kernel k() { vreg i; if i endloop m0 }");
    assert_error(
        &e,
        "expected a mask register, found vector register `i`",
        "i",
    );
    assert_error(&e, "`endloop` closes a `if`", "endloop");
}

#[test]
fn barrier_notes_use_the_kernels_names() {
    let e = errors(
        "kernel k() {
            mreg inside;
            v_cmp_lt_u32 inside, lane_id, 3
            if inside
                barrier
            endif
        }",
    );
    assert_error(&e, "barrier under divergent control flow", "barrier");
    assert_error(&e, "note: divergent `if` here", "if");
    assert_error(
        &e,
        "note: `inside` gets a per-lane value here",
        "v_cmp_lt_u32",
    );
    // Uniform control flow may hold a barrier.
    lower(
        "kernel k(n: u32) {
            sreg i; mreg more;
            s_mov i, 0
            loop
                barrier
                s_add_u32 i, i, 1
                s_cmp_lt_u32 more, i, n
            endloop more
        }",
    );
}

#[test]
fn syntax_errors_are_collected_across_statements_and_kernels() {
    let src = "
        kernel a(x: &[u128]) { }
        kernel b() {
            vreg i
            v_mov i, {1}
            v_mov v0, 1; v_mov v1, @
            lds t: [f32, 4];
        }
        fn c() {}
        kernel d() { v_mov v0, 1 }
    ";
    let (parsed, errors) = front::parse(tokens(src));
    let names: Vec<String> = parsed.iter().map(|p| p.kernel.name.to_string()).collect();
    assert_eq!(names, ["b", "d"]);
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(
        messages[0].contains("unsupported element type `u128`"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("kernels are declared with `kernel`, not `fn`"),
        "{messages:?}"
    );
    let body: Vec<String> = parsed[0].errors.iter().map(ToString::to_string).collect();
    assert_eq!(body.len(), 4, "{body:?}");
    assert!(body[0].contains("expected `;` after the register declaration"));
    assert!(body[1].contains("expected an operand"));
    assert!(body[2].contains("expected an operand"));
    assert!(body[3].contains("expected `;`"));
    assert!(parsed[1].errors.is_empty());
}

#[test]
fn several_kernels_and_optional_semicolons() {
    let programs = lower_all(
        "
        /// first
        pub kernel a(out: &mut [u32]) { global_store out[global_id], 1; }
        pub(crate) kernel b(out: &mut [u32]) {
            /// a comment
            v_mov v0, 2; ; global_store out[lane_id], v0
        }",
    )
    .unwrap();
    assert_eq!(programs.len(), 2);
    assert_eq!(programs[1].insts.len(), 3);
}

/// A kernel is printed back without `r#` (`kernel type` would not parse), so
/// raw names are refused, with the reason that applies; `r#` does not make a
/// reserved word a name.
#[test]
fn raw_identifiers_are_refused_as_names() {
    let e = errors(
        "kernel r#type(r#in: &mut [u32], r#n: u32) {
            vreg r#loop, r#x, r#v0;
            lds r#t: [u32; 4];
            global_store r#in[0], 1
        }",
    );
    assert_error(
        &e,
        "`type` is a Rust keyword, which cannot name a kernel or parameter even written `r#type`",
        "r",
    );
    assert_error(
        &e,
        "`in` is a Rust keyword, which cannot name a kernel or parameter even written `r#in`",
        "r",
    );
    assert_error(
        &e,
        "raw identifiers are not accepted here: write `n` without `r#`",
        "r",
    );
    assert_error(
        &e,
        "`loop` is reserved: it is a keyword of the language, which starts an instruction wherever it appears, so it could never be read as an operand (writing it `r#loop` does not change that); choose another name",
        "r",
    );
    assert_error(
        &e,
        "raw identifiers are not accepted in a kernel body: write `x` without `r#`",
        "r",
    );
    assert_error(
        &e,
        "`v0` is the name of a numbered register (writing it `r#v0` does not change that)",
        "r",
    );
    assert_error(
        &e,
        "raw identifiers are not accepted in a kernel body: write `t` without `r#`",
        "r",
    );
    let e = errors("kernel r#saxpy() { }");
    assert_error(
        &e,
        "raw identifiers are not accepted here: write `saxpy` without `r#`",
        "r",
    );
    // Rust keywords that are not words of the language are plain names in a body.
    let p =
        lower("kernel k(out: &mut [u32]) { vreg type; v_mov type, 1 global_store out[0], type }");
    assert_eq!(p.reg_names[0].name, "type");
}

#[test]
fn underscore_is_not_a_name() {
    let e = errors("kernel k() { vreg _; sreg ok, _; }");
    assert_eq!(e.len(), 2, "{e:?}");
    assert_error(&e, "`_` is not a name: a register, array or parameter is read by its name, so it needs one; choose another name", "_");
}

/// `0 + 0 + ... + 0` is one level of nesting per `+`: checking, evaluating
/// and dropping it recurse once per level. 40,000 terms overflowed rustc's
/// stack; they are now one error, found on the test thread's small stack.
#[test]
fn constant_expressions_nest_a_bounded_depth() {
    let sum = |terms: usize| vec!["1"; terms].join(" + ");
    // A left-deep sum of n terms is n - 1 levels deep.
    let limit = front::MAX_EXPR_DEPTH + 1;
    let insts = body("", &format!("v_mov v0, {}", sum(limit)));
    assert!(
        matches!(insts[..], [Inst::VUnary { a: Operand::Imm(n), .. }] if n as usize == limit),
        "{insts:?}"
    );
    for terms in [limit + 1, 40_000] {
        let e = errors(&format!(
            "kernel k() {{ v_mov v0, {} v_mov v1, 2 }}",
            sum(terms)
        ));
        assert_eq!(e.len(), 1, "{e:?}");
        assert_error(&e, "constant expression nested more than 256 levels deep (operators, parentheses and `-` count one level each): write its value as one literal", "+");
    }
    // Unary minus and parentheses count too; a long chain of them is refused
    // at the first token past the limit.
    let minus = format!("kernel k() {{ v_mov v0, {}1 }}", "- ".repeat(40_000));
    assert_error(&errors(&minus), "nested more than 256 levels", "-");
    let parens = format!(
        "kernel k() {{ lds t: [u32; {}4{}]; }}",
        "(".repeat(300),
        ")".repeat(300)
    );
    assert_error(&errors(&parens), "nested more than 256 levels", "(");
}

/// `- -1` is the negation of `-1`, as `-(-1)` is.
#[test]
fn unary_minus_repeats() {
    let insts = body(
        "",
        "v_mov v0, - -1
         v_mov v0, --1
         v_mov v0, - - 5
         v_mov v0, ---7
         v_mov v0, - -2147483648
         v_mov v0, -(-1)",
    );
    let imms: Vec<u32> = insts
        .iter()
        .map(|i| match *i {
            Inst::VUnary {
                a: Operand::Imm(x), ..
            } => x,
            ref other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(imms, [1, 1, 5, -7i32 as u32, 0x8000_0000, 1]);
    // `-4294967295` does not fit, whatever is done to it next.
    let e = errors("kernel k() { v_mov v0, - -4294967295 }");
    assert_error(&e, "integer literal out of range: immediates must fit", "-");
}

/// A `,` after a complete operand list is an error at the comma; a short
/// list with one is reported as short.
#[test]
fn a_trailing_comma_is_refused() {
    let e = errors(
        "kernel k(b: &mut [u32]) {
            vreg x;
            v_add_u32 x, x, 1,
            global_atomic_add_u32 b[0], x,
            v_add_u32 x, x,
        }",
    );
    assert_eq!(e.len(), 3, "{e:#?}");
    assert_error(&e, "unexpected `,` after the last operand: `v_add_u32` takes 3 operands (dst, a, b); remove the `,` (commas only separate operands)", ",");
    assert_error(
        &e,
        "unexpected `,` after the last operand: `global_atomic_add_u32` takes 2 or 3 operands",
        ",",
    );
    assert_error(
        &e,
        "`v_add_u32` takes 3 operands (dst, a, b), found 2",
        "v_add_u32",
    );
}

/// A constant index followed by a register offset: the `+` at the top level of
/// the brackets starts the offset, as it does after a register index.
/// Operators inside the index keep Rust's precedence (`1 << 2 + 1` is 8).
#[test]
fn a_constant_index_takes_an_offset() {
    let insts = body(
        "x: &[u32], n: u32",
        "sreg k;
         s_mov k, 1
         global_load v0, x[4 + k]
         global_load v0, x[4 + n]
         global_load v0, x[(2 * 3) - 1]
         global_load v0, x[1 << 2 + 1]
         global_load v0, x[-1 + 3 + 4]",
    );
    let refs: Vec<(Operand, Operand)> = insts[1..]
        .iter()
        .map(|i| match *i {
            Inst::GlobalLoad { src, .. } => (src.index, src.offset),
            ref other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        refs,
        [
            (Operand::Imm(4), Operand::S(SReg(0))),
            (Operand::Imm(4), Operand::Arg(ParamIdx(1))),
            (Operand::Imm(6), Operand::Imm(-1i32 as u32)),
            (Operand::Imm(8), Operand::Imm(0)),
            (Operand::Imm(-1i32 as u32), Operand::Imm(7)),
        ]
    );
}

/// A constant byte offset a wide or typed access would fault on is a compile
/// error; wide accesses need 4-byte alignment, not their size.
#[test]
fn constant_misaligned_byte_offsets_are_refused() {
    let ok = body(
        "s: &[u32], o: &mut [u32]",
        "vreg a, b, c, d;
         global_load_x2 [a, b], s.bytes[4]
         global_load_x4 [a, b, c, d], s.bytes[0 + 12]
         global_store_u16 o.bytes[6], a
         global_store_u8 o.bytes[3], a",
    );
    assert_eq!(ok.len(), 4);
    let e = errors(
        "kernel k(s: &[u32], o: &mut [u32]) {
            lds t: [u32; 16];
            vreg a, b, c, d;
            global_load_x2 [a, b], s.bytes[6]
            lds_store_x4 t.bytes[8 + 2], [a, b, c, d]
            global_store_u16 o.bytes[3], a
            global_load a, s.bytes[-2]
        }",
    );
    assert_eq!(e.len(), 4, "{e:#?}");
    assert_error(&e, "byte offset 6 is not a multiple of 4, so `global_load_x2` would fault here as misaligned: use a byte offset that is a multiple of 4, or index elements with `s[i]`", "s.bytes");
    assert_error(
        &e,
        "byte offset 10 is not a multiple of 4, so `lds_store_x4` would fault",
        "t.bytes",
    );
    assert_error(
        &e,
        "byte offset 3 is not a multiple of 2, so `global_store_u16`",
        "o.bytes",
    );
    assert_error(&e, "byte offset -2 is not a multiple of 4", "s.bytes");
}

#[test]
fn nested_memory_indices_are_rejected_without_recursion() {
    // syn's token buffer recurses once per group, as rustc's parser does on
    // the stack rustc grows for it; the test thread's 2 MiB is too little for
    // that in an optimised build, so the check runs on a thread sized like
    // rustc's. The kernel parser stops at the outer bracket with one error.
    let check = || {
        let deep = format!("x[{}0{}]", "x[".repeat(5000), "]".repeat(5000));
        let e = errors(&format!(
            "kernel k(x: &mut [u32]) {{ global_store {deep}, 1 }}"
        ));
        assert_eq!(e.len(), 1, "{e:?}");
        assert_error(&e, "a memory operand cannot be an index", "x");
    };
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(check)
        .expect("a thread for the deep token tree")
        .join()
        .expect("the check passes");
}

/// Tokens kernels are made of, each balanced on its own.
pub(crate) const VOCABULARY: &[&str] = &[
    "kernel",
    "pub",
    "k",
    "(x: &mut [u32], n: u32)",
    "()",
    "{",
    "}",
    "{ }",
    "vreg",
    "sreg",
    "mreg",
    "lds",
    "t",
    ":",
    "[f32; 4]",
    ";",
    ",",
    ".",
    "-",
    "v0",
    "s1",
    "m0",
    "i",
    "x",
    "n",
    "[i]",
    "[v0]",
    "bytes",
    "global_id",
    "lane_id",
    "y",
    "0",
    "1.5",
    "0xff",
    "4294967296",
    "1e99",
    "v_mov",
    "v_add_u32",
    "v_cmp_lt_u32",
    "s_mov",
    "global_load",
    "global_store",
    "lds_store",
    "if",
    "else",
    "endif",
    "loop",
    "endloop",
    "break",
    "continue",
    "barrier",
    "#",
    "[doc = \"d\"]",
    "&",
    "mut",
    "@",
    "\"s\"",
    "'a'",
    "()",
    "[[]]",
    "x.bytes[0]",
    "t[1]",
    "-1",
    "m_and",
    "v_select",
];

fn check_str(src: &str) {
    if let Ok(ts) = src.parse::<TokenStream>() {
        let _ = front::check_tokens(ts);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// Arbitrary token sequences, bare and inside a kernel body, never panic.
    #[test]
    fn arbitrary_tokens_never_panic(picks in prop::collection::vec(0..VOCABULARY.len(), 0..40)) {
        let words: Vec<&str> = picks.iter().map(|&i| VOCABULARY[i]).collect();
        let text = words.join(" ");
        check_str(&text);
        check_str(&format!("kernel k(x: &mut [u32], n: u32) {{ vreg i; mreg m; {text} }}"));
    }
}

/// Two valid kernels as space-separated tokens, for mutation.
pub(crate) const MUTATED_KERNELS: [&str; 2] = [
    "kernel saxpy ( x : & [ f32 ] , y : & mut [ f32 ] , a : f32 , n : u32 ) { vreg i , xi , yi ; mreg inside ; v_mov i , global_id . x v_cmp_lt_u32 inside , i , n if inside global_load xi , x [ i ] global_load yi , y [ i ] v_fma_f32 yi , a , xi , yi global_store y [ i ] , yi endif }",
    "pub kernel r ( out : & mut [ u32 ] ) { lds t : [ u32 ; 64 ] ; sreg s ; mreg more , odd ; lds_store t [ lane_id ] , lane_id barrier s_mov s , 1 loop v_and v0 , lane_id , 1 v_cmp_eq_u32 odd , v0 , 1 break odd continue odd s_add_u32 s , s , s s_cmp_lt_u32 more , s , 32 endloop more global_store out . bytes [ 0 ] , - 1.5 }",
    ];

/// Every deletion of one token and every swap of neighbours of valid kernels
/// gives errors or a kernel, never a panic.
#[test]
fn mutated_kernels_never_panic() {
    let kernels = MUTATED_KERNELS;
    let mut runs = 0;
    for k in kernels {
        let words: Vec<&str> = k.split(' ').collect();
        for i in 0..words.len() {
            let mut w = words.clone();
            w.remove(i);
            check_str(&w.join(" "));
            let mut w = words.clone();
            if i + 1 < w.len() {
                w.swap(i, i + 1);
                check_str(&w.join(" "));
            }
            check_str(&words[..i].join(" "));
            runs += 3;
        }
    }
    assert!(runs > 300);
}

/// The instruction reference of the book (`docs/src/language/instructions.md`).
const LANGUAGE_DOC: &str = include_str!("../../../docs/src/language/instructions.md");

/// The kernel each example of the reference is checked in, as the doc shows it.
const EXAMPLE_KERNEL: &str = "kernel example(src: &[u32], dst: &mut [u32], fsrc: &[f32], fdst: &mut [f32], raw: &mut [u8], hsrc: &[f16], hdst: &mut [f16], bdst: &mut [bf16], qdst: &mut [u64], ddst: &mut [f64], n: u32, k: i32, a: f32) {
    lds tile: [u32; 256];
    lds ftile: [f32; 256];
    lds htile: [f16; 256];
    lds btile: [bf16; 256];
    lds qtile: [u64; 64];
    lds dtile: [f64; 64];
    vreg i, x, y;
    vreg q0, q1, q2, q3;
    sreg t, u;
    mreg m, done;
    <example>
}";

/// The reference's rows: (mnemonic, operands, example), in order.
fn reference_rows() -> Vec<(String, String, String)> {
    let start = LANGUAGE_DOC
        .find("## Instruction reference")
        .expect("the doc has an instruction reference");
    LANGUAGE_DOC[start..]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cell = |s: &str| s.trim().trim_matches('`').to_owned();
            let mnemonic = line[3..].split('`').next().unwrap_or_default().to_owned();
            let rest = &line[3 + mnemonic.len() + 1..];
            let operands = rest
                .trim_start_matches(" |")
                .split(" | ")
                .next()
                .unwrap_or("");
            let example = line
                .trim_end()
                .trim_end_matches('|')
                .trim_end()
                .rsplit(" | ")
                .next()
                .unwrap_or("");
            let operands = if operands.trim() == "—" {
                String::new()
            } else {
                cell(operands)
            };
            (mnemonic, operands, cell(example))
        })
        .collect()
}

#[test]
fn the_reference_lists_exactly_the_mnemonic_table_in_order() {
    let rows = reference_rows();
    let documented: Vec<&str> = rows.iter().map(|(m, _, _)| m.as_str()).collect();
    let table: Vec<&str> = simt_lang::isa::MNEMONICS.iter().map(|m| m.name).collect();
    assert_eq!(documented, table);
    for (mnemonic, operands, _) in &rows {
        let m = simt_lang::isa::lookup(mnemonic).unwrap();
        assert_eq!(operands, &m.operand_names(), "operands of {mnemonic}");
    }
}

#[test]
fn every_example_of_the_reference_compiles() {
    assert!(
        LANGUAGE_DOC.contains(EXAMPLE_KERNEL),
        "the doc shows the example kernel"
    );
    for (mnemonic, _, example) in reference_rows() {
        assert!(
            example.split_whitespace().any(|w| w == mnemonic),
            "the example of {mnemonic} uses it: {example}"
        );
        let src = EXAMPLE_KERNEL.replace("<example>", &example);
        if let Err(e) = lower_all(&src) {
            panic!("example of {mnemonic} `{example}`: {e:?}");
        }
    }
}

#[test]
fn what_may_follow_an_index() {
    let e = errors("kernel k(x: &[u32]) { vreg i, v; global_load v, x[i + 1 2] }");
    assert_error(
        &e,
        "expected `]` after the index, or `+ offset` / `- offset`",
        "2",
    );
    let e = errors("kernel k(x: &[u32]) { vreg i, v; global_load v, x[i << 2] }");
    assert_error(
        &e,
        "so `<<` cannot follow it: compute the index first with `v_shl j, i, ...` and write `x[j]`",
        "<",
    );
    let e = errors("kernel k(x: &[u32], s: u32) { vreg i, v; global_load v, x[i + s * 2] }");
    assert_error(
        &e,
        "so `*` cannot follow the offset: compute the whole index into a register first",
        "*",
    );
    let e = errors("kernel k(x: &[u32]) { vreg i, d, v; global_load v, x[i - d] }");
    assert_error(
        &e,
        "only an immediate offset can be subtracted: compute the index into a register first, `v_sub_u32 j, i, d`, and write `x[j]`",
        "d",
    );
    // Every mnemonic a message suggests exists.
    for op in ["*", "/", "%", "<<", ">>", "&", "|", "^"] {
        let src = format!("kernel k(x: &[u32]) {{ vreg i, v; global_load v, x[i {op} 2] }}");
        let e = errors(&src);
        let message = &e[0].0;
        let suggested = message
            .split("with `")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_default();
        assert!(
            simt_lang::isa::lookup(suggested).is_some(),
            "{op}: {message}"
        );
    }
}

#[test]
fn pairs_of_registers_hold_64_bit_values() {
    let p = lower(
        "kernel k(x: &mut [u32]) {
            vreg i;
            vreg a0, a1;
            vreg c0, c1;
            v_shl i, global_id.x, 1
            global_load_x2 [a0, a1], x[i]
            v_cvt_f64_f32 [c0, c1], 0.5
            v_fma_f64 [a0, a1], [a0, a1], [a0, a1], [c0, c1]
            v_cmp_lt_f64 m0, [a0, a1], [c0, c1]
            v_cvt_i32_f64 i, [a0, a1]
        }",
    );
    assert_eq!(
        p.insts[2..6],
        [
            Inst::VWiden {
                op: simt_lang::WidenOp::CvtF64F32,
                dst: VReg(3),
                a: Operand::Imm(0.5f32.to_bits()),
            },
            Inst::VTernary64 {
                op: simt_lang::Tern64Op::FmaF64,
                dst: VReg(1),
                a: VReg(1),
                b: VReg(1),
                c: VReg(3),
            },
            Inst::VCmp64 {
                op: CmpOp::Lt,
                ty: simt_lang::Cmp64Type::F64,
                dst: MReg(0),
                a: VReg(1),
                b: VReg(3),
            },
            Inst::VNarrow {
                op: simt_lang::NarrowOp::CvtI32F64,
                dst: VReg(0),
                a: VReg(1),
            },
        ]
    );
    // The disassembly writes the pairs back as lists.
    let text = p.display().to_string();
    assert!(
        text.contains("v_fma_f64 [a0, a1], [a0, a1], [a0, a1], [c0, c1]"),
        "{text}"
    );
    let e = errors("kernel k() { vreg a0, a1, t; v_add_f64 a0, [a0, a1], [a0, a1] }");
    assert_error(
        &e,
        "`v_add_f64` takes 64-bit values as pairs of registers: write this one as a list of two consecutive registers, `[v0, v1]`",
        "a0",
    );
}

#[test]
fn a_format_string_takes_no_suffix() {
    let e = errors("kernel k() { vreg x; print \"x = {}\"suffix, x }");
    assert_error(
        &e,
        "a format string takes no suffix, found `suffix` after it: remove it",
        "\"",
    );
}

#[test]
fn a_column_of_doubles_is_padded_by_an_element_not_a_word() {
    // Lanes 32 doubles (256 bytes) apart: the index of an array of doubles
    // cannot pad by a word, so the help pads by one element.
    let column = |stride: u32| {
        format!(
            "kernel k(out: &mut [u32]) {{
                lds tile: [f64; 2048];
                vreg lo, hi, j;
                v_mul_u32 j, lane_id, {stride}
                #[conflict_free]
                lds_load_x2 [lo, hi], tile[j]
                global_store out[global_id.x], lo
            }}"
        )
    };
    let e = front::compile(&column(32)).expect_err("a bank conflict");
    let text = e.to_string();
    assert!(
        text.contains("pad the pitch by one 8-byte element: lanes 264 bytes apart"),
        "{text}"
    );
    assert!(!text.contains("one word"), "{text}");
    // A column of words keeps the word.
    let words = column(32)
        .replace("[f64; 2048]", "[u32; 4096]")
        .replace("lds_load_x2 [lo, hi], tile[j]", "lds_load lo, tile[j]");
    let text = front::compile(&words)
        .expect_err("a bank conflict")
        .to_string();
    assert!(text.contains("pad the pitch by one word"), "{text}");
}
