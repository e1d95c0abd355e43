//! Numbered registers written only inside the register list of a wide access
//! are the kernel's own: named registers are allocated around them, and the
//! program counts them. Also the alignment rule of wide accesses (4 bytes, as
//! AMD's dwordx2/dwordx4, whatever the width), and repeated unary minus as
//! rustc tokenizes it.

use simt::core::{Error, FaultKind, LaunchConfig};
use simt::simt_kernel;

simt_kernel! {
    /// The kernel of the report: `a` and `b` must not be given `v0` and `v1`.
    pub kernel alias2(src: &[u32], out: &mut [u32]) {
        vreg a, b;
        v_mov a, 111
        v_mov b, 222
        global_load_x2 [v0, v1], src[0]
        global_store out[0], a
        global_store out[1], b
    }

    /// Through LDS: the list's registers are read back through a wide store.
    kernel lds_alias2(src: &[u32], out: &mut [u32]) {
        lds t: [u32; 64];
        vreg a, b, w;
        global_load w, src[lane_id]
        lds_store t[lane_id], w
        barrier
        v_mov a, 111
        v_mov b, 222
        lds_load_x2 [v0, v1], t[0]
        global_store_x2 out[0], [v0, v1]
        global_store out[2], a
        global_store out[3], b
    }

    /// Four registers, a run that starts past `v0`, loaded and stored wide.
    kernel alias4(src: &[u32], out: &mut [u32]) {
        vreg a, b, c, d;
        v_mov a, 111
        v_mov b, 222
        v_mov c, 333
        v_mov d, 444
        global_load_x4 [v1, v2, v3, v4], src[0]
        global_store_x4 out[0], [v1, v2, v3, v4]
        global_store out[4], a
        global_store out[5], b
        global_store out[6], c
        global_store out[7], d
    }

    /// Only a store names `v0` and `v1`, which the kernel never writes: they
    /// hold 0 (registers start zeroed), not `a` and `b`.
    kernel store_alias2(out: &mut [u32]) {
        vreg a, b;
        v_mov a, 111
        v_mov b, 222
        global_store_x2 out[0], [v0, v1]
        global_store out[2], a
        global_store out[3], b
    }

    /// The same through an LDS wide store of four, read back one word per lane.
    kernel lds_store_alias4(out: &mut [u32]) {
        lds t: [u32; 4];
        vreg a, b, c, d, w;
        mreg first;
        v_mov a, 111
        v_mov b, 222
        v_mov c, 333
        v_mov d, 444
        v_cmp_eq_u32 first, lane_id, 0
        if first
            lds_store_x4 t[0], [v0, v1, v2, v3]
        endif
        barrier
        v_cmp_lt_u32 first, lane_id, 4
        if first
            lds_load w, t[lane_id]
            global_store out[lane_id], w
        endif
        global_store out[4], a
        global_store out[5], b
        global_store out[6], c
        global_store out[7], d
    }

    /// A numbered register written only as a memory operand's offset is
    /// reserved too: `s0` is never written, so it holds 0, not `k`.
    kernel offset_alias(src: &[u32], out: &mut [u32]) {
        sreg k;
        s_mov k, 3
        global_load v0, src[lane_id + s0]
        global_store out[lane_id], v0
        global_store out[32], k
    }

    /// `_x2` at byte offset `at`: 4-byte alignment is enough.
    kernel wide_bytes(src: &[u32], out: &mut [u32], at: u32) {
        vreg a, b;
        global_load_x2 [a, b], src.bytes[at]
        global_store_x2 out[0], [a, b]
    }

    /// `_x4` at element `at` of a `u32` buffer.
    kernel wide_element(src: &[u32], out: &mut [u32], at: u32) {
        vreg a, b, c, d;
        global_load_x4 [a, b, c, d], src[at]
        global_store_x4 out[0], [a, b, c, d]
    }

    /// LDS `_x2` store and load at byte offset `at`.
    kernel lds_wide_bytes(out: &mut [u32], at: u32) {
        lds t: [u32; 8];
        vreg a, b, w;
        mreg first;
        v_mov a, 10
        v_mov b, 20
        v_cmp_eq_u32 first, lane_id, 0
        if first
            lds_store_x2 t.bytes[at], [a, b]
        endif
        barrier
        v_cmp_lt_u32 first, lane_id, 8
        if first
            lds_load w, t[lane_id]
            global_store out[lane_id], w
        endif
    }
}

simt_kernel! {
    /// `- -1` is the negation of `-1`, however the minus signs are spaced.
    kernel negations(out: &mut [u32]) {
        vreg x;
        v_mov x, - -1
        global_store out[0], x
        v_mov x, --1
        global_store out[1], x
        v_mov x, - - 5
        global_store out[2], x
        v_mov x, ---7
        global_store out[3], x
        v_mov x, -(-1)
        global_store out[4], x
    }
}

#[test]
fn repeated_minus_signs_negate() {
    let mut out = [0u32; 5];
    negations::launch(&LaunchConfig::new(1, 1), &mut out).unwrap();
    assert_eq!(out, [1, 1, 5, -7i32 as u32, 1]);
}

fn src() -> Vec<u32> {
    (5..5 + 64).collect()
}

#[test]
fn a_list_of_numbered_registers_is_not_given_to_named_ones() {
    let config = LaunchConfig::new(1, 32);
    let mut out = [0u32; 2];
    alias2::launch(&config, &src(), &mut out).unwrap();
    assert_eq!(out, [111, 222]);
    // v0, v1 from the list, then a = v2 and b = v3.
    assert_eq!(alias2::VREGS, 4);
    let text = alias2::PROGRAM.display().to_string();
    assert!(text.contains("global_load_x2 [v0, v1], src[0]"), "{text}");
}

#[test]
fn an_lds_wide_load_list_is_reserved() {
    let config = LaunchConfig::new(1, 32);
    let mut out = [0u32; 4];
    lds_alias2::launch(&config, &src(), &mut out).unwrap();
    // t[0], t[1] are src[0], src[1] = 5, 6.
    assert_eq!(out, [5, 6, 111, 222]);
    // v0, v1, then a, b, w.
    assert_eq!(lds_alias2::VREGS, 5);
}

#[test]
fn a_list_of_four_is_reserved_in_loads_and_stores() {
    let config = LaunchConfig::new(1, 32);
    let mut out = [0u32; 8];
    alias4::launch(&config, &src(), &mut out).unwrap();
    assert_eq!(out, [5, 6, 7, 8, 111, 222, 333, 444]);
    // v1..v4 from the lists; a, b, c, d take v0, v5, v6, v7.
    assert_eq!(alias4::VREGS, 8);
}

#[test]
fn a_store_list_is_reserved() {
    let config = LaunchConfig::new(1, 32);
    let mut out = [7u32; 4];
    store_alias2::launch(&config, &mut out).unwrap();
    assert_eq!(out, [0, 0, 111, 222]);
    assert_eq!(store_alias2::VREGS, 4);

    let mut out = [7u32; 8];
    lds_store_alias4::launch(&config, &mut out).unwrap();
    assert_eq!(out, [0, 0, 0, 0, 111, 222, 333, 444]);
    // v0..v3, then a, b, c, d, w.
    assert_eq!(lds_store_alias4::VREGS, 9);
}

#[test]
fn a_scalar_offset_register_is_reserved() {
    let config = LaunchConfig::new(1, 32);
    let mut out = [0u32; 33];
    offset_alias::launch(&config, &src(), &mut out).unwrap();
    let expected: Vec<u32> = (0..32).map(|l| 5 + l).chain([3]).collect();
    assert_eq!(out.to_vec(), expected);
    assert_eq!(offset_alias::SREGS, 2);
}

#[test]
fn wide_accesses_need_four_byte_alignment_only() {
    let config = LaunchConfig::new(1, 32);
    let src = src();
    // Byte 4 is element 1 of `src`: words 6 and 7.
    let mut out = [0u32; 2];
    wide_bytes::launch(&config, &src, &mut out, 4).unwrap();
    assert_eq!(out, [6, 7]);
    // Element 1 of a `_x4`: elements 1..5, not 16-byte aligned.
    let mut out = [0u32; 4];
    wide_element::launch(&config, &src, &mut out, 1).unwrap();
    assert_eq!(out, [6, 7, 8, 9]);
    // LDS: byte 12 is element 3; the other words stay 0.
    let mut out = [9u32; 8];
    lds_wide_bytes::launch(&config, &mut out, 12).unwrap();
    assert_eq!(out, [0, 0, 0, 10, 20, 0, 0, 0]);
}

#[test]
fn a_wide_access_off_a_word_boundary_faults() {
    let config = LaunchConfig::new(1, 32);
    let mut out = [0u32; 2];
    let err = wide_bytes::launch(&config, &src(), &mut out, 6).unwrap_err();
    let Error::Fault(fault) = err else {
        panic!("not a fault: {err}");
    };
    assert!(
        matches!(&fault.kind, FaultKind::GlobalMisaligned { offset: 6, access: "load", buffer, .. } if buffer == "src"),
        "{fault:?}"
    );
    // The faulting instruction moves nothing, and the store after it never runs.
    assert_eq!(out, [0, 0]);

    let mut out = [9u32; 8];
    let err = lds_wide_bytes::launch(&config, &mut out, 2).unwrap_err();
    let Error::Fault(fault) = err else {
        panic!("not a fault: {err}");
    };
    assert!(
        matches!(&fault.kind, FaultKind::LdsMisaligned { offset: 2, access: "store", array, .. } if array == "t"),
        "{fault:?}"
    );
    assert_eq!(out, [9; 8]);
}
