//! The sanitizers: kernels built to have each bug are caught with the right
//! lines, and their fixed versions have no finding.

use simt::core::{Finding, FindingKind, LaunchConfig, RaceClass, Space, Stats};
use simt::simt_kernel;

/// The line of this constant; kernels below are found by searching the source.
const SOURCE: &str = include_str!("sanitize.rs");

/// The source line on which `text` first appears.
fn line_of(text: &str) -> u32 {
    SOURCE
        .lines()
        .position(|l| l.contains(text))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("`{text}` is not in the source"))
}

simt_kernel! {
    /// Each work-item stores its value, then reads its partner's in the other
    /// wave: without a barrier between them.
    kernel exchange_without_barrier(x: &[u32], out: &mut [u32]) {
        lds tile: [u32; 64];
        vreg v, partner;
        global_load v, x[global_id]
        lds_store tile[local_id], v // store: exchange_without_barrier
        v_xor partner, local_id, 32
        lds_load v, tile[partner] // load: exchange_without_barrier
        global_store out[global_id], v
    }

    /// The same, with the barrier.
    kernel exchange_with_barrier(x: &[u32], out: &mut [u32]) {
        lds tile: [u32; 64];
        vreg v, partner;
        global_load v, x[global_id]
        lds_store tile[local_id], v
        barrier
        v_xor partner, local_id, 32
        lds_load v, tile[partner]
        global_store out[global_id], v
    }

    /// Lane 0 of every workgroup adds its group id into `out[0]` with a plain
    /// load and store.
    kernel accumulate_without_atomics(out: &mut [u32]) {
        vreg v;
        mreg first;
        v_cmp_eq_u32 first, local_id, 0
        if first
            global_load v, out[0] // load: accumulate_without_atomics
            v_add_u32 v, v, group_id
            global_store out[0], v // store: accumulate_without_atomics
        endif
    }

    /// The same with an atomic.
    kernel accumulate_with_atomics(out: &mut [u32]) {
        mreg first;
        v_cmp_eq_u32 first, local_id, 0
        if first
            global_atomic_add_u32 out[0], group_id
        endif
    }

    /// Sums without setting the accumulator first.
    kernel accumulate_uninitialised(x: &[u32], out: &mut [u32]) {
        vreg acc, v;
        global_load v, x[global_id]
        v_add_u32 acc, acc, v // read: accumulate_uninitialised
        global_store out[global_id], acc
    }

    /// Sets it first.
    kernel accumulate_initialised(x: &[u32], out: &mut [u32]) {
        vreg acc, v;
        v_mov acc, 0
        global_load v, x[global_id]
        v_add_u32 acc, acc, v
        global_store out[global_id], acc
    }

    /// Reads an LDS word no one stored.
    kernel lds_read_before_store(out: &mut [u32]) {
        lds tile: [u32; 64];
        vreg v;
        lds_load v, tile[local_id] // read: lds_read_before_store
        global_store out[global_id], v
    }

    /// Every lane stores 1 to one flag, and two lanes store different values
    /// to one word.
    kernel same_and_different_values(out: &mut [u32]) {
        vreg half;
        global_store out[0], 1
        v_shr_u32 half, lane_id, 4
        global_store out[1], half // disagree: same_and_different_values
    }
}

fn sanitized(groups: u32, size: u32) -> LaunchConfig {
    LaunchConfig::new(groups, size).sanitize(true)
}

/// The one finding of kind matching `pick`.
fn only(stats: &Stats, pick: impl Fn(&FindingKind) -> bool) -> &Finding {
    let found: Vec<&Finding> = stats
        .findings
        .list
        .iter()
        .filter(|f| pick(&f.kind))
        .collect();
    assert_eq!(found.len(), 1, "{:#?}", stats.findings);
    found[0]
}

#[test]
fn an_lds_exchange_without_a_barrier_races() {
    let x: Vec<u32> = (0..64).collect();
    let mut out = vec![0u32; 64];
    for width in [32, 64] {
        let config = sanitized(1, 64).wave_width(width);
        let stats = exchange_without_barrier::launch(&config, &x, &mut out).unwrap();
        if width == 64 {
            // One wave: program order orders every access.
            stats.findings.assert_none();
            continue;
        }
        // Wave 0 runs first: it stores its half, then reads the half wave 1
        // has not stored yet (no write to race with, so an uninitialised read);
        // wave 1 then stores over words wave 0 read, and reads wave 0's words.
        let store = line_of("lds_store tile[local_id], v // store: exchange_without_barrier");
        let load = line_of("lds_load v, tile[partner] // load: exchange_without_barrier");
        let war = only(&stats, |k| {
            matches!(
                k,
                FindingKind::Race {
                    class: RaceClass::WriteAfterRead,
                    space: Space::Lds,
                    ..
                }
            )
        });
        assert_eq!((war.at.line, war.at.wave), (store, 1));
        assert_eq!(war.other.map(|o| (o.line, o.wave)), Some((load, 0)));
        let raw = only(&stats, |k| {
            matches!(
                k,
                FindingKind::Race {
                    class: RaceClass::ReadAfterWrite,
                    ..
                }
            )
        });
        assert_eq!((raw.at.line, raw.at.wave), (load, 1));
        assert_eq!(raw.other.map(|o| (o.line, o.wave)), Some((store, 0)));
        assert!(matches!(
            raw.kind,
            FindingKind::Race {
                across_workgroups: false,
                ..
            }
        ));
        // 32 lanes of each wave: one finding per instruction pair, 32 occurrences.
        assert_eq!((war.occurrences, raw.occurrences), (32, 32));
        let uninit = only(&stats, |k| matches!(k, FindingKind::UninitLds));
        assert_eq!((uninit.at.line, uninit.at.wave), (load, 0));

        let fixed = exchange_with_barrier::launch(&config, &x, &mut out).unwrap();
        fixed.findings.assert_none();
        assert!(fixed.findings.is_empty());
        assert_eq!(out[5], 37);
    }
}

#[test]
fn workgroups_accumulating_without_atomics_race() {
    let mut out = vec![0u32; 1];
    let config = sanitized(4, 64);
    let stats = accumulate_without_atomics::launch(&config, &mut out).unwrap();
    let load = line_of("global_load v, out[0] // load: accumulate_without_atomics");
    let store = line_of("global_store out[0], v // store: accumulate_without_atomics");
    let raw = only(&stats, |k| {
        matches!(
            k,
            FindingKind::Race {
                class: RaceClass::ReadAfterWrite,
                space: Space::Global,
                ..
            }
        )
    });
    assert!(matches!(
        raw.kind,
        FindingKind::Race {
            across_workgroups: true,
            ..
        }
    ));
    assert_eq!((raw.at.line, raw.at.workgroup), (load, [1, 0, 0]));
    assert_eq!(
        raw.other.map(|o| (o.line, o.workgroup)),
        Some((store, [0, 0, 0]))
    );
    // Groups 1, 2 and 3 each read what the group before stored.
    assert_eq!(raw.occurrences, 3);
    let waw = only(&stats, |k| {
        matches!(
            k,
            FindingKind::Race {
                class: RaceClass::WriteAfterWrite,
                ..
            }
        )
    });
    assert_eq!((waw.at.line, waw.occurrences), (store, 3));
    assert_eq!(waw.address, Some(0));

    let mut out = vec![0u32; 1];
    let fixed = accumulate_with_atomics::launch(&config, &mut out).unwrap();
    fixed.findings.assert_none();
    assert_eq!(out[0], 1 + 2 + 3);
}

#[test]
fn an_accumulator_read_before_it_is_set() {
    let x = vec![1u32; 64];
    let mut out = vec![0u32; 64];
    let config = sanitized(1, 64);
    let stats = accumulate_uninitialised::launch(&config, &x, &mut out).unwrap();
    let f = only(&stats, |k| {
        matches!(k, FindingKind::UninitVectorRegister { .. })
    });
    assert_eq!(
        f.at.line,
        line_of("v_add_u32 acc, acc, v // read: accumulate_uninitialised")
    );
    // Two waves, once each.
    assert_eq!(f.occurrences, 2);
    assert_eq!(
        f.to_string().split(':').next(),
        Some("read of `v0` before any write")
    );
    accumulate_initialised::launch(&config, &x, &mut out)
        .unwrap()
        .findings
        .assert_none();
}

#[test]
fn an_lds_word_read_before_any_store() {
    let mut out = vec![1u32; 64];
    let stats = lds_read_before_store::launch(&sanitized(1, 64), &mut out).unwrap();
    let f = only(&stats, |k| matches!(k, FindingKind::UninitLds));
    assert_eq!(
        f.at.line,
        line_of("lds_load v, tile[local_id] // read: lds_read_before_store")
    );
    assert_eq!(f.occurrences, 64);
}

#[test]
fn lanes_storing_one_value_are_minor_and_different_values_are_not() {
    let mut out = vec![0u32; 2];
    let stats = same_and_different_values::launch(&sanitized(1, 32), &mut out).unwrap();
    // Lanes of one store writing the same value to one word: no finding;
    // different values: lanes 0..16 write 0, lanes 16..32 write 1.
    let f = only(&stats, |k| matches!(k, FindingKind::LanesDisagree { .. }));
    assert_eq!(
        f.at.line,
        line_of("global_store out[1], half // disagree: same_and_different_values")
    );
    assert_eq!(stats.findings.list.len(), 1, "{:#?}", stats.findings);
    // Two workgroups: each stores 1 to `out[0]`: a same-value race across
    // workgroups, minor; `out[1]` gets different values: a major one.
    let mut out = vec![0u32; 2];
    let stats = same_and_different_values::launch(&sanitized(2, 32), &mut out).unwrap();
    let minor: Vec<&Finding> = stats
        .findings
        .list
        .iter()
        .filter(|f| f.kind.is_minor())
        .collect();
    assert_eq!(minor.len(), 1, "{:#?}", stats.findings);
    assert_eq!(minor[0].address, Some(0));
    assert!(stats.findings.major().any(|f| matches!(
        f.kind,
        FindingKind::Race {
            class: RaceClass::WriteAfterWrite,
            same_value: false,
            ..
        }
    )));
}

#[test]
fn findings_are_off_unless_asked_for() {
    let mut out = vec![0u32; 1];
    let stats = accumulate_without_atomics::launch(&LaunchConfig::new(4, 64), &mut out).unwrap();
    assert!(stats.findings.is_empty());
}

simt_kernel! {
    /// Lane 0 of every wave stores its wave and group ids: the last writer wins.
    kernel last_writer_wins(out: &mut [u32]) {
        mreg first;
        vreg id;
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_mad_u32 id, group_id, 100, wave_id
            global_store out[0], id
        endif
    }
}

#[test]
fn the_schedule_check_reports_outputs_that_depend_on_the_order() {
    use simt::core::Order;
    for order in [Order::Reversed, Order::Shuffled(3)] {
        let mut out = vec![0u32; 1];
        let config = LaunchConfig::new(4, 128).schedule_check(Some(order));
        let stats = last_writer_wins::launch(&config, &mut out).unwrap();
        // The buffers keep the normal order's result: group 3, wave 3 last.
        assert_eq!(out[0], 303);
        let f = only(&stats, |k| matches!(k, FindingKind::ScheduleDependent));
        assert_eq!(f.address, Some(0));
        assert!((1..=4).contains(&f.bytes), "{f}");
    }
    // A race-free kernel gives the same bytes in any order.
    let x: Vec<u32> = (0..64).collect();
    let mut out = vec![0u32; 64];
    let config = LaunchConfig::new(1, 64).schedule_check(Some(Order::Reversed));
    let stats = exchange_with_barrier::launch(&config, &x, &mut out).unwrap();
    assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
    assert_eq!(out[5], 37);
}

/// Random LDS programs of phases separated by barriers, against a model of
/// which waves touch which words in each phase. With every barrier, a program
/// whose phases are race-free has no finding; with one barrier removed it has a
/// race exactly when the model sees a word written by one wave and touched by
/// another between the remaining barriers.
#[test]
fn removing_a_barrier_races_where_the_model_says() {
    use simt::core::{
        Axis, BinOp, ElemType, GlobalRef, Inst, LdsRef, Operand, ProgramBuilder, Special, TernOp,
        VReg,
    };
    const ITEMS: u32 = 64;
    let mut state = 0x1234_5678u64;
    let mut next = |n: u32| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % u64::from(n)) as u32
    };
    let lid = Operand::Special(Special::LocalId(Axis::X));
    let v = |n: u16| Operand::V(VReg(n));
    // Word of work-item `i` for `(a * i + b) mod 64`.
    let word = |(a, b): (u32, u32), i: u32| (a.wrapping_mul(i).wrapping_add(b)) % ITEMS;
    let (mut checked, mut racy) = (0, 0);
    for _ in 0..300 {
        // Each phase stores (a bijection, odd a: no two lanes share a word) or
        // loads, so a phase alone never races; two merged phases may.
        let phases: Vec<(bool, (u32, u32))> = (0..2 + next(3))
            .map(|_| {
                let store = next(2) == 0;
                let a = if store { 2 * next(32) + 1 } else { next(64) };
                (store, (a, next(64)))
            })
            .collect();
        let wave = |i: u32| i / 32;
        let conflict = |segment: &[(bool, (u32, u32))]| {
            let all: Vec<(u32, u32, bool)> = segment
                .iter()
                .flat_map(|&(store, f)| (0..ITEMS).map(move |i| (word(f, i), wave(i), store)))
                .collect();
            all.iter()
                .any(|&(w, x, store)| store && all.iter().any(|&(w2, y, _)| w2 == w && y != x))
        };
        assert!(phases.iter().all(|p| !conflict(std::slice::from_ref(p))));
        for removed in std::iter::once(None).chain((0..phases.len() - 1).map(Some)) {
            let mut b = ProgramBuilder::new("phases");
            let out = b.buffer_mut::<u32>("out");
            let tile = b.lds("tile", ElemType::U32, ITEMS);
            let at = |index| LdsRef::element(tile, index);
            // Every word written first, so loads never read an unwritten word.
            b.push(Inst::LdsStore {
                ty: ElemType::U32,
                dst: at(lid),
                src: lid,
            });
            b.push(Inst::Barrier);
            b.push(Inst::VUnary {
                op: simt::core::UnOp::Mov,
                dst: VReg(4),
                a: Operand::Imm(0),
            });
            for (k, &(store, (a, c))) in phases.iter().enumerate() {
                b.push(Inst::VTernary {
                    op: TernOp::MadU32,
                    dst: VReg(1),
                    a: lid,
                    b: Operand::Imm(a),
                    c: Operand::Imm(c),
                });
                b.push(Inst::VBinary {
                    op: BinOp::And,
                    dst: VReg(1),
                    a: v(1),
                    b: Operand::Imm(ITEMS - 1),
                });
                if store {
                    b.push(Inst::LdsStore {
                        ty: ElemType::U32,
                        dst: at(v(1)),
                        src: lid,
                    });
                } else {
                    b.push(Inst::LdsLoad {
                        ty: ElemType::U32,
                        dst: VReg(3),
                        src: at(v(1)),
                    });
                    b.push(Inst::VBinary {
                        op: BinOp::AddU32,
                        dst: VReg(4),
                        a: v(4),
                        b: v(3),
                    });
                }
                if k + 1 < phases.len() && removed != Some(k) {
                    b.push(Inst::Barrier);
                }
            }
            b.push(Inst::GlobalStore {
                ty: ElemType::U32,
                dst: GlobalRef::element(out, Operand::Special(Special::GlobalId(Axis::X))),
                src: v(4),
            });
            let kernel = b.build().expect("valid");
            let mut data = vec![0u32; ITEMS as usize];
            let config = LaunchConfig::new(1, ITEMS).sanitize(true);
            let stats = simt::core::launch(
                &kernel,
                &config,
                &mut [simt::core::Arg::buffer_mut(&mut data)],
            )
            .unwrap();
            let expected = match removed {
                None => false,
                Some(k) => conflict(&phases[k..k + 2]),
            };
            let found = stats
                .findings
                .list
                .iter()
                .any(|f| matches!(f.kind, FindingKind::Race { .. }));
            assert_eq!(
                found, expected,
                "phases {phases:?}, barrier {removed:?} removed: {:#?}",
                stats.findings
            );
            assert!(stats
                .findings
                .list
                .iter()
                .all(|f| matches!(f.kind, FindingKind::Race { .. })));
            checked += 1;
            racy += usize::from(expected);
        }
    }
    // Enough cases of both kinds to mean something.
    assert!(
        checked > 100 && racy > 20 && checked - racy > 50,
        "{checked} checked, {racy} racy"
    );
}
