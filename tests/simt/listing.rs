//! The per-line listing and its hints, on small kernels built to show each cost.

use simt::core::{HintKind, LaunchConfig, Listing};
use simt::simt_kernel;

simt_kernel! {
    /// Lane l of wave w writes and reads word (l, w) of a tile whose rows are
    /// `pitch` words apart.
    kernel column(out: &mut [u32], pitch: u32) {
        lds tile: [u32; 1056];
        vreg word, v;
        v_mad_u32    word, lane_id, pitch, wave_id
        lds_store    tile[word], local_id.x
        lds_load     v, tile[word]
        global_store out[global_id.x], v
    }

    /// out[i] = x[i * stride]
    kernel strided(x: &[u32], out: &mut [u32], stride: u32) {
        vreg i, j, v;
        v_mov        i, global_id.x
        v_mul_u32    j, i, stride
        global_load  v, x[j]
        global_store out[i], v
    }

    /// Only lanes below `keep` of each wave double their value.
    kernel few_lanes(out: &mut [u32], keep: u32) {
        vreg v;
        mreg taken;
        v_mov        v, global_id.x
        v_cmp_lt_u32 taken, lane_id, keep
        if taken
            v_add_u32 v, v, v
            v_add_u32 v, v, 1
        endif
        global_store out[global_id.x], v
    }

    /// Every lane adds one to the same counter.
    kernel count_all(counter: &mut [u32]) {
        global_atomic_add_u32 counter[0], 1
    }

    /// out[i] = i, for workgroups that may leave a wave partly empty.
    kernel ids(out: &mut [u32]) {
        global_store out[global_id.x], global_id.x
    }

    /// Work-item `x` stores to word `x * pitch` of its workgroup's tile.
    kernel pitched(out: &mut [u32], pitch: u32) {
        lds tile: [u32; 2048];
        vreg word;
        v_mul_u32    word, local_id.x, pitch
        lds_store    tile[word], local_id.x
        global_store out[global_id.x], word
    }
}

/// The listing row of the first instruction whose text starts with `mnemonic`.
fn row<'l>(listing: &'l Listing, mnemonic: &str) -> &'l simt::core::Line {
    listing
        .lines
        .iter()
        .find(|l| l.text.starts_with(mnemonic))
        .unwrap_or_else(|| panic!("no line starts with {mnemonic}:\n{listing}"))
}

#[test]
fn a_column_of_an_unpadded_tile_is_a_32_way_bank_conflict() {
    let config = LaunchConfig::new(1, 256).record_worst_phases();
    let mut out = vec![0u32; 256];
    let stats = column::launch(&config, &mut out, 32).unwrap();
    let listing = stats.listing(&column::PROGRAM);
    let load = row(&listing, "lds_load");
    assert_eq!(load.text, "lds_load v, tile[word]");
    assert_eq!((load.lds_accesses, load.lds_conflict_cycles), (8, 8 * 31));
    let hint = listing.hint(load.line).expect("the load is flagged");
    assert_eq!(hint.kind, HintKind::BankConflict);
    assert!(
        hint.text.starts_with(
            "32 lanes ask bank 0 for 32 different words (32-way conflict, 31 extra cycles"
        ),
        "{}",
        hint.text
    );
    assert!(
        hint.text
            .ends_with("lanes are 128 bytes (32 words) apart, pad the pitch by one word"),
        "{}",
        hint.text
    );
    // The store costs the same for the same reason: one hint names both lines
    // (the store first, in source order), and the global store is not flagged.
    let store = row(&listing, "lds_store");
    assert_eq!(
        (hint.line, hint.also.as_slice()),
        (store.line, &[load.line][..])
    );
    assert_eq!(hint.cost, 2 * 8 * 31);
    assert_eq!(listing.hints.len(), 1, "{listing}");
    assert!(
        listing.to_string().contains(&format!(
            "line {} (and {}): 32 lanes",
            store.line, load.line
        )),
        "{listing}"
    );

    let padded = column::launch(&config, &mut out, 33).unwrap();
    let listing = padded.listing(&column::PROGRAM);
    assert!(listing.hints.is_empty(), "{listing}");
    assert_eq!(row(&listing, "lds_load").lds_conflict_cycles, 0);
}

#[test]
fn a_strided_load_is_flagged_with_its_lines_and_the_stride() {
    let config = LaunchConfig::new(1, 64).record_worst_phases();
    let x = vec![7u32; 64 * 16];
    let mut out = vec![0u32; 64];
    let stats = strided::launch(&config, &x, &mut out, 16).unwrap();
    let listing = stats.listing(&strided::PROGRAM);
    let load = row(&listing, "global_load");
    assert_eq!(load.transactions_per_access, 32.0);
    let hint = listing.hint(load.line).expect("the load is flagged");
    assert_eq!(hint.kind, HintKind::Uncoalesced);
    assert_eq!(hint.cost, 2 * 30);
    assert_eq!(
        hint.text,
        "each access touches 32.0 lines, 16.0x the minimum of 2: lanes are 64 bytes apart, \
         make consecutive lanes read consecutive elements"
    );
    // The store is coalesced: not flagged.
    assert!(listing.hint(row(&listing, "global_store").line).is_none());
    assert_eq!(listing.hints.len(), 1, "{listing}");

    let unit = strided::launch(&config, &x, &mut out, 1).unwrap();
    assert!(unit.listing(&strided::PROGRAM).hints.is_empty());
}

#[test]
fn a_branch_few_lanes_take_is_named_by_its_line() {
    let config = LaunchConfig::new(1, 64);
    let mut out = vec![0u32; 64];
    let stats = few_lanes::launch(&config, &mut out, 2).unwrap();
    let listing = stats.listing(&few_lanes::PROGRAM);
    let add = row(&listing, "v_add_u32 v, v, v");
    assert_eq!(add.avg_active_lanes, 2.0);
    assert_eq!(add.divergent_share, 1.0);
    let branch_line = row(&listing, "if taken").line;
    let hint = listing.hint(add.line).expect("the body is flagged");
    assert_eq!(hint.kind, HintKind::Divergence);
    assert_eq!(
        hint.text,
        format!(
            "2.0 of 32 lanes active on average: the branch on line {branch_line} splits the waves"
        )
    );
    // Two waves issue each of the two additions with 30 idle lanes: 60 lane
    // slots per line, two waves' worth rounded up; one hint covers both lines.
    assert_eq!(hint.cost, 4);
    assert_eq!(hint.also, [add.line + 1]);
    assert_eq!(out[1], 3);

    let all = few_lanes::launch(&config, &mut out, 32).unwrap();
    assert!(all.listing(&few_lanes::PROGRAM).hints.is_empty());
}

#[test]
fn an_atomic_every_lane_aims_at_one_address_is_flagged() {
    let config = LaunchConfig::new(1, 32);
    let mut counter = vec![0u32; 1];
    let stats = count_all::launch(&config, &mut counter).unwrap();
    assert_eq!(counter[0], 32);
    let listing = stats.listing(&count_all::PROGRAM);
    let add = row(&listing, "global_atomic_add_u32");
    assert_eq!((add.atomic_accesses, add.atomic_contention), (1, 31));
    let hint = listing.hint(add.line).expect("the atomic is flagged");
    assert_eq!(hint.kind, HintKind::AtomicContention);
    assert!(hint.text.starts_with("up to 32.0 lanes"), "{}", hint.text);
    assert!(listing.to_string().contains("atom cont"), "{listing}");
}

#[test]
fn partly_filled_waves_are_told_apart_from_divergence() {
    let mut out = vec![0u32; 40];
    let stats = ids::launch(&LaunchConfig::new(1, 40), &mut out).unwrap();
    let listing = stats.listing(&ids::PROGRAM);
    let store = row(&listing, "global_store");
    assert_eq!(store.avg_active_lanes, 20.0);
    assert_eq!(store.divergent_share, 0.0);
    let hint = listing.hint(store.line).expect("the store is flagged");
    assert_eq!(hint.kind, HintKind::PartialWaves);
    assert!(
        hint.text.starts_with("20.0 of 32 lanes active on average"),
        "{}",
        hint.text
    );
}

#[test]
fn a_traced_workgroup_records_every_issue_and_its_exec_mask() {
    let mut out = vec![0u32; 128];
    let config = LaunchConfig::new(2, 64);
    let untraced = few_lanes::launch(&config, &mut out, 2).unwrap();
    assert_eq!(untraced.trace, None);
    let traced = few_lanes::launch(&config.clone().trace_workgroup(1), &mut out, 2).unwrap();
    // Tracing changes no counter.
    assert_eq!(traced.per_instruction, untraced.per_instruction);
    let trace = traced.trace.expect("workgroup 1 ran");
    assert_eq!(
        (trace.workgroup, trace.waves, trace.truncated),
        ([1, 0, 0], 2, false)
    );
    // One workgroup's share of the launch's issues, wave 0 before wave 1.
    assert_eq!(trace.issues.len() as u64 * 2, traced.totals.instructions);
    assert!(trace.issues.windows(2).all(|p| p[0].wave <= p[1].wave));
    let add = few_lanes::PROGRAM
        .insts
        .iter()
        .position(|i| matches!(i, simt::core::Inst::VBinary { .. }))
        .unwrap();
    let adds: Vec<_> = trace
        .issues
        .iter()
        .filter(|i| i.pc as usize == add)
        .collect();
    assert_eq!(adds.len(), 2);
    assert!(adds.iter().all(|i| i.exec == 0b11), "{adds:?}");
    assert!(trace
        .issues
        .iter()
        .filter(|i| i.pc == 0)
        .all(|i| i.exec == u32::MAX as u64));
}

#[test]
fn each_memory_instruction_keeps_its_costliest_phase_when_asked() {
    let config = LaunchConfig::new(1, 64);
    let mut out = vec![0u32; 64];
    let plain = column::launch(&config, &mut out, 32).unwrap();
    assert!(plain.worst_phases.is_empty());
    let listing = plain.listing(&column::PROGRAM);
    assert!(
        listing.hints[0]
            .text
            .ends_with("(launch with `record_worst_phases()` to see the lanes and the stride)"),
        "{listing}"
    );
    let stats = column::launch(&config.record_worst_phases(), &mut out, 32).unwrap();
    // Recording changes no counter.
    assert_eq!(stats.per_instruction, plain.per_instruction);
    let load = column::PROGRAM
        .insts
        .iter()
        .position(|i| matches!(i, simt::core::Inst::LdsLoad { .. }))
        .unwrap();
    let worst = &stats.worst_phases[load];
    assert_eq!((worst.cost, worst.first_lane, worst.bytes), (31, 0, 4));
    assert_eq!(worst.active, u32::MAX as u64);
    // Wave 0's phase, the first of the two that tie: lane l at word 32 l.
    let offsets: Vec<u32> = (0..32).map(|l| l * 128).collect();
    assert_eq!(worst.offsets, offsets);
    // The ALU instructions issue no phase.
    assert!(!stats.worst_phases[0].is_recorded());
}

#[test]
fn the_table_has_one_aligned_row_per_line_in_source_order() {
    let mut out = vec![0u32; 64];
    let stats = few_lanes::launch(&LaunchConfig::new(1, 64), &mut out, 2).unwrap();
    let listing = stats.listing(&few_lanes::PROGRAM);
    let lines: Vec<u32> = listing.lines.iter().map(|l| l.line).collect();
    let mut sorted = lines.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(lines, sorted);
    // Seven instructions and the final `end`, each on its own line.
    assert_eq!(listing.lines.len(), 8);
    let text = listing.to_string();
    let table: Vec<&str> = text.lines().skip(1).take(1 + listing.lines.len()).collect();
    // Every row's instruction column starts where the header's does.
    let column = table[0].find("instruction").unwrap();
    for row in &table[1..] {
        assert!(row.len() > column, "{text}");
        assert!(row[..column - 2].ends_with("  "), "{text}");
    }
    assert!(text.contains("* v_add_u32 v, v, v"), "{text}");
    assert!(text.contains("costliest lines (*):"), "{text}");
}

#[test]
fn the_listing_prints_the_static_facts_beside_the_measured_costs() {
    // Rows 32 words apart: lane l reads word 32·l + w, all in bank w.
    let config = LaunchConfig::new(1, 256);
    let mut out = vec![0u32; 256];
    let stats = column::launch(&config, &mut out, 32).unwrap();
    let listing = stats.listing(&column::PROGRAM);
    let load = row(&listing, "lds_load");
    let store = row(&listing, "lds_store");
    // The stride is the parameter `pitch`: the fact is a condition on it. The
    // waves' words depend on `wave_id`, which the race proof does not follow.
    assert_eq!(
        load.facts,
        [
            "LDS conflicts: predicted 32-way at pitch = 32 (by the lane stride 4*pitch bytes), measured 32-way".to_owned(),
            format!("may race with line {}: not decided, left to the run-time sanitizer", store.line),
        ],
        "{listing}"
    );
    assert!(listing.to_string().contains(&load.facts[0]), "{listing}");

    // 32 lanes store 4 bytes each from a 128-byte boundary: 2 lines of 64
    // bytes (the reference model's lines and sectors).
    let mut out = vec![0u32; 128];
    let stats = ids::launch(&LaunchConfig::new(2, 64), &mut out).unwrap();
    let listing = stats.listing(&ids::PROGRAM);
    // The launch's 64 work-items a row meet the fact's assumption: it is
    // not repeated as a caveat.
    assert_eq!(
        row(&listing, "global_store").facts,
        ["global: predicted 2 lines, 2 sectors; measured 2 lines, 2 sectors"]
    );
    // Rows of 16 break it: said so, and not compared. A phase is two rows
    // storing the same 16 words (64 bytes from a 64-byte boundary).
    let stats = ids::launch(&LaunchConfig::new(2, [16, 4]), &mut out).unwrap();
    let listing = stats.listing(&ids::PROGRAM);
    assert_eq!(
        row(&listing, "global_store").facts,
        ["global: predicted 2 lines, 2 sectors; measured 1 line, 1 sector (the prediction assumes a workgroup x size a multiple of 32, which this launch's 16x4x1 workgroups are not: it does not apply)"]
    );
    // Decided for the launch's shape, the fact needs no assumption, and a
    // phase over two rows is counted with its rows placed.
    let shaped = stats.listing_with_facts(
        &ids::PROGRAM,
        &simt::core::facts(&ids::PROGRAM, Some([16, 4, 1])),
    );
    assert_eq!(
        row(&shaped, "global_store").facts[0],
        "global: predicted 1 line, 1 sector; measured 1 line, 1 sector"
    );
}

#[test]
fn a_symbolic_fact_is_stated_at_the_launch_s_arguments_with_its_form() {
    // Words `pitch` apart from an aligned base: gcd(pitch, 32) lanes share
    // a bank. At pitch 2, 2-way; at 3, conflict-free; at 32, 32-way.
    for (pitch, ways) in [(2u32, "2-way"), (3, "conflict-free"), (32, "32-way")] {
        let mut out = vec![0u32; 64];
        let stats = pitched::launch(&LaunchConfig::new(1, 64), &mut out, pitch).unwrap();
        let listing = stats.listing(&pitched::PROGRAM);
        let measured = if pitch == 3 {
            "conflict-free".to_owned()
        } else {
            ways.to_owned()
        };
        assert_eq!(
            row(&listing, "lds_store").facts[0],
            format!("LDS conflicts: predicted {ways} at pitch = {pitch} (gcd(pitch, 32)-way: the lane stride is 4*pitch bytes), measured {measured}"),
            "{listing}"
        );
    }
}

#[test]
fn a_listing_given_its_source_shows_the_source_lines() {
    let mut out = vec![0u32; 64];
    let stats = ids::launch(&LaunchConfig::new(1, 64), &mut out).unwrap();
    let mut listing = stats.listing(&ids::PROGRAM);
    assert!(!listing.has_source());
    // The macro numbers lines of this file: its own text is the source.
    let mut marked = include_str!("listing.rs").to_owned();
    marked = marked.replacen(
        "global_store out[global_id.x], global_id.x",
        "global_store out[global_id.x], global_id.x  // ids' store",
        1,
    );
    listing.set_source(&marked);
    let store = row(&listing, "global_store");
    assert_eq!(
        store.source.as_deref(),
        Some("global_store out[global_id.x], global_id.x  // ids' store")
    );
    let text = listing.to_string();
    assert!(text.contains("  source\n"), "{text}");
    assert!(text.contains("// ids' store"), "{text}");
    // Past the end of the text a row keeps no source.
    listing.set_source("one line");
    assert!(!listing.has_source());
    assert!(listing.to_string().contains("  instruction\n"));
}
