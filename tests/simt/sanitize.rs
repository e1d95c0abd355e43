//! The sanitizers: kernels built to have each bug are caught with the right
//! lines, and their fixed versions have no finding.

use simt::core::{Finding, FindingKind, LaneOrder, LaunchConfig, RaceClass, Scope, Space, Stats};
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
    /// Each work-item stores its value, then reads its partner's `half`
    /// work-items away (in the other wave when `half` is the wave width):
    /// without a barrier between them.
    kernel exchange_without_barrier(x: &[u32], out: &mut [u32], half: u32) {
        lds tile: [u32; 128];
        vreg v, partner;
        global_load v, x[global_id]
        lds_store tile[local_id], v // store: exchange_without_barrier
        v_xor partner, local_id, half
        lds_load v, tile[partner] // load: exchange_without_barrier
        global_store out[global_id], v
    }

    /// The same, with the barrier.
    kernel exchange_with_barrier(x: &[u32], out: &mut [u32], half: u32) {
        lds tile: [u32; 128];
        vreg v, partner;
        global_load v, x[global_id]
        lds_store tile[local_id], v
        barrier
        v_xor partner, local_id, half
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

/// Both orders of the lanes of a wave: each test runs under both, and
/// finds the same, but for the races between lanes of one wave that
/// independent lanes add (which `waves` leaves out).
const LANE_ORDERS: [LaneOrder; 2] = [LaneOrder::Lockstep, LaneOrder::Independent];

fn sanitized_with(lanes: LaneOrder, groups: u32, size: u32) -> LaunchConfig {
    LaunchConfig::new(groups, size).sanitize_lanes(lanes)
}

/// The findings but the races between lanes of one wave.
fn waves(stats: &Stats) -> Vec<&Finding> {
    stats
        .findings
        .list
        .iter()
        .filter(|f| {
            !matches!(
                f.kind,
                FindingKind::Race {
                    scope: Scope::Lanes,
                    ..
                }
            )
        })
        .collect()
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

/// The one finding of kind matching `pick`, but for races between lanes of
/// one wave.
fn only_waves(stats: &Stats, pick: impl Fn(&FindingKind) -> bool) -> &Finding {
    let found: Vec<&Finding> = waves(stats).into_iter().filter(|f| pick(&f.kind)).collect();
    assert_eq!(found.len(), 1, "{:#?}", stats.findings);
    found[0]
}

#[test]
fn an_lds_exchange_without_a_barrier_races() {
    for lanes in LANE_ORDERS {
        for width in [32, 64] {
            // Two waves of `width` lanes; each work-item reads the one a wave away.
            let items = 2 * width;
            let x: Vec<u32> = (0..items).collect();
            let mut out = vec![0u32; items as usize];
            let config = sanitized_with(lanes, 1, items).wave_width(width);
            let stats = exchange_without_barrier::launch(&config, &x, &mut out, width).unwrap();
            // Wave 0 runs first: it stores its half, then reads the half wave 1
            // has not stored yet (no write to race with, so an uninitialised read);
            // wave 1 then stores over words wave 0 read, and reads wave 0's words.
            let store = line_of("lds_store tile[local_id], v // store: exchange_without_barrier");
            let load = line_of("lds_load v, tile[partner] // load: exchange_without_barrier");
            let war = only_waves(&stats, |k| {
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
            let raw = only_waves(&stats, |k| {
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
                    scope: Scope::Waves,
                    ..
                }
            ));
            // Every lane of each wave: one finding per instruction pair, `width`
            // occurrences, and 4 bytes (whole words) each.
            let w = u64::from(width);
            assert_eq!((war.occurrences, raw.occurrences), (w, w));
            assert_eq!((war.bytes, raw.bytes), (4, 4));
            let uninit = only_waves(&stats, |k| matches!(k, FindingKind::UninitLds));
            assert_eq!(
                (uninit.at.line, uninit.at.wave, uninit.occurrences),
                (load, 0, w)
            );
            assert_eq!(waves(&stats).len(), 3, "{:#?}", stats.findings);

            let fixed = exchange_with_barrier::launch(&config, &x, &mut out, width).unwrap();
            fixed.findings.assert_none();
            assert!(fixed.findings.is_empty());
            assert_eq!(out[5], 5 + width);

            // Partners in the same wave: lockstep orders them, so nothing races
            // (the loads read words other lanes of the wave already stored);
            // independent lanes race, within the wave only.
            let mut out = vec![0u32; items as usize];
            let one_wave = exchange_without_barrier::launch(&config, &x, &mut out, 1).unwrap();
            assert!(waves(&one_wave).is_empty(), "{:#?}", one_wave.findings);
            assert_eq!(
                one_wave.findings.is_empty(),
                lanes == LaneOrder::Lockstep,
                "{:#?}",
                one_wave.findings
            );
            assert_eq!(out[4], 5);
        }
    }
}

#[test]
fn workgroups_accumulating_without_atomics_race() {
    for lanes in LANE_ORDERS {
        let mut out = vec![0u32; 1];
        let config = sanitized_with(lanes, 4, 64);
        let stats = accumulate_without_atomics::launch(&config, &mut out).unwrap();
        let load = line_of("global_load v, out[0] // load: accumulate_without_atomics");
        let store = line_of("global_store out[0], v // store: accumulate_without_atomics");
        let raw = only_waves(&stats, |k| {
            matches!(
                k,
                FindingKind::Race {
                    class: RaceClass::ReadAfterWrite,
                    space: Space::Global,
                    same_value: false,
                    ..
                }
            )
        });
        assert!(matches!(
            raw.kind,
            FindingKind::Race {
                scope: Scope::Workgroups,
                ..
            }
        ));
        // Groups 1, 2 and 3 each read what the group before stored; group 0
        // stored 0 + 0 into the 0 already there, so group 1's read of it is a
        // minor finding (whichever runs first, it reads 0), and groups 2 and 3
        // make the major one.
        assert_eq!(
            (raw.at.line, raw.at.workgroup, raw.occurrences),
            (load, [2, 0, 0], 2)
        );
        assert_eq!(
            raw.other.map(|o| (o.line, o.workgroup)),
            Some((store, [1, 0, 0]))
        );
        let minor = only_waves(&stats, |k| k.is_minor());
        assert!(matches!(
            minor.kind,
            FindingKind::Race {
                class: RaceClass::ReadAfterWrite,
                same_value: true,
                ..
            }
        ));
        assert_eq!((minor.at.workgroup, minor.occurrences), ([1, 0, 0], 1));
        assert_eq!(minor.other.map(|o| o.workgroup), Some([0, 0, 0]));
        let waw = only_waves(&stats, |k| {
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
}

#[test]
fn an_accumulator_read_before_it_is_set() {
    for lanes in LANE_ORDERS {
        let x = vec![1u32; 64];
        let mut out = vec![0u32; 64];
        let config = sanitized_with(lanes, 1, 64);
        let stats = accumulate_uninitialised::launch(&config, &x, &mut out).unwrap();
        let f = only_waves(&stats, |k| {
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
            Some("read of `acc` (v0) before any write")
        );
        accumulate_initialised::launch(&config, &x, &mut out)
            .unwrap()
            .findings
            .assert_none();
    }
}

#[test]
fn an_lds_word_read_before_any_store() {
    for lanes in LANE_ORDERS {
        let mut out = vec![1u32; 64];
        let stats = lds_read_before_store::launch(&sanitized_with(lanes, 1, 64), &mut out).unwrap();
        let f = only_waves(&stats, |k| matches!(k, FindingKind::UninitLds));
        assert_eq!(
            f.at.line,
            line_of("lds_load v, tile[local_id] // read: lds_read_before_store")
        );
        assert_eq!(f.occurrences, 64);
    }
}

#[test]
fn lanes_storing_one_value_are_minor_and_different_values_are_not() {
    for lanes in LANE_ORDERS {
        let mut out = vec![0u32; 2];
        let stats =
            same_and_different_values::launch(&sanitized_with(lanes, 1, 32), &mut out).unwrap();
        // Lanes of one store writing the same value to one word: no finding;
        // different values: lanes 0..16 write 0, lanes 16..32 write 1.
        let f = only_waves(&stats, |k| matches!(k, FindingKind::LanesDisagree { .. }));
        assert_eq!(
            f.at.line,
            line_of("global_store out[1], half // disagree: same_and_different_values")
        );
        assert_eq!(waves(&stats).len(), 1, "{:#?}", stats.findings);
        // Two workgroups: each stores 1 to `out[0]`: a same-value race across
        // workgroups, minor; `out[1]` gets different values: a major one.
        let mut out = vec![0u32; 2];
        let stats =
            same_and_different_values::launch(&sanitized_with(lanes, 2, 32), &mut out).unwrap();
        // (With independent lanes, each lane of workgroup 1's store is
        // checked against workgroup 0's last write: those of lanes 16..32,
        // storing its 1 again, are minor too.)
        let minor: Vec<&Finding> = stats
            .findings
            .list
            .iter()
            .filter(|f| f.kind.is_minor() && f.address == Some(0))
            .collect();
        assert_eq!(minor.len(), 1, "{:#?}", stats.findings);
        assert!(stats.findings.major().any(|f| matches!(
            f.kind,
            FindingKind::Race {
                class: RaceClass::WriteAfterWrite,
                same_value: false,
                ..
            }
        )));
    }
}

#[test]
fn findings_are_off_unless_asked_for() {
    let mut out = vec![0u32; 1];
    let stats = accumulate_without_atomics::launch(&LaunchConfig::new(4, 64), &mut out).unwrap();
    assert!(stats.findings.is_empty());
}

simt_kernel! {
    /// Lane 0 of every wave stores its wave and group ids: the last writer wins.
    kernel last_writer_wins(before: &mut [u32], out: &mut [u32]) {
        mreg first;
        vreg id;
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_mad_u32 id, group_id, 100, wave_id
            global_store before[0], 0
            global_store out[1], id // store: last_writer_wins
        endif
    }
}

#[test]
fn the_schedule_check_reports_outputs_that_depend_on_the_order() {
    use simt::core::{BufferByte, Order, Site};
    let store = line_of("global_store out[1], id // store: last_writer_wins");
    let writer = |group: u32, wave: u32| Site {
        inst: 4,
        line: store,
        workgroup: [group, 0, 0],
        wave,
        lane: 0,
    };
    // Four workgroups of four waves; the other order's last writer is its
    // last workgroup's last wave (`Order::of` gives both orders).
    for order in [Order::Reversed, Order::Shuffled(3)] {
        let (group, wave) = (order.of(4)[3] as u32, order.of(4)[3] as u32);
        let other = 100 * group + wave;
        let mut before = vec![0u32; 1];
        let mut out = vec![0u32; 2];
        let config = LaunchConfig::new(4, 128).schedule_check(Some(order));
        let stats = last_writer_wins::launch(&config, &mut before, &mut out).unwrap();
        // The buffers keep the normal order's result: group 3, wave 3 last.
        assert_eq!(out[1], 303);
        let f = only(&stats, |k| matches!(k, FindingKind::ScheduleDependent));
        // The bytes of 303 = 0x12f that differ from the other order's value.
        let differing = (0..4)
            .filter(|k| (303u32 >> (8 * k)) & 0xff != (other >> (8 * k)) & 0xff)
            .count() as u32;
        assert!(differing > 0, "{order:?} ends with group 3, wave 3 too");
        assert_eq!(f.bytes, differing, "{f}");
        assert_eq!(
            f.byte,
            Some(BufferByte {
                buffer: "out".to_owned(),
                offset: 4,
            })
        );
        assert_eq!(f.at, writer(3, 3));
        assert_eq!(f.other, Some(writer(group, wave)));
        // `out` is laid out after `before` (256-byte aligned), so its byte 4
        // is at address 0x104.
        assert_eq!(f.address, Some(0x104));
        if order == Order::Reversed {
            // 303 = 0x12f against 0: the two low bytes differ.
            assert_eq!(f.bytes, 2);
            assert_eq!(
                f.to_string(),
                format!(
                    "2 output byte(s) differ when workgroups and waves run in another order; \
                     the first, byte 4 of `out`, was last written by line {store} \
                     (workgroup [3, 0, 0], wave 3, lane 0) (in the other order by line \
                     {store} (workgroup [0, 0, 0], wave 0, lane 0)), address 0x104"
                )
            );
        }
    }
    // A race-free kernel gives the same bytes in any order.
    let x: Vec<u32> = (0..64).collect();
    let mut out = vec![0u32; 64];
    let config = LaunchConfig::new(1, 64).schedule_check(Some(Order::Reversed));
    let stats = exchange_with_barrier::launch(&config, &x, &mut out, 32).unwrap();
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

simt_kernel! {
    /// Lane 0 of each wave of each workgroup takes a turn: the first one
    /// (`wave_id + group_id == 0`) stores 5 to `out[0]`, the other an atomic
    /// add; `plain` says which of the two is the store.
    kernel global_store_and_atomic(out: &mut [u32], plain: u32) {
        vreg who;
        mreg first, mine;
        v_add_u32 who, wave_id, group_id
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_cmp_eq_u32 mine, who, plain
            if mine
                global_store out[0], 5 // store: global_store_and_atomic
            else
                global_atomic_add_u32 out[0], 1 // atomic: global_store_and_atomic
            endif
        endif
    }

    /// The same with a load for the store.
    kernel global_load_and_atomic(out: &mut [u32], plain: u32) {
        vreg who, v;
        mreg first, mine;
        v_add_u32 who, wave_id, group_id
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_cmp_eq_u32 mine, who, plain
            if mine
                global_load v, out[0] // load: global_load_and_atomic
                global_store out[1], v
            else
                global_atomic_add_u32 out[0], 1 // atomic: global_load_and_atomic
            endif
        endif
    }

    /// Lane 0 of wave 0 sets an LDS word, then lane 0 of each wave either
    /// stores (`plain`: 1) or loads (`plain`: 2) it plainly (wave `who`) or
    /// adds to it atomically (the other waves).
    kernel lds_plain_and_atomic(out: &mut [u32], who: u32, plain: u32) {
        lds t: [u32; 1];
        vreg v;
        mreg first, set, mine, store;
        v_mov v, 0
        v_cmp_eq_u32 first, lane_id, 0
        v_cmp_eq_u32 set, local_id, 0
        if set
            lds_store t[0], 9
        endif
        barrier
        s_cmp_eq_u32 store, plain, 1
        if first
            v_cmp_eq_u32 mine, wave_id, who
            if mine
                if store
                    lds_store t[0], 5 // store: lds_plain_and_atomic
                else
                    lds_load v, t[0] // load: lds_plain_and_atomic
                endif
            else
                lds_atomic_add_u32 t[0], 1 // atomic: lds_plain_and_atomic
            endif
        endif
        global_store out[global_id], v
    }

    /// The orderly version: a plain store, a barrier, atomics, a barrier, a
    /// plain load, in LDS and in a buffer.
    kernel plain_and_atomic_with_barriers(out: &mut [u32]) {
        lds t: [u32; 1];
        vreg v;
        mreg first, zero;
        v_mov v, 0
        v_cmp_eq_u32 first, lane_id, 0
        v_cmp_eq_u32 zero, wave_id, 0
        m_and zero, zero, first
        if zero
            lds_store t[0], 5
            global_store out[0], 5
        endif
        barrier
        if first
            lds_atomic_add_u32 t[0], 1
            global_atomic_add_u32 out[0], 1
        endif
        barrier
        if zero
            lds_load v, t[0]
            global_load v, out[0]
        endif
        global_store out[global_id + 1], v
    }
}

/// The race of kind `class` between the lines holding `later` and `earlier`,
/// by waves (or workgroups) `later_who` and `earlier_who`.
fn assert_race(
    stats: &Stats,
    class: RaceClass,
    space: Space,
    scope: Scope,
    (later, earlier): (&str, &str),
) {
    let f = only_waves(stats, |k| matches!(k, FindingKind::Race { .. }));
    assert_eq!(
        f.kind,
        FindingKind::Race {
            space,
            class,
            scope,
            same_value: false,
        },
        "{f}"
    );
    assert_eq!(f.at.line, line_of(later), "{f}");
    assert_eq!(f.other.map(|o| o.line), Some(line_of(earlier)), "{f}");
    assert_eq!((f.occurrences, f.bytes), (1, 4), "{f}");
    // Besides the race, at most the facts' proof of it for this launch's
    // shape, found before the launch ran, between the same two lines.
    for g in waves(stats) {
        if g != f {
            assert!(
                matches!(g.kind, FindingKind::ProvedRace { .. }),
                "{:#?}",
                stats.findings
            );
            let lines = [g.at.line, g.other.map_or(0, |o| o.line)];
            assert!(
                lines.contains(&line_of(later)) && lines.contains(&line_of(earlier)),
                "{g}"
            );
        }
    }
}

#[test]
fn a_plain_access_and_an_atomic_of_one_word_race() {
    for lanes in LANE_ORDERS {
        let store = "global_store out[0], 5 // store: global_store_and_atomic";
        let atomic = "global_atomic_add_u32 out[0], 1 // atomic: global_store_and_atomic";
        // Two waves of one workgroup, or two workgroups of one wave; the first to
        // run is turn 0.
        for (groups, scope) in [(1, Scope::Waves), (2, Scope::Workgroups)] {
            let config = sanitized_with(lanes, groups, 64 / groups);
            let mut out = vec![0u32; 2];
            let stats = global_store_and_atomic::launch(&config, &mut out, 0).unwrap();
            assert_race(
                &stats,
                RaceClass::WriteAfterWrite,
                Space::Global,
                scope,
                (atomic, store),
            );
            assert_eq!(out[0], 6);
            let stats = global_store_and_atomic::launch(&config, &mut out, 1).unwrap();
            assert_race(
                &stats,
                RaceClass::WriteAfterWrite,
                Space::Global,
                scope,
                (store, atomic),
            );
            assert_eq!(out[0], 5);

            let load = "global_load v, out[0] // load: global_load_and_atomic";
            let atomic = "global_atomic_add_u32 out[0], 1 // atomic: global_load_and_atomic";
            let mut out = vec![0u32; 2];
            let stats = global_load_and_atomic::launch(&config, &mut out, 0).unwrap();
            assert_race(
                &stats,
                RaceClass::WriteAfterRead,
                Space::Global,
                scope,
                (atomic, load),
            );
            let stats = global_load_and_atomic::launch(&config, &mut out, 1).unwrap();
            assert_race(
                &stats,
                RaceClass::ReadAfterWrite,
                Space::Global,
                scope,
                (load, atomic),
            );

            // Nobody plain: atomics do not race with each other.
            let stats = global_store_and_atomic::launch(&config, &mut out, 9).unwrap();
            assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
        }
    }
}

#[test]
fn a_plain_lds_access_and_an_atomic_of_one_word_race() {
    for lanes in LANE_ORDERS {
        let store = "lds_store t[0], 5 // store: lds_plain_and_atomic";
        let load = "lds_load v, t[0] // load: lds_plain_and_atomic";
        let atomic = "lds_atomic_add_u32 t[0], 1 // atomic: lds_plain_and_atomic";
        let config = sanitized_with(lanes, 1, 64);
        let mut out = vec![0u32; 64];
        let cases = [
            // (plain wave, store or load, class, the later line, the earlier)
            (0, 1, RaceClass::WriteAfterWrite, atomic, store),
            (1, 1, RaceClass::WriteAfterWrite, store, atomic),
            (0, 2, RaceClass::WriteAfterRead, atomic, load),
            (1, 2, RaceClass::ReadAfterWrite, load, atomic),
        ];
        for (who, plain, class, later, earlier) in cases {
            let stats = lds_plain_and_atomic::launch(&config, &mut out, who, plain).unwrap();
            assert_race(&stats, class, Space::Lds, Scope::Waves, (later, earlier));
        }
        // The load after the atomic reads 9 + 1.
        assert_eq!(out[32], 10);
        let stats = lds_plain_and_atomic::launch(&config, &mut out, 2, 1).unwrap();
        assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
    }
}

#[test]
fn plain_accesses_and_atomics_ordered_by_barriers_do_not_race() {
    for lanes in LANE_ORDERS {
        for width in [32, 64] {
            let mut out = vec![0u32; 129];
            let config = sanitized_with(lanes, 1, 128).wave_width(width);
            let stats = plain_and_atomic_with_barriers::launch(&config, &mut out).unwrap();
            assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
            // 5, then one add per wave.
            let waves = 128 / width;
            assert_eq!((out[0], out[1]), (5 + waves, 5 + waves));
        }
    }
}

simt_kernel! {
    /// Each lane stores its id, then reads its neighbour's (`lane_id ^ 1`, in
    /// its own wave): ordered by lockstep, not by independent lanes.
    kernel lane_exchange(out: &mut [u32]) {
        lds t: [u32; 128];
        vreg partner, v;
        lds_store t[local_id], local_id // store: lane_exchange
        v_xor partner, local_id, 1
        lds_load v, t[partner] // load: lane_exchange
        global_store out[global_id], v
    }

    /// The same with a wave barrier between: ordered either way.
    kernel lane_exchange_synced(out: &mut [u32]) {
        lds t: [u32; 128];
        vreg partner, v;
        lds_store t[local_id], local_id
        wave_barrier
        v_xor partner, local_id, 1
        lds_load v, t[partner]
        global_store out[global_id], v
    }

    /// A wave barrier under divergence orders only the lanes active at it:
    /// lanes 0..16 read a word of lanes 0..16 (ordered) and one of lanes 16..32
    /// (not).
    kernel partial_wave_barrier(out: &mut [u32]) {
        lds t: [u32; 32];
        vreg partner, a, b;
        mreg low;
        v_mov a, 0
        v_mov b, 0
        lds_store t[lane_id], lane_id
        v_cmp_lt_u32 low, lane_id, 16
        if low
            wave_barrier
            v_xor partner, lane_id, 1
            lds_load a, t[partner]
            v_xor partner, lane_id, 16
            lds_load b, t[partner] // load: partial_wave_barrier
        endif
        v_add_u32 a, a, b
        global_store out[lane_id], a
    }
}

#[test]
fn independent_lanes_race_where_lockstep_hides_it() {
    use simt::core::LaneOrder;
    let store = line_of("lds_store t[local_id], local_id // store: lane_exchange");
    let load = line_of("lds_load v, t[partner] // load: lane_exchange");
    for width in [32, 64] {
        let lockstep = sanitized(1, 128).wave_width(width);
        let independent = LaunchConfig::new(1, 128)
            .wave_width(width)
            .sanitize_lanes(LaneOrder::Independent);
        assert!(independent.sanitize);
        assert_eq!(lockstep.lane_order, LaneOrder::Lockstep);
        let mut out = vec![0u32; 128];
        let stats = lane_exchange::launch(&lockstep, &mut out).unwrap();
        assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
        assert_eq!((out[6], out[7]), (7, 6));

        let stats = lane_exchange::launch(&independent, &mut out).unwrap();
        let raw = only(&stats, |k| {
            matches!(
                k,
                FindingKind::Race {
                    class: RaceClass::ReadAfterWrite,
                    space: Space::Lds,
                    scope: Scope::Lanes,
                    same_value: false,
                }
            )
        });
        // Lane 0 reads what lane 1 of its wave stored: every lane of the
        // 128 work-items, once each.
        assert_eq!((raw.at.line, raw.at.wave, raw.at.lane), (load, 0, 0));
        assert_eq!(
            raw.other.map(|o| (o.line, o.wave, o.lane)),
            Some((store, 0, 1))
        );
        assert_eq!(raw.occurrences, 128);
        assert_eq!(stats.findings.list.len(), 1, "{:#?}", stats.findings);

        for config in [&lockstep, &independent] {
            let mut out = vec![0u32; 128];
            let stats = lane_exchange_synced::launch(config, &mut out).unwrap();
            assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
            assert_eq!((out[6], out[7]), (7, 6));
            // `wave_barrier` issues once per wave and does nothing else: the
            // synced kernel issues one more instruction per wave (128 items).
            let waves = u64::from(128 / width);
            let plain = lane_exchange::launch(config, &mut out).unwrap();
            assert_eq!(stats.totals.instructions, plain.totals.instructions + waves);
            assert_eq!(
                stats.totals.vector_instructions,
                plain.totals.vector_instructions
            );
        }
    }
}

#[test]
fn a_wave_barrier_under_divergence_orders_the_lanes_active_at_it() {
    use simt::core::LaneOrder;
    for width in [32, 64] {
        let config = LaunchConfig::new(1, 32)
            .wave_width(width)
            .sanitize_lanes(LaneOrder::Independent);
        let mut out = vec![0u32; 32];
        let stats = partial_wave_barrier::launch(&config, &mut out).unwrap();
        let f = only(&stats, |k| matches!(k, FindingKind::Race { .. }));
        assert_eq!(
            (f.at.line, f.at.lane, f.other.map(|o| o.lane)),
            (
                line_of("lds_load b, t[partner] // load: partial_wave_barrier"),
                0,
                Some(16)
            )
        );
        // Lanes 0..16, once each.
        assert_eq!(f.occurrences, 16);
        assert_eq!(stats.findings.list.len(), 1, "{:#?}", stats.findings);
        // Lane 3 reads lanes 2 and 19.
        assert_eq!(out[3], 2 + 19);
    }
}

simt_kernel! {
    /// Lane 0 of wave `writer` stores `value` to `flag[0]`; lane 0 of the other
    /// wave loads it.
    kernel flag_store_and_load(flag: &mut [u32], seen: &mut [u32], writer: u32, value: u32) {
        vreg v;
        mreg first, mine;
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_cmp_eq_u32 mine, wave_id, writer
            if mine
                global_store flag[0], value // store: flag_store_and_load
            else
                global_load v, flag[0] // load: flag_store_and_load
                global_store seen[0], v
            endif
        endif
    }
}

#[test]
fn a_read_against_a_write_of_the_value_already_there_is_minor() {
    for lanes in LANE_ORDERS {
        let store = line_of("global_store flag[0], value // store: flag_store_and_load");
        let load = line_of("global_load v, flag[0] // load: flag_store_and_load");
        let config = sanitized_with(lanes, 1, 64);
        // (the writing wave, the class and the later line)
        for (writer, class, later, earlier) in [
            (0, RaceClass::ReadAfterWrite, load, store),
            (1, RaceClass::WriteAfterRead, store, load),
        ] {
            for (value, same_value) in [(7, true), (8, false)] {
                let mut flag = vec![7u32];
                let mut seen = vec![0u32];
                let stats =
                    flag_store_and_load::launch(&config, &mut flag, &mut seen, writer, value)
                        .unwrap();
                let f = only_waves(&stats, |k| matches!(k, FindingKind::Race { .. }));
                assert_eq!(
                    f.kind,
                    FindingKind::Race {
                        space: Space::Global,
                        class,
                        scope: Scope::Waves,
                        same_value,
                    }
                );
                assert_eq!(f.kind.is_minor(), same_value);
                assert_eq!((f.at.line, f.other.map(|o| o.line)), (later, Some(earlier)));
                assert_eq!(waves(&stats).len(), 1, "{:#?}", stats.findings);
            }
        }
    }
}

simt_kernel! {
    /// Lane 0 of wave 0 stores `out[0]`, lane 0 of wave 1 loads it: two waves
    /// of one workgroup with no barrier between.
    kernel global_between_waves(out: &mut [u32]) {
        vreg v;
        mreg first, zero;
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_cmp_eq_u32 zero, wave_id, 0
            if zero
                global_store out[0], 3 // store: global_between_waves
            else
                global_load v, out[0] // load: global_between_waves
                global_store out[1], v
            endif
        endif
    }

    /// Lane 0 of wave 0 stores bytes 0 and 1 of `out[0]`; lane 0 of wave 1
    /// loads byte 2 (no overlap) and then the whole word.
    kernel bytes_and_a_word(out: &mut [u32]) {
        vreg v;
        mreg first, zero;
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_cmp_eq_u32 zero, wave_id, 0
            if zero
                global_store_u8 out.bytes[0], 1
                global_store_u8 out.bytes[1], 2 // store: bytes_and_a_word
            else
                global_load_u8 v, out.bytes[2]
                global_load v, out[0] // load: bytes_and_a_word
                global_store out[1], v
            endif
        endif
    }

    /// Lane 0 of every wave loads `out[0]`; lane 0 of wave `writer` then
    /// stores it.
    kernel readers_then_a_writer(out: &mut [u32], writer: u32) {
        vreg v;
        mreg first, mine;
        v_cmp_eq_u32 first, lane_id, 0
        if first
            global_load v, out[0] // load: readers_then_a_writer
            v_cmp_eq_u32 mine, wave_id, writer
            if mine
                global_store out[0], 1 // store: readers_then_a_writer
            endif
        endif
    }
}

#[test]
fn two_waves_of_one_workgroup_race_in_a_buffer() {
    for lanes in LANE_ORDERS {
        for width in [32, 64] {
            let mut out = vec![0u32; 2];
            let config = sanitized_with(lanes, 1, 2 * width).wave_width(width);
            let stats = global_between_waves::launch(&config, &mut out).unwrap();
            assert_race(
                &stats,
                RaceClass::ReadAfterWrite,
                Space::Global,
                Scope::Waves,
                (
                    "global_load v, out[0] // load: global_between_waves",
                    "global_store out[0], 3 // store: global_between_waves",
                ),
            );
            let f = only_waves(&stats, |k| matches!(k, FindingKind::Race { .. }));
            assert_eq!(
                (f.at.wave, f.other.map(|o| o.wave), f.address),
                (1, Some(0), Some(0))
            );
            assert_eq!(out[1], 3);
        }
    }
}

#[test]
fn a_byte_store_races_with_the_word_load_that_overlaps_it() {
    for lanes in LANE_ORDERS {
        for width in [32, 64] {
            let mut out = vec![0u32; 2];
            let config = sanitized_with(lanes, 1, 2 * width).wave_width(width);
            let stats = bytes_and_a_word::launch(&config, &mut out).unwrap();
            // The byte load of byte 2 touches no stored byte. The word load
            // overlaps both byte stores; the shadow merged them into one record
            // named after the newer, so the race names the store of byte 1, and
            // its bytes are the 2 both touch.
            let f = only_waves(&stats, |k| matches!(k, FindingKind::Race { .. }));
            assert_eq!(
                f.kind,
                FindingKind::Race {
                    space: Space::Global,
                    class: RaceClass::ReadAfterWrite,
                    scope: Scope::Waves,
                    same_value: false,
                }
            );
            assert_eq!(
                f.at.line,
                line_of("global_load v, out[0] // load: bytes_and_a_word")
            );
            assert_eq!(
                f.other.map(|o| o.line),
                Some(line_of(
                    "global_store_u8 out.bytes[1], 2 // store: bytes_and_a_word"
                ))
            );
            assert_eq!((f.bytes, f.address, f.occurrences), (2, Some(0), 1));
            // The facts prove, before the launch runs, the two pairs of the word
            // load with the byte stores: wave 0 of the workgroup stores the
            // bytes wave 1 loads.
            let proved: Vec<(u32, u32)> = stats
                .findings
                .list
                .iter()
                .filter(|f| matches!(f.kind, FindingKind::ProvedRace { .. }))
                .map(|f| (f.at.line, f.other.map_or(0, |o| o.line)))
                .collect();
            let store = |b| line_of(&format!("global_store_u8 out.bytes[{b}], {}", b + 1));
            assert_eq!(proved, [(f.at.line, store(0)), (f.at.line, store(1))]);
            assert_eq!(waves(&stats).len(), 3, "{:#?}", stats.findings);
            assert_eq!(out[1], 0x0201);
        }
    }
}

#[test]
fn a_writer_after_three_reader_waves_races_with_one_of_them() {
    for lanes in LANE_ORDERS {
        use simt::core::Schedule;
        let load = line_of("global_load v, out[0] // load: readers_then_a_writer");
        let store = line_of("global_store out[0], 1 // store: readers_then_a_writer");
        // Four waves read the word; the shadow keeps two readers of distinct
        // waves. The last wave writing after every wave ran (one after another):
        // waves 2 and 3 found both slots taken by waves 0 and 1, and the write
        // races with wave 0's read. Wave 0 writing after the four reads (the
        // waves taking turns): its own read is ordered before it, wave 1's is not.
        for (writer, schedule, reader) in
            [(3, Schedule::UntilBarrier, 0), (0, Schedule::RoundRobin, 1)]
        {
            for width in [32, 64] {
                let mut out = vec![0u32; 1];
                let config = sanitized_with(lanes, 1, 4 * width)
                    .wave_width(width)
                    .schedule(schedule);
                let stats = readers_then_a_writer::launch(&config, &mut out, writer).unwrap();
                let f = only_waves(&stats, |k| matches!(k, FindingKind::Race { .. }));
                assert!(matches!(
                    f.kind,
                    FindingKind::Race {
                        class: RaceClass::WriteAfterRead,
                        same_value: false,
                        ..
                    }
                ));
                assert_eq!((f.at.line, f.at.wave), (store, writer));
                assert_eq!(f.other.map(|o| (o.line, o.wave)), Some((load, reader)));
                assert_eq!(waves(&stats).len(), 1, "{:#?}", stats.findings);
            }
        }
    }
}

simt_kernel! {
    /// Workgroup 0 zeroes a counter (the value already there) and adds to it
    /// with an atomic; workgroup 1 reads it unordered with both.
    kernel zero_then_count(cnt: &mut [u32]) {
        vreg v;
        mreg first, writer;
        v_mov v, 0
        v_cmp_eq_u32 first, local_id.x, 0
        v_cmp_eq_u32 writer, group_id.x, 0
        m_and writer, writer, first
        if writer
            global_store cnt[0], 0 // zero: zero_then_count
            global_atomic_add_u32 cnt[0], 1 // count: zero_then_count
        else
            if first
                global_load v, cnt[0] // read: zero_then_count
                global_store cnt[1], v
            endif
        endif
    }

    /// Counts into an LDS word nothing zeroed: on a GPU it starts as garbage.
    kernel lds_count_unzeroed(out: &mut [u32], zero: u32) {
        lds t: [u32; 1];
        vreg v;
        mreg first, zeroing;
        s_cmp_eq_u32 zeroing, zero, 1
        v_cmp_eq_u32 first, local_id.x, 0
        m_and zeroing, zeroing, first
        if zeroing
            lds_store t[0], 0
        endif
        barrier
        lds_atomic_add_u32 t[0], 1 // count: lds_count_unzeroed
        barrier
        lds_load v, t[0]
        global_store out[global_id], v
    }
}

#[test]
fn an_atomic_after_a_same_value_store_keeps_the_read_race_major() {
    for lanes in LANE_ORDERS {
        // The store of 0 into a 0 alone would make the load's race minor; the
        // atomic between them changes what the load reads.
        let mut cnt = vec![0u32; 2];
        let stats = zero_then_count::launch(&sanitized_with(lanes, 2, 32), &mut cnt).unwrap();
        assert_race(
            &stats,
            RaceClass::ReadAfterWrite,
            Space::Global,
            Scope::Workgroups,
            (
                "global_load v, cnt[0] // read: zero_then_count",
                "global_atomic_add_u32 cnt[0], 1 // count: zero_then_count",
            ),
        );
        assert_eq!(stats.findings.major().count(), 1);
    }
}

#[test]
fn an_lds_atomic_on_a_word_nothing_wrote_is_an_uninitialised_read() {
    for lanes in LANE_ORDERS {
        for width in [32, 64] {
            let config = sanitized_with(lanes, 1, 64).wave_width(width);
            let mut out = vec![0u32; 64];
            let stats = lds_count_unzeroed::launch(&config, &mut out, 0).unwrap();
            let f = only_waves(&stats, |k| matches!(k, FindingKind::UninitLds));
            assert_eq!(
                f.at.line,
                line_of("lds_atomic_add_u32 t[0], 1 // count: lds_count_unzeroed")
            );
            assert_eq!(waves(&stats).len(), 1, "{:#?}", stats.findings);
            // The interpreter's LDS starts zeroed: 64 increments.
            assert_eq!(out, vec![64u32; 64]);
            let stats = lds_count_unzeroed::launch(&config, &mut out, 1).unwrap();
            stats.findings.assert_none();
            assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
        }
    }
}

simt_kernel! {
    /// Every work-item reads `b[0]`, then stores 5 to it: the first wave
    /// changes the word from 0 to 5, so the second wave's read sees 5 where,
    /// in the other order, it would see 0.
    kernel read_then_store_five(b: &mut [u32], out: &mut [u32]) {
        vreg v;
        global_load v, b[0] // load: read_then_store_five
        global_store b[0], 5 // store: read_then_store_five
        global_store out[global_id.x], v
    }

    /// Work-item 0 reads `b[0]`, then every work-item adds 1 to it.
    kernel read_then_count(b: &mut [u32], out: &mut [u32]) {
        vreg v;
        mreg first;
        v_mov v, 0
        v_cmp_eq_u32 first, global_id.x, 0
        if first
            global_load v, b[0] // load: read_then_count
        endif
        global_atomic_add_u32 b[0], 1 // count: read_then_count
        global_store out[global_id.x], v
    }
}

/// The launch of `run` with the sanitizer under `lanes`, and whether the
/// reversed schedule check changes an output byte.
fn sanitized_and_reversed(
    config: &LaunchConfig,
    lanes: simt::core::LaneOrder,
    run: impl Fn(&LaunchConfig) -> Stats,
) -> (Stats, bool) {
    use simt::core::Order;
    let stats = run(&config.clone().sanitize_lanes(lanes));
    let reversed = run(&config.clone().schedule_check(Some(Order::Reversed)));
    let differs = reversed
        .findings
        .list
        .iter()
        .any(|f| f.kind == FindingKind::ScheduleDependent);
    (stats, differs)
}

#[test]
fn a_read_against_a_store_repeating_the_wave_before_is_a_major_race() {
    use simt::core::LaneOrder;
    let load = line_of("global_load v, b[0] // load: read_then_store_five");
    let store = line_of("global_store b[0], 5 // store: read_then_store_five");
    for lanes in [LaneOrder::Lockstep, LaneOrder::Independent] {
        for width in [32, 64] {
            let run = |c: &LaunchConfig| {
                let (mut b, mut out) = (vec![0u32; 1], vec![0u32; 128]);
                read_then_store_five::launch(c, &mut b, &mut out).unwrap()
            };
            let config = LaunchConfig::new(1, 2 * width).wave_width(width);
            let (stats, differs) = sanitized_and_reversed(&config, lanes, run);
            assert!(differs, "the second wave's read depends on the order");
            // The second wave reads what the first stored (5, not the 0 it
            // would read first), and its store of 5 comes after the first
            // wave read 0: both races change what a read sees.
            let major: Vec<(u32, u32, RaceClass)> = stats
                .findings
                .major()
                .filter_map(|f| match f.kind {
                    FindingKind::Race {
                        class,
                        scope: Scope::Waves,
                        ..
                    } => Some((f.at.line, f.other?.line, class)),
                    _ => None,
                })
                .collect();
            assert!(
                major.contains(&(load, store, RaceClass::ReadAfterWrite)),
                "{:#?}",
                stats.findings
            );
            assert!(
                major.contains(&(store, load, RaceClass::WriteAfterRead)),
                "{:#?}",
                stats.findings
            );
            // The two stores of 5 leave 5 in either order: minor.
            assert!(stats.findings.list.iter().any(|f| f.kind
                == FindingKind::Race {
                    space: Space::Global,
                    class: RaceClass::WriteAfterWrite,
                    scope: Scope::Waves,
                    same_value: true,
                }));
        }
    }
}

#[test]
fn a_read_is_kept_against_the_atomics_of_other_waves() {
    use simt::core::LaneOrder;
    let load = line_of("global_load v, b[0] // load: read_then_count");
    let count = line_of("global_atomic_add_u32 b[0], 1 // count: read_then_count");
    for lanes in [LaneOrder::Lockstep, LaneOrder::Independent] {
        for width in [32, 64] {
            let run = |c: &LaunchConfig| {
                let (mut b, mut out) = (vec![0u32; 1], vec![0u32; 128]);
                read_then_count::launch(c, &mut b, &mut out).unwrap()
            };
            let config = LaunchConfig::new(1, 2 * width).wave_width(width);
            let (stats, differs) = sanitized_and_reversed(&config, lanes, run);
            assert!(
                differs,
                "work-item 0 reads 0 first, 64 when its wave runs last"
            );
            // With independent lanes, the other lanes of work-item 0's wave
            // race with its read too.
            let lanes_race = stats.findings.list.iter().any(|f| {
                matches!(
                    f.kind,
                    FindingKind::Race {
                        scope: Scope::Lanes,
                        ..
                    }
                )
            });
            assert_eq!(lanes_race, lanes == LaneOrder::Independent);
            let f = only(&stats, |k| {
                matches!(
                    k,
                    FindingKind::Race {
                        scope: Scope::Waves,
                        ..
                    }
                )
            });
            assert_eq!(
                f.kind,
                FindingKind::Race {
                    space: Space::Global,
                    class: RaceClass::WriteAfterRead,
                    scope: Scope::Waves,
                    same_value: false,
                }
            );
            assert_eq!((f.at.line, f.at.wave), (count, 1));
            assert_eq!(
                f.other.map(|o| (o.line, o.wave, o.lane)),
                Some((load, 0, 0))
            );
        }
    }
}

simt_kernel! {
    /// Every work-item reads a word nothing wrote and stores it back.
    kernel read_and_store_back(out: &mut [u32]) {
        lds a: [u32; 1];
        vreg v;
        lds_load v, a[0] // load: read_and_store_back
        lds_store a[0], v // store: read_and_store_back
        global_store out[global_id], v
    }
}

#[test]
fn a_never_written_word_read_and_stored_back_races_as_same_value() {
    let load = line_of("lds_load v, a[0] // load: read_and_store_back");
    for lanes in LANE_ORDERS {
        for width in [32, 64] {
            let config = sanitized_with(lanes, 1, 2 * width).wave_width(width);
            let mut out = vec![1u32; 2 * width as usize];
            let stats = read_and_store_back::launch(&config, &mut out).unwrap();
            let races: Vec<&Finding> = stats
                .findings
                .list
                .iter()
                .filter(|f| matches!(f.kind, FindingKind::Race { .. }))
                .collect();
            // The read-after-write, write-after-read and write-after-write
            // pairs between the waves (and, with independent lanes, within
            // one), every one of the value already there.
            assert!(!races.is_empty(), "{lanes:?} wave{width}");
            for f in &races {
                assert!(
                    matches!(
                        f.kind,
                        FindingKind::Race {
                            same_value: true,
                            ..
                        }
                    ),
                    "{lanes:?} wave{width}: {f:#?}"
                );
            }
            let classes: Vec<RaceClass> = races
                .iter()
                .filter_map(|f| match f.kind {
                    FindingKind::Race {
                        class,
                        scope: Scope::Waves,
                        ..
                    } => Some(class),
                    _ => None,
                })
                .collect();
            for class in [
                RaceClass::ReadAfterWrite,
                RaceClass::WriteAfterRead,
                RaceClass::WriteAfterWrite,
            ] {
                assert!(
                    classes.contains(&class),
                    "{lanes:?} wave{width}: {classes:?}"
                );
            }
            // The unwritten read is still found, on the load's line.
            let uninit: Vec<&Finding> = stats
                .findings
                .list
                .iter()
                .filter(|f| f.kind == FindingKind::UninitLds)
                .collect();
            assert_eq!(uninit.len(), 1, "{:#?}", stats.findings);
            assert_eq!(uninit[0].at.line, load);
            assert_eq!(out, vec![0; 2 * width as usize]);
        }
    }
}

simt_kernel! {
    /// Work-item 0 stores `a[3] = 0`; after a barrier every lane stores
    /// `value + lane_id * step` there and reads it back.
    kernel store_then_read_back(out: &mut [u32], value: u32, step: u32) {
        lds a: [u32; 4];
        vreg v, mine;
        mreg first;
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            lds_store a[3], 0
        endif
        barrier
        v_mad_u32 mine, lane_id, step, value
        lds_store a[3], mine
        lds_load v, a[3] // load: store_then_read_back
        global_store out[global_id.x], v
    }
}

#[test]
fn a_lane_reading_its_own_store_of_the_runs_one_value_is_same_value() {
    let load = line_of("lds_load v, a[3] // load: store_then_read_back");
    for width in [32, 64] {
        let config = LaunchConfig::new(1, width)
            .wave_width(width)
            .sanitize_lanes(LaneOrder::Independent);
        let real_reads = |stats: &Stats| {
            stats
                .findings
                .list
                .iter()
                .filter(|f| {
                    f.at.line == load
                        && matches!(
                            f.kind,
                            FindingKind::Race {
                                class: RaceClass::ReadAfterWrite,
                                same_value: false,
                                ..
                            }
                        )
                })
                .map(|f| f.occurrences)
                .sum::<u64>()
        };
        // Every lane stores 3, then reads: 3 in any lane order.
        let mut out = vec![0u32; width as usize];
        let stats = store_then_read_back::launch(&config, &mut out, 3, 0).unwrap();
        assert_eq!(real_reads(&stats), 0, "wave{width}: {:#?}", stats.findings);
        assert_eq!(out, vec![3; width as usize]);
        // Lanes storing their own values: a lane may read another's.
        let stats = store_then_read_back::launch(&config, &mut out, 3, 1).unwrap();
        assert!(real_reads(&stats) > 0, "wave{width}: {:#?}", stats.findings);
    }
}
