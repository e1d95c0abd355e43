//! Faults of atomics and wide accesses, through kernels: the typed fault names the
//! source line of the faulting instruction, the workgroup, wave, lane and address,
//! and the faulting instruction writes nothing, not even its in-bounds lanes.

use simt::core::{Error, Fault, FaultKind, LaunchConfig, Program, Stats};
use simt::simt_kernel;

simt_kernel! {
    kernel global_atomic(words: &mut [u32]) {
        global_atomic_add_u32 words[global_id], 1
    }

    kernel global_atomic_bytes(words: &mut [u32]) {
        vreg j;
        v_mul_u32 j, lane_id, 2
        global_atomic_or words.bytes[j], 1
    }

    kernel lds_atomic(out: &mut [u32]) {
        lds cell: [u32; 16];
        vreg i, o;
        v_add_u32 i, lane_id, 8
        lds_atomic_cmpswap o, cell[i], 0, 1
        global_store out[global_id], o
    }

    kernel wide_load(x: &[u32], out: &mut [u32]) {
        vreg q0, q1, q2, q3, i;
        v_mul_u32 i, global_id, 4
        global_load_x4 [q0, q1, q2, q3], x[i]
        global_store out[global_id], q3
    }

    kernel wide_lds_store(out: &mut [u32]) {
        lds tile: [u32; 4 * 20];
        vreg q0, q1, i;
        v_mov q0, 1
        v_mov q1, 2
        v_mul_u32 i, lane_id, 2
        lds_store_x2 tile[i + 2 * 20], [q0, q1]
        global_store out[global_id], q0
    }

    kernel wide_store_bytes(out: &mut [u32]) {
        vreg q0, q1, k;
        v_mov q0, 1
        v_mov q1, 2
        v_mul_u32 k, lane_id, 8
        v_add_u32 k, k, 2
        global_store_x2 out.bytes[k], [q0, q1]
    }
}

fn fault(result: Result<Stats, Error>) -> Fault {
    match result {
        Err(Error::Fault(f)) => *f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// The 1-based line of this file that holds `text` (once).
fn line_of(text: &str) -> u32 {
    let src = include_str!("memory_faults.rs");
    let lines: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(text))
        .map(|(n, _)| n + 1)
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    lines[0] as u32
}

/// Checks where `f` happened: the instruction whose source line holds `text`.
fn at(f: &Fault, program: &Program, text: &str, workgroup: u32, wave: u32, lane: u32) {
    let line = line_of(text);
    assert_eq!(f.loc.line, line, "{f}");
    assert_eq!(program.locs[f.inst as usize].line, line, "{f}");
    assert!(f.file.ends_with("memory_faults.rs"), "{}", f.file);
    assert_eq!(
        (f.workgroup, f.wave, f.lane),
        ([workgroup, 0, 0], wave, Some(lane)),
        "{f}"
    );
    let message = f.to_string();
    assert!(
        message.contains(&format!("memory_faults.rs:{line}:"))
            && message.contains(&format!("lane {lane}")),
        "{message}"
    );
}

#[test]
fn a_global_atomic_past_the_buffer_faults_and_writes_nothing() {
    for (width, wave, lane) in [(32, 1, 8), (64, 0, 40)] {
        // 64 items on a 40-word buffer: item 40 is lane 8 of wave 1 at wave32,
        // lane 40 of wave 0 at wave64.
        let mut words = vec![0u32; 40];
        let config = LaunchConfig::new(1, 64).wave_width(width);
        let f = fault(global_atomic::launch(&config, &mut words));
        at(
            &f,
            &global_atomic::PROGRAM,
            "global_atomic_add_u32 words",
            0,
            wave,
            lane,
        );
        // The buffer is the first, at address 0: byte 4 x 40.
        assert_eq!(f.address, Some(160));
        assert_eq!(
            f.kind,
            FaultKind::GlobalOutOfBounds {
                access: "atomic",
                buffer: "words".into(),
                index: 40,
                offset: 160,
                size: 4,
                len: 160,
            }
        );
        // At wave32 wave 0 finished; wave 1's in-bounds lanes 0-7 (words
        // 32-39) did not add.
        let done = if width == 32 { 32 } else { 0 };
        let want: Vec<u32> = (0..40).map(|k| u32::from(k < done)).collect();
        assert_eq!(words, want, "wave{width}");
    }
}

#[test]
fn a_misaligned_global_atomic_faults() {
    for width in [32, 64] {
        let mut words = vec![0u32; 64];
        let config = LaunchConfig::new(1, 32).wave_width(width);
        let f = fault(global_atomic_bytes::launch(&config, &mut words));
        // Byte offset 2 x lane: lane 1 is the first not on a word.
        at(
            &f,
            &global_atomic_bytes::PROGRAM,
            "global_atomic_or words",
            0,
            0,
            1,
        );
        assert_eq!(f.address, Some(2));
        assert_eq!(
            f.kind,
            FaultKind::GlobalMisaligned {
                access: "atomic",
                buffer: "words".into(),
                offset: 2,
                size: 4
            }
        );
        assert_eq!(words, vec![0u32; 64]);
    }
}

#[test]
fn an_lds_compare_exchange_past_the_array_faults() {
    for width in [32, 64] {
        let mut out = vec![7u32; 32];
        let config = LaunchConfig::new(1, 32).wave_width(width);
        let f = fault(lds_atomic::launch(&config, &mut out));
        // Index lane + 8 on 16 words: lane 8 reads word 16, byte 64.
        at(&f, &lds_atomic::PROGRAM, "lds_atomic_cmpswap o", 0, 0, 8);
        assert_eq!(f.address, Some(64));
        assert_eq!(
            f.kind,
            FaultKind::LdsOutOfBounds {
                access: "atomic",
                array: "cell".into(),
                index: 16,
                offset: 64,
                size: 4,
                len: 64,
            }
        );
        assert_eq!(out, vec![7u32; 32]);
    }
}

#[test]
fn a_wide_load_whose_span_runs_past_the_buffer_faults() {
    for (width, wave, lane) in [(32, 1, 7), (64, 0, 39)] {
        // 158 words: item 39's span, words 156-159, ends two past the end,
        // while its first word is inside.
        let x = vec![1u32; 158];
        let mut out = vec![0u32; 64];
        let config = LaunchConfig::new(1, 64).wave_width(width);
        let f = fault(wide_load::launch(&config, &x, &mut out));
        at(&f, &wide_load::PROGRAM, "global_load_x4", 0, wave, lane);
        // `x` is the first buffer: byte 4 x 156.
        assert_eq!(f.address, Some(624));
        assert_eq!(
            f.kind,
            FaultKind::GlobalOutOfBounds {
                access: "load",
                buffer: "x".into(),
                index: 156,
                offset: 624,
                size: 16,
                len: 632,
            }
        );
        let done = if width == 32 { 32 } else { 0 };
        let want: Vec<u32> = (0..64).map(|k| u32::from(k < done)).collect();
        assert_eq!(out, want, "wave{width}");
    }
}

#[test]
fn a_wide_lds_store_past_the_array_faults() {
    for width in [32, 64] {
        let mut out = vec![0u32; 32];
        let config = LaunchConfig::new(1, 32).wave_width(width);
        let f = fault(wide_lds_store::launch(&config, &mut out));
        // Elements 2 x lane + 40 of 80: lane 20 starts at element 80, byte 320.
        at(&f, &wide_lds_store::PROGRAM, "lds_store_x2", 0, 0, 20);
        assert_eq!(f.address, Some(320));
        assert_eq!(
            f.kind,
            FaultKind::LdsOutOfBounds {
                access: "store",
                array: "tile".into(),
                index: 80,
                offset: 320,
                size: 8,
                len: 320,
            }
        );
        assert_eq!(out, vec![0u32; 32]);
    }
}

#[test]
fn a_misaligned_wide_store_faults() {
    for width in [32, 64] {
        let mut out = vec![0u32; 64];
        let config = LaunchConfig::new(1, 32).wave_width(width);
        let f = fault(wide_store_bytes::launch(&config, &mut out));
        // Byte offset 8 x lane + 2: lane 0 is already off a word.
        at(&f, &wide_store_bytes::PROGRAM, "global_store_x2", 0, 0, 0);
        assert_eq!(f.address, Some(2));
        // The size a misaligned wide access reports is left out: the alignment
        // rule of wide accesses (element or whole span) is being settled.
        assert!(
            matches!(
                &f.kind,
                FaultKind::GlobalMisaligned { access: "store", buffer, offset: 2, .. } if buffer == "out"
            ),
            "{:?}",
            f.kind
        );
        assert_eq!(out, vec![0u32; 64]);
    }
}
