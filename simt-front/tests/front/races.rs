//! `#[race_free]` on kernels whose races hide where the old proofs did not
//! look: each stated kernel is refused (a race proved, or the proof
//! refused), and the same kernel unstated races when launched at its
//! declared shape: the sanitizer reports it under both lane orders, and,
//! where waves disagree, the reversed schedule check changes its output.

use simt_core::{launch, Arg, FindingKind, LaneOrder, LaunchConfig, Order};
use simt_front::compile;

/// `src` compiled with `attrs` before `kernel`.
fn with(attrs: &str, src: &str) -> Result<simt_core::Kernel, simt_front::Diagnostics> {
    compile(&format!("{attrs}\n{src}"))
}

/// The messages of `#[race_free]`'s errors on `src` under `shape`.
fn refused(shape: &str, src: &str) -> Vec<String> {
    let e = with(&format!("#[workgroup_size({shape})]\n#[race_free]"), src)
        .expect_err("#[race_free] is refused");
    let messages: Vec<String> = e.iter().map(|d| d.message.clone()).collect();
    assert!(
        messages
            .iter()
            .all(|m| m.contains("#[race_free]") || m.starts_with("data race under")),
        "{e}"
    );
    messages
}

/// Findings of a sanitized launch of `kernel` on one workgroup of `size`
/// at `width`, under `lanes`; and whether the reversed schedule changes an
/// output byte.
fn run(
    kernel: &simt_core::Kernel,
    size: u32,
    width: u32,
    lanes: LaneOrder,
) -> (Vec<FindingKind>, bool) {
    let go = |config: LaunchConfig| {
        let mut out = vec![0u32; size as usize];
        launch(kernel, &config, &mut [Arg::buffer_mut(&mut out)]).expect("runs")
    };
    let config = LaunchConfig::new(1, size).wave_width(width);
    let found = go(config.clone().sanitize_lanes(lanes))
        .findings
        .list
        .iter()
        .map(|f| f.kind)
        .collect();
    let differs = go(config.schedule_check(Some(Order::Reversed)))
        .findings
        .list
        .iter()
        .any(|f| f.kind == FindingKind::ScheduleDependent);
    (found, differs)
}

fn races(found: &[FindingKind]) -> bool {
    found.iter().any(|k| {
        matches!(
            k,
            FindingKind::Race { .. } | FindingKind::LanesDisagree { .. }
        )
    })
}

/// A guard on a wave-dependent scalar: wave 0 stores `t[x + 1]` for every
/// `x`, wave 1 loads `t[x]`; the bounds `x >= s` and `x < s` mean one thing
/// per wave.
const WAVE_GUARD: &str = "kernel k(out: &mut [u32]) {
    lds t: [u32; 65];
    sreg s;
    vreg v;
    mreg m;
    s_mul_u32 s, wave_id, 64
    v_cmp_ge_u32 m, local_id.x, s
    if m
        lds_store t[local_id.x + 1], local_id.x
    endif
    v_cmp_lt_u32 m, local_id.x, s
    if m
        lds_load v, t[local_id.x]
        global_store out[global_id.x], v
    endif
}";

/// A loop counter in the guards, changed with no barrier in the loop: a
/// store under `x < s` in one iteration meets a load under `x >= s + 16` of
/// `t[x - 16]` in the next, by another wave.
const LOOP_GUARD: &str = "kernel k(out: &mut [u32]) {
    lds t: [u32; 64];
    sreg s, next;
    vreg v, i;
    mreg m, go;
    lds_store t[local_id.x], 0
    barrier
    s_mov s, 16
    loop
        v_cmp_lt_u32 m, local_id.x, s
        if m
            lds_store t[local_id.x], local_id.x
        endif
        s_add_u32 next, s, 16
        v_cmp_ge_u32 m, local_id.x, next
        if m
            v_sub_u32 i, local_id.x, 16
            lds_load v, t[i]
            global_store out[global_id.x], v
        endif
        s_add_u32 s, s, 16
        s_cmp_lt_u32 go, s, 64
    endloop go
}";

/// Lanes of one wave storing their ids to one word.
const ONE_WORD: &str = "kernel k(out: &mut [u32]) {
    lds a: [u32; 1];
    vreg v;
    lds_store a[0], local_id.x
    barrier
    lds_load v, a[0]
    global_store out[global_id.x], v
}";

#[test]
fn a_guard_on_a_wave_dependent_scalar_proves_nothing() {
    let messages = refused("64", WAVE_GUARD);
    // The search tries every pair of the declared shape: wave 0's lane 31
    // stores `t[32]`, which wave 1's lane 0 loads.
    assert!(
        messages
            .iter()
            .any(|m| m.contains("touch `t[32]`") || m.starts_with("data race under")),
        "{messages:?}"
    );
    let kernel = with("", WAVE_GUARD).expect("compiles unstated");
    for lanes in [LaneOrder::Lockstep, LaneOrder::Independent] {
        let (found, differs) = run(&kernel, 64, 32, lanes);
        assert!(races(&found), "{found:?}");
        assert!(differs, "wave 1 reads what wave 0 stored, or zeros first");
    }
}

#[test]
fn a_guard_on_a_loop_counter_changed_without_a_barrier_proves_nothing() {
    let messages = refused("64", LOOP_GUARD);
    assert!(
        messages
            .iter()
            .all(|m| m.starts_with("`#[race_free]` cannot be proved")),
        "{messages:?}"
    );
    let kernel = with("", LOOP_GUARD).expect("compiles unstated");
    for lanes in [LaneOrder::Lockstep, LaneOrder::Independent] {
        let (found, differs) = run(&kernel, 64, 32, lanes);
        assert!(races(&found), "{found:?}");
        assert!(
            differs,
            "wave 1 reads t[16..32] before or after wave 0 stores it"
        );
    }
}

#[test]
fn lanes_of_one_store_writing_one_word_are_a_race() {
    let messages = refused("16", ONE_WORD);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("two lanes of one wave, storing different values")),
        "{messages:?}"
    );
    // No barrier comes between two lanes of one store: the help says what can.
    let e = with("#[workgroup_size(16)]\n#[race_free]", ONE_WORD).expect_err("refused");
    let helps: Vec<&str> = e
        .iter()
        .filter_map(|d| d.help.as_ref().map(|h| h.message.as_str()))
        .collect();
    assert!(
        helps.iter().any(|h| h.contains("its own element")
            && h.contains("an atomic")
            && !h.contains("barrier")),
        "{helps:?}"
    );
    let kernel = with("", ONE_WORD).expect("compiles unstated");
    for lanes in [LaneOrder::Lockstep, LaneOrder::Independent] {
        let (found, _) = run(&kernel, 16, 32, lanes);
        assert!(
            found
                .iter()
                .any(|k| matches!(k, FindingKind::LanesDisagree { .. })),
            "{found:?}"
        );
    }
    // One value in every lane is no race: the proof holds for any lane order.
    let same = ONE_WORD.replace("lds_store a[0], local_id.x", "lds_store a[0], 7");
    with("#[workgroup_size(16)]\n#[race_free]", &same).expect("one value per word");
}

/// A proof that orders two lanes of one wave by issue is a
/// `#[race_free(lockstep)]` proof: `#[race_free]` refuses it, and a launch
/// with independent lanes of a kernel stating it is refused.
#[test]
fn a_proof_that_needs_lockstep_lanes_says_so() {
    // Lanes of wave 0 exchange words with no barrier: lane `x` stores
    // `t[x]` and loads `t[x ^ 1]`, both under `x < 32`.
    let src = "kernel k(out: &mut [u32]) {
    lds t: [u32; 64];
    vreg v, j;
    mreg m;
    v_cmp_lt_u32 m, local_id.x, 32
    if m
        lds_store t[local_id.x], local_id.x
        v_sub_u32 j, 31, local_id.x
        lds_load v, t[j]
        global_store out[global_id.x], v
    endif
}";
    let messages = refused("64", src);
    assert!(
        messages
            .iter()
            .all(|m| m.contains("proved free only when the lanes of a wave run in lockstep")),
        "{messages:?}"
    );
    let kernel =
        with("#[workgroup_size(64)]\n#[race_free(lockstep)]", src).expect("proved for lockstep");
    assert_eq!(kernel.race_free, Some(simt_core::RaceFree::Lockstep));
    let mut out = vec![0u32; 64];
    let lockstep = LaunchConfig::new(1, 64).sanitize(true);
    let stats = launch(&kernel, &lockstep, &mut [Arg::buffer_mut(&mut out)]).expect("runs");
    assert!(stats.findings.is_empty(), "{:#?}", stats.findings);
    assert_eq!(out[0], 31);
    let independent = lockstep.sanitize_lanes(LaneOrder::Independent);
    let refused = launch(&kernel, &independent, &mut [Arg::buffer_mut(&mut out)])
        .expect_err("a lockstep proof does not cover independent lanes");
    assert!(
        refused.to_string().contains("with independent lanes"),
        "{refused}"
    );
}

/// `#[uniform]` on an `if` every lane of every wave takes alike: proved where
/// the launch decides each lane's comparison, for any shape when only the
/// lane is read, and refused, with two lanes, where one splits a wave.
#[test]
fn a_uniform_contract_is_proved_where_every_lane_compares_alike() {
    let src = |cond: &str| {
        format!(
            "kernel k(out: &mut [u32]) {{
    vreg v;
    mreg m;
    v_mov v, 0
    {cond}
    #[uniform]
    if m
        v_mov v, 1
    endif
    v_mad_u32 v, local_id.y, 256, v
}}"
        )
    };
    // Every lane is below 64 at either width.
    compile(&src("v_cmp_lt_u32 m, lane_id, 64")).expect("lane_id < 64 holds in every lane");
    // Rows of 64 at wave64 (and two waves a row at wave32): a row is never
    // split, for the declared shape.
    with(
        "#[workgroup_size(64, 4)]",
        &src("v_cmp_lt_u32 m, local_id.y, 2"),
    )
    .expect("local_id.y is one per wave under the declared shape");
    let e = compile(&src("v_cmp_lt_u32 m, lane_id, 16")).expect_err("lanes 0 and 16 differ");
    assert!(
        e.iter()
            .any(|d| d.message.starts_with("`#[uniform]` does not hold")),
        "{e}"
    );
}

/// A loop with a barrier in every iteration (a tree reduction's shape):
/// each iteration's store and the next iteration's are ordered by it, so
/// `#[race_free]` holds for independent lanes too, as a launch with
/// independent lanes finds.
#[test]
fn a_barrier_in_every_iteration_orders_the_loops_accesses() {
    let src = "kernel b(out: &mut [u32]) {
    lds t: [u32; 64];
    vreg v;
    sreg k;
    mreg first, more;
    s_mov k, 0
    loop
        lds_store t[local_id.x], local_id.x
        barrier
        s_add_u32 k, k, 1
        s_cmp_lt_u32 more, k, 2
    endloop more
    v_cmp_eq_u32 first, local_id.x, 0
    if first
        lds_load v, t[0]
        global_store out[group_id.x], v
    endif
}";
    let kernel = with("#[workgroup_size(64)]\n#[race_free]", src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kernel.race_free, Some(simt_core::RaceFree::AnyLaneOrder));
    for width in [32, 64] {
        for lanes in [LaneOrder::Lockstep, LaneOrder::Independent] {
            let (found, differs) = run(&kernel, 64, width, lanes);
            assert!(!races(&found), "wave{width} {lanes:?}: {found:?}");
            assert!(!differs);
        }
    }
}

/// Addresses whose difference keeps one residue never meet: work-items
/// storing word `2 * local_id.x + start` and loading word `2 * group_id.x +
/// 16`: with an odd start the store's words are odd and the load's even in
/// every workgroup, so `#[race_free]` holds without trying workgroups (the
/// search tries workgroup 0 only, and the load reads the workgroup's id); with
/// an even start work-item 8 of workgroup 0 stores the word the others load,
/// and the kernel does not compile.
#[test]
fn addresses_of_different_parity_never_meet() {
    let src = |start: u32| {
        format!(
            "kernel p(out: &mut [u32]) {{
    lds t: [u32; 4096];
    vreg v, j, k;
    v_mad_u32 j, local_id.x, 2, {start}
    lds_store t[j], local_id.x
    v_mad_u32 k, group_id.x, 2, 16
    lds_load v, t[k]
    global_store out[global_id.x], v
}}"
        )
    };
    let odd =
        with("#[workgroup_size(64)]\n#[race_free]", &src(1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(odd.race_free, Some(simt_core::RaceFree::AnyLaneOrder));
    let even = with("#[workgroup_size(64)]\n#[race_free]", &src(0));
    assert!(
        even.is_err(),
        "an even start stores the word the load reads"
    );
    // Launched over 16 workgroups: the even start races, the odd one not.
    for (start, racing) in [(1, false), (0, true)] {
        let kernel = compile(&src(start)).unwrap_or_else(|e| panic!("{e}"));
        let mut out = vec![0u32; 16 * 64];
        let stats = launch(
            &kernel,
            &LaunchConfig::new(16, 64).sanitize(true),
            &mut [Arg::buffer_mut(&mut out)],
        )
        .expect("runs");
        let kinds: Vec<FindingKind> = stats.findings.list.iter().map(|f| f.kind).collect();
        assert_eq!(races(&kinds), racing, "start {start}: {kinds:?}");
    }
}

/// A word stored by work-item 0 holds the byte every work-item loads: the
/// word's bytes `[0, 4)` and the byte `[1, 2)` meet, so the pair is not free
/// (the overlap window of two accesses of different sizes is the first's
/// bytes less one below, the second's less one above) and `#[race_free]` is
/// refused; the sanitizer finds the race.
#[test]
fn a_word_store_and_a_byte_load_inside_it_race() {
    let src = "kernel w(out: &mut [u32]) {
    lds t: [u32; 64];
    vreg v;
    mreg first;
    v_cmp_lt_u32 first, local_id.x, 1
    if first
        lds_store t[local_id.x], 7
    endif
    lds_load_u8 v, t.bytes[1]
    global_store out[global_id.x], v
}";
    assert!(with("#[workgroup_size(64)]\n#[race_free]", src).is_err());
    let kernel = compile(src).unwrap_or_else(|e| panic!("{e}"));
    let f = simt_lang::facts::facts(kernel.program(), None);
    let pair = f
        .pairs
        .iter()
        .find(|p| p.a != p.b && matches!(p.space, simt_lang::facts::Memory::Lds(_)));
    assert!(
        pair.is_some_and(|p| !matches!(p.verdict, simt_lang::facts::Verdict::Free(_))),
        "{pair:?}"
    );
    // Two waves at wave32; one at wave64, where only independent lanes
    // leave the store and the loads unordered.
    for (width, lanes) in [(32, LaneOrder::Lockstep), (64, LaneOrder::Independent)] {
        let (found, _) = run(&kernel, 64, width, lanes);
        assert!(races(&found), "wave{width} {lanes:?}: {found:?}");
    }
}

/// Two reproducers of proofs that once held where work-items meet: a word
/// and a byte inside a later work-item's word (byte 19 of work-item 0, word
/// 16..20 of work-item 1: an overlap window taken the wrong way round for
/// accesses of different sizes), and indices whose coefficients share the
/// factor 3, which a wrapped product (`3 n` is 1 modulo 2^32 for
/// `n = 0xAAAAAAAB`) does not keep: only a power of two survives a wrap.
#[test]
fn residues_and_windows_of_different_sizes_do_not_prove_meeting_accesses_free() {
    let sizes = "kernel s(out: &mut [u32]) {
    lds t: [u32; 1024];
    vreg j, k;
    v_mul_u32 j, local_id.x, 4
    lds_store t[j], local_id.x
    v_mad_u32 k, local_id.x, 16, 19
    lds_store_u8 t.bytes[k], local_id.x
    global_store out[global_id.x], j
}";
    let wrapped = "kernel w(out: &mut [u32], n: u32) {
    lds t: [u32; 1024];
    vreg j, k;
    v_mul_u32 j, n, 3
    v_mad_u32 j, local_id.x, 6, j
    v_mad_u32 k, local_id.x, 3, 1
    lds_store t[k], local_id.x
    lds_store t[j], local_id.x
    global_store out[global_id.x], j
}";
    for src in [sizes, wrapped] {
        let kernel = compile(src).unwrap_or_else(|e| panic!("{e}"));
        let f = simt_lang::facts::facts(kernel.program(), None);
        let across = f
            .pairs
            .iter()
            .find(|p| p.a != p.b && matches!(p.space, simt_lang::facts::Memory::Lds(_)))
            .expect("the two stores are a pair");
        assert!(
            !matches!(across.verdict, simt_lang::facts::Verdict::Free(_)),
            "{src}: {across:?}"
        );
        assert!(
            with("#[workgroup_size(64)]\n#[race_free]", src).is_err(),
            "{src}"
        );
    }
    // The wrapped product's launch: every index in bounds, and the two
    // stores of work-items 0 and 1 meet.
    let kernel = compile(wrapped).unwrap_or_else(|e| panic!("{e}"));
    let mut out = vec![0u32; 64];
    let stats = launch(
        &kernel,
        &LaunchConfig::new(1, 64).wave_width(32).sanitize(true),
        &mut [Arg::buffer_mut(&mut out), Arg::U32(0xAAAA_AAAB)],
    )
    .expect("runs in bounds");
    let kinds: Vec<FindingKind> = stats.findings.list.iter().map(|f| f.kind).collect();
    assert!(races(&kinds), "{kinds:?}");
}
