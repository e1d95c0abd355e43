//! The sanitizer's uninitialised scalar and mask register findings, at wave32
//! and wave64: reported once per wave at the reading instruction's line, and not
//! at all once the register is written first.

use simt::core::{Finding, FindingKind, LaunchConfig, Stats};
use simt::simt_kernel;

const SOURCE: &str = include_str!("uninit.rs");

fn line_of(text: &str) -> u32 {
    let found: Vec<usize> = SOURCE
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(text))
        .map(|(n, _)| n + 1)
        .collect();
    assert_eq!(found.len(), 1, "{text}");
    found[0] as u32
}

simt_kernel! {
    kernel scalar_unwritten(out: &mut [u32]) {
        sreg t, u;
        s_add_u32 u, t, 1 // read: scalar_unwritten
        global_store out[global_id], u
    }

    kernel scalar_written(out: &mut [u32]) {
        sreg t, u;
        s_mov t, 4
        s_add_u32 u, t, 1
        global_store out[global_id], u
    }

    kernel mask_unwritten(out: &mut [u32]) {
        mreg m, n;
        vreg x;
        v_mov x, 1
        v_cmp_eq_u32 n, lane_id, 0
        m_or n, n, m // read: mask_unwritten
        v_select x, n, 5, x
        global_store out[global_id], x
    }

    kernel mask_written(out: &mut [u32]) {
        mreg m, n;
        vreg x;
        v_mov x, 1
        v_cmp_eq_u32 n, lane_id, 0
        s_cmp_eq_u32 m, 0, 1
        m_or n, n, m
        v_select x, n, 5, x
        global_store out[global_id], x
    }
}

/// The one finding, of the kind `pick` accepts.
fn only(stats: &Stats, pick: impl Fn(&FindingKind) -> bool) -> &Finding {
    assert_eq!(stats.findings.list.len(), 1, "{:#?}", stats.findings);
    let f = &stats.findings.list[0];
    assert!(pick(&f.kind), "{f}");
    f
}

#[test]
fn a_scalar_register_read_before_any_write() {
    for width in [32u32, 64] {
        // 128 items: 4 waves at wave32, 2 at wave64, each reads `t` (s0) once.
        let config = LaunchConfig::new(1, 128).wave_width(width).sanitize(true);
        let mut out = vec![0u32; 128];
        let stats = scalar_unwritten::launch(&config, &mut out).unwrap();
        let f = only(&stats, |k| {
            *k == FindingKind::UninitScalarRegister { reg: 0 }
        });
        assert_eq!(
            f.at.line,
            line_of("s_add_u32 u, t, 1 // read: scalar_unwritten")
        );
        assert_eq!((f.at.workgroup, f.at.wave), ([0, 0, 0], 0));
        assert_eq!(f.occurrences, 128 / u64::from(width), "wave{width}");
        assert_eq!(
            f.to_string().split(':').next(),
            Some("read of `t` (s0) before any write")
        );
        let stats = scalar_written::launch(&config, &mut out).unwrap();
        stats.findings.assert_none();
        assert!(stats.findings.is_empty());
        assert_eq!(out, vec![5u32; 128]);
    }
}

#[test]
fn a_mask_register_read_before_any_write() {
    for width in [32u32, 64] {
        let config = LaunchConfig::new(1, 128).wave_width(width).sanitize(true);
        let mut out = vec![0u32; 128];
        let stats = mask_unwritten::launch(&config, &mut out).unwrap();
        let f = only(&stats, |k| *k == FindingKind::UninitMaskRegister { reg: 0 });
        assert_eq!(f.at.line, line_of("m_or n, n, m // read: mask_unwritten"));
        assert_eq!((f.at.workgroup, f.at.wave), ([0, 0, 0], 0));
        assert_eq!(f.occurrences, 128 / u64::from(width), "wave{width}");
        assert_eq!(
            f.to_string().split(':').next(),
            Some("read of `m` (m0) before any write")
        );
        let stats = mask_written::launch(&config, &mut out).unwrap();
        stats.findings.assert_none();
        assert!(stats.findings.is_empty());
        // Lane 0 of each wave selects 5.
        let want: Vec<u32> = (0..128)
            .map(|g| if g % width as usize == 0 { 5 } else { 1 })
            .collect();
        assert_eq!(out, want, "wave{width}");
    }
}
