//! What each counter is closest to in the profilers GPU programmers know:
//! Nsight Compute's metric names and rocprof's counters, and how the definitions
//! differ. The book's "What the counters mean" table (`docs/src/model/counters.md`)
//! says the same in prose;
//! the JSON carries this list so that a script can map the names.

use serde::ser::{Serialize, SerializeStruct, Serializer};

/// One counter (or ratio of counters) and its nearest profiler names.
///
/// The book's "What the counters mean" table is [`readme_table`] of these.
///
/// The texts are Markdown (names in backticks); serialized, the backticks are
/// dropped so that a script reads plain names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    /// The name in [`Counters`](simt::core::Counters) (or, for a ratio, the name of its method).
    pub counter: &'static str,
    /// What this project counts.
    pub definition: &'static str,
    /// The nearest Nsight Compute metric.
    pub nsight_compute: &'static str,
    /// The nearest rocprof counter or derived metric.
    pub rocprof: &'static str,
    /// How this project's definition differs from theirs.
    pub difference: &'static str,
}

impl Serialize for Metric {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let plain = |text: &str| text.replace('`', "");
        let mut s = serializer.serialize_struct("Metric", 5)?;
        s.serialize_field("counter", self.counter)?;
        s.serialize_field("definition", &plain(self.definition))?;
        s.serialize_field("nsight_compute", &plain(self.nsight_compute))?;
        s.serialize_field("rocprof", &plain(self.rocprof))?;
        s.serialize_field("difference", &plain(self.difference))?;
        s.end()
    }
}

const fn m(
    counter: &'static str,
    definition: &'static str,
    nsight_compute: &'static str,
    rocprof: &'static str,
    difference: &'static str,
) -> Metric {
    Metric {
        counter,
        definition,
        nsight_compute,
        rocprof,
        difference,
    }
}

/// Every counter of [`Counters`](simt::core::Counters), in declaration order, then the ratios the
/// report prints.
pub static METRICS: &[Metric] = &[
    m(
        "instructions",
        "wave instructions issued, control flow, barriers and `end` included",
        "`smsp__inst_executed.sum`",
        "`SQ_INSTS_VALU` + `SQ_INSTS_SALU` + `SQ_INSTS_LDS` + `SQ_INSTS_VMEM_RD` + `SQ_INSTS_VMEM_WR` + `SQ_INSTS_BRANCH` + ...",
        "instructions of this IR, which has structured control flow (if/else/endif, loop/endloop) and an explicit end; a real compiler emits other sequences",
    ),
    m(
        "skipped_instructions",
        "instructions a wave jumped over because no lane was active in their body",
        "none",
        "none",
        "instructions of a body no lane took; hardware branches over them and counts nothing",
    ),
    m(
        "vector_instructions",
        "vector ALU, compare, select, memory and atomic instructions issued",
        "`smsp__inst_executed.sum` less uniform and control instructions",
        "`SQ_INSTS_VALU` + `SQ_INSTS_VMEM_RD` + `SQ_INSTS_VMEM_WR` + `SQ_INSTS_LDS`",
        "vector ALU, compare, select, memory and atomic instructions, always issued with an active lane",
    ),
    m(
        "divergent_vector_instructions",
        "vector issues whose exec mask is not the wave's launch mask",
        "`smsp__sass_branch_targets_threads_divergent.sum` (related)",
        "none",
        "issues whose exec mask differs from the wave's launch mask; Nsight Compute counts divergent branches, not the instructions under them",
    ),
    m(
        "active_lanes",
        "active lanes summed over vector issues",
        "`smsp__thread_inst_executed.sum`",
        "`SQ_THREAD_CYCLES_VALU` (per lane-cycle, not per issue)",
        "active lanes summed over vector issues only; NVIDIA counts every instruction's threads",
    ),
    m(
        "barriers",
        "barrier instructions issued, once per wave",
        "`BAR.SYNC` instructions in the SASS instruction statistics",
        "`s_barrier` within `SQ_INSTS_SALU` or `SQ_INSTS_BRANCH`, depending on the generation",
        "barrier instructions issued, once per wave",
    ),
    m(
        "lds_accesses",
        "LDS phases (32 lanes by default) with an active lane",
        "`smsp__inst_executed_op_shared_ld.sum` + `smsp__inst_executed_op_shared_st.sum`",
        "`SQ_INSTS_LDS`",
        "32-lane phases with an active lane (a wave64 access is two); the profilers count instructions",
    ),
    m(
        "lds_conflict_cycles",
        "per phase, the largest number of distinct 4-byte words asked of one bank, minus one; lanes reading the same word share it",
        "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` + `_op_st.sum`",
        "`SQ_LDS_BANK_CONFLICT`",
        "per phase, the busiest bank's distinct words minus one; hardware counts stall cycles, which also depend on access width and pipeline state",
    ),
    m(
        "lds_bytes_requested",
        "active lanes times the access size, LDS",
        "`smsp__sass_data_bytes_mem_shared.sum`",
        "none (`SQ_LDS_IDX_ACTIVE`, `SQ_LDS_DIRECT_ACTIVE` count activity, not bytes)",
        "active lanes times the access size",
    ),
    m(
        "global_accesses",
        "global phases with an active lane",
        "`l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum` + `_op_st.sum`",
        "`SQ_INSTS_VMEM_RD` + `SQ_INSTS_VMEM_WR`",
        "phases of the model (32 lanes by default, a whole wave under cdna3) with an active lane; rocprof counts instructions",
    ),
    m(
        "global_transactions",
        "per phase, the distinct lines touched (64 bytes by default)",
        "`l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` + `_op_st.sum` (compare with global_sectors under the nvidia model)",
        "`TCP_TOTAL_CACHE_ACCESSES_sum`",
        "per phase, the distinct lines of the model (64 bytes by default, 128 under nvidia and cdna3); Nsight Compute counts 32-byte sectors",
    ),
    m(
        "global_sectors",
        "per phase, the distinct sectors touched (32 bytes under `--model nvidia`)",
        "`l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` + `_op_st.sum`",
        "`TCP_TCC_READ_REQ_sum` + `TCP_TCC_WRITE_REQ_sum` (requests below the L1)",
        "per phase, the distinct sectors of the model; equal to the lines when the model's sectors are its lines",
    ),
    m(
        "global_bytes_requested",
        "active lanes times the access size, global",
        "`smsp__sass_data_bytes_mem_global.sum`",
        "none",
        "active lanes times the access size",
    ),
    m(
        "global_bytes_moved",
        "transactions times the line size",
        "`l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum` + `_op_st.sum`",
        "`TCP_TOTAL_CACHE_ACCESSES_sum` times the line size",
        "transactions times the model's line size",
    ),
    m(
        "l1_hit_sectors",
        "under a model with an L1, the load sectors found in the L1 of the workgroup's compute unit",
        "`l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum`",
        "`TCP_TCC_READ_REQ_sum` subtracted from `TCP_TOTAL_CACHE_ACCESSES_sum` (loads)",
        "load sectors found in the model's L1 of the workgroup's compute unit; stores and atomics bypass it",
    ),
    m(
        "l1_miss_sectors",
        "under a model with an L1, the load sectors fetched into it",
        "`l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum`",
        "`TCP_TCC_READ_REQ_sum`",
        "load sectors the model's L1 fetched",
    ),
    m(
        "dram_sectors",
        "under a model with an L1, the sectors the launch touches for the first time",
        "`dram__sectors_read.sum` + `dram__sectors_write.sum`",
        "`TCC_EA0_RDREQ_sum` + `TCC_EA0_WRREQ_sum`",
        "sectors touched for the first time in the launch: an unbounded L2, so a lower bound on DRAM traffic",
    ),
    m(
        "atomic_accesses",
        "phases of atomic instructions with an active lane (also counted as global or LDS accesses)",
        "`l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum` + `_op_red.sum`",
        "`TCC_ATOMIC_sum` (requests at the L2)",
        "phases of atomic instructions, global or LDS, with an active lane",
    ),
    m(
        "atomic_contention",
        "per atomic phase, the most active lanes aiming at one address, minus one",
        "none; related: `lts__t_sectors_op_atom.sum` per request",
        "none",
        "per atomic phase, the most active lanes aiming at one address minus one: the updates that serialize",
    ),
    m(
        "divergence_pct",
        "div %: `divergent_vector_instructions / vector_instructions`, as a percentage",
        "100 - `smsp__thread_inst_executed_per_inst_executed.pct` (related)",
        "100 - `VALUUtilization` (related)",
        "the share of vector issues whose exec mask is not the launch mask, not the share of idle lanes",
    ),
    m(
        "simd_efficiency",
        "SIMD eff: `active_lanes / vector_instructions`, average active lanes per vector issue (32 or 64 is ideal)",
        "`smsp__thread_inst_executed_per_inst_executed.ratio`",
        "`SQ_THREAD_CYCLES_VALU` / `SQ_ACTIVE_INST_VALU` (`VALUThreads`)",
        "average active lanes per vector issue, memory instructions included",
    ),
    m(
        "transactions_per_access",
        "trans/acc: `global_transactions / global_accesses`; 2 for 32 lanes reading consecutive 4-byte words, 32 when every lane hits its own line",
        "`l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio`",
        "`TCP_TOTAL_CACHE_ACCESSES_sum` / (`SQ_INSTS_VMEM_RD` + `SQ_INSTS_VMEM_WR`)",
        "lines per phase of the model, loads and stores together",
    ),
    m(
        "l1_hit_rate",
        "`l1_hit_sectors / (l1_hit_sectors + l1_miss_sectors)`",
        "`l1tex__t_sector_hit_rate.pct` / 100",
        "TCP cache hit rate (1 - `TCP_TCC_READ_REQ_sum` / `TCP_TOTAL_CACHE_ACCESSES_sum`)",
        "loads only, on the model's L1",
    ),
];

/// The book's table of the metrics (`docs/src/model/counters.md`), in Markdown.
pub fn readme_table() -> String {
    let mut out = String::from(
        "| counter | definition | closest Nsight Compute metric | closest rocprof counter | how the definitions differ |\n|---|---|---|---|---|\n",
    );
    for m in METRICS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            m.counter, m.definition, m.nsight_compute, m.rocprof, m.difference
        ));
    }
    out
}

/// The metric of a counter or ratio, by its name in [`Counters`](simt::core::Counters).
pub fn find(counter: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.counter == counter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simt::core::Counters;

    #[test]
    fn every_counter_has_a_metric_in_declaration_order() {
        let named: Vec<&str> = METRICS.iter().map(|m| m.counter).collect();
        assert_eq!(named[..Counters::NAMES.len()], Counters::NAMES);
        for m in METRICS {
            assert!(
                !m.nsight_compute.is_empty() && !m.rocprof.is_empty(),
                "{m:?}"
            );
            assert!(!m.difference.is_empty(), "{m:?}");
        }
        assert_eq!(
            find("lds_conflict_cycles").map(|m| m.rocprof),
            Some("`SQ_LDS_BANK_CONFLICT`")
        );
    }

    #[test]
    fn the_books_counter_table_is_the_list() {
        let readme = include_str!("../../docs/src/model/counters.md");
        let table = readme_table();
        assert!(
            readme.contains(&table),
            "docs/src/model/counters.md's table differs from metrics::METRICS; it should read:\n{table}"
        );
    }
}
