//! Theoretical occupancy: how many waves of one kernel a compute unit can hold at once.
//!
//! # Occupancy
//!
//! A compute unit (an NVIDIA SM, an AMD CDNA CU, an AMD RDNA WGP) keeps many waves
//! resident and switches between them to hide latency. How many fit depends on what
//! each wave and each workgroup holds for its whole life: vector registers, scalar
//! registers, LDS, a wave slot, and a workgroup slot. [`occupancy`] computes, for a
//! [`Usage`] on a [`Hardware`] description:
//!
//! - the **workgroups per unit**: the least of the per-resource [`Limits`], each in
//!   workgroups per unit, because a workgroup is placed whole or not at all;
//! - the **waves per unit** (warps per SM on NVIDIA): workgroups × waves per workgroup;
//! - the **waves per SIMD** (AMD's usual figure): waves per unit / SIMDs per unit;
//! - the **occupancy**: waves per unit / the unit's wave slots, from 0 to 1;
//! - the **limiter** ([`Limiter`]): the resource whose limit is the least.
//!
//! This is *theoretical* occupancy: what the resources allow, not what a run achieves
//! (a grid smaller than the machine, tail effects or the dispatcher can leave less).
//!
//! ## The model
//!
//! A workgroup of `n` work-items is `ceil(n / wave_width)` waves. Vector registers
//! live in one register file per SIMD (per SM sub-partition on NVIDIA), so the register
//! limit is computed per SIMD and multiplied by the SIMDs per unit: a wave holds
//! `round_up(vregs, granule)` registers of each lane, and a SIMD holds
//! `floor(file / that)` waves. The waves of a workgroup are spread over the unit's
//! SIMDs, so the unit's waves are pooled before dividing by the waves per workgroup.
//! This is what NVIDIA's occupancy calculator (`cuda_occupancy.h`,
//! `cudaOccMaxBlocksPerSMRegsLimit`) does; on AMD it assumes the dispatcher balances
//! waves over the SIMDs, which LLVM's occupancy estimates also assume. Scalar
//! registers are limited the same way where the hardware shares a scalar file per
//! SIMD. LDS is allocated per workgroup: `round_up(lds_bytes + reserved, granule)`
//! bytes out of the unit's LDS.
//!
//! A workgroup that cannot be placed on an empty unit (too many registers per lane or
//! per wave, more LDS than a workgroup may have, more waves than the unit holds, a size
//! of 0 or above the hardware's maximum) has occupancy 0, and the limiter names the
//! resource that does not fit.
//!
//! When several limits are equal, the limiter is the first of: workgroup size, wave
//! slots, workgroup slots, vector registers, scalar registers, LDS. Hardware caps come
//! before the kernel's resources because, in a tie, using fewer registers or less LDS
//! would not raise occupancy: the cap would still hold it.
//!
//! ## How simt's registers map
//!
//! - Vector registers (`v0..`) are 32-bit registers per lane: NVIDIA's registers per
//!   thread, AMD's VGPRs. On CDNA3 VGPRs and AGPRs share one file, so the count is
//!   checked against the unified limit of 512.
//! - Scalar registers (`s0..`) are 32-bit registers per wave: AMD's SGPRs. NVIDIA
//!   has no per-warp scalar file that limits occupancy (its uniform registers are a
//!   separate file the occupancy calculator does not count), so they are not counted
//!   there.
//! - Mask registers (`m0..`) hold a lane mask, which AMD keeps in SGPRs: one SGPR per
//!   mask in wave32, a pair in wave64. NVIDIA keeps them in predicate registers, which
//!   are not counted.
//! - AMD waves also hold SGPRs for the hardware's own use (VCC, and on CDNA3
//!   FLAT_SCRATCH and XNACK_MASK); [`ScalarRegisters`] adds them to every wave, as the
//!   compiler does when it reports a kernel's SGPR count. EXEC is a separate register
//!   and is not counted.
//!
//! The wave width is the hardware's, not the launch's: a simt launch in wave32 is
//! counted on CDNA3 as the wave64 it would be there.
//!
//! ## Sources
//!
//! - NVIDIA Hopper: CUDA C++ Programming Guide, "Technical Specifications per Compute
//!   Capability" (9.0), and the allocation rules of the CUDA occupancy calculator
//!   (`cuda_occupancy.h`: register allocation unit, sub-partitions, shared-memory
//!   granularity and the 1 KB reserved per block).
//! - AMD CDNA3 and RDNA3: the ROCm "GPU specifications" table (VGPR, SGPR and LDS
//!   sizes per CU), the CDNA3 and RDNA3 ISA guides, and LLVM's AMDGPU backend
//!   (`AMDGPUBaseInfo.cpp`: wave slots, allocation granules, reserved SGPRs, the
//!   workgroup barrier limit), which is what the compiler uses for its own occupancy
//!   figures. Figures that rest on LLVM alone say so beside the field.

use crate::ir::Program;
use serde::Serialize;

/// A compute unit's resources: data, one `const` per preset.
///
/// A "unit" is what a workgroup's waves must share: an SM on NVIDIA, a CU on AMD
/// CDNA, a WGP on AMD RDNA in WGP mode. A "SIMD" is what owns a register file: an SM
/// sub-partition on NVIDIA, a SIMD on AMD.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hardware {
    /// A short name for reports and for [`Hardware::by_name`].
    pub name: &'static str,
    /// What the vendor calls the unit: "SM", "CU" or "WGP".
    pub unit: &'static str,
    /// Lanes per wave (warp).
    pub wave_width: u32,
    /// SIMDs (NVIDIA: SM sub-partitions) per unit.
    pub simds_per_unit: u32,
    /// Wave slots per SIMD: the most waves a SIMD holds whatever their resources.
    pub max_waves_per_simd: u32,
    /// The most workgroups resident on a unit.
    pub max_workgroups_per_unit: u32,
    /// Whether a workgroup of a single wave is exempt from `max_workgroups_per_unit`
    /// (AMD: the limit counts barrier resources, which such a workgroup does not use).
    pub single_wave_workgroups_exempt: bool,
    /// The most work-items in a workgroup.
    pub max_workgroup_size: u32,
    /// Vector registers per lane in one SIMD's register file.
    pub vregs_per_simd_lane: u32,
    /// Vector registers are allocated to a wave in multiples of this many per lane.
    pub vreg_granule: u32,
    /// The most vector registers one lane may use.
    pub max_vregs_per_lane: u32,
    /// How scalar registers are held and limited.
    pub scalar: ScalarRegisters,
    /// Bytes of LDS (shared memory) per unit available to workgroups.
    pub lds_bytes_per_unit: u32,
    /// The most LDS bytes one workgroup may declare.
    pub max_lds_bytes_per_workgroup: u32,
    /// LDS bytes the system takes from every workgroup's allocation.
    pub lds_reserved_per_workgroup: u32,
    /// LDS is allocated to a workgroup in multiples of this many bytes.
    pub lds_granule: u32,
}

/// How a hardware holds per-wave scalar registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ScalarRegisters {
    /// No per-wave scalar register file is counted (NVIDIA).
    NotCounted,
    /// Every wave slot owns a fixed set of scalar registers, so they never limit
    /// occupancy; a kernel only has to fit in one set (AMD RDNA).
    Fixed {
        /// The most scalar registers a kernel may use per wave.
        max_per_wave: u32,
        /// Registers the hardware keeps in every wave's set besides the kernel's.
        reserved_per_wave: u32,
    },
    /// One scalar file per SIMD, shared by its waves (AMD GCN and CDNA).
    Shared {
        /// Scalar registers in one SIMD's file.
        per_simd: u32,
        /// A wave's scalar registers are allocated in multiples of this many.
        granule: u32,
        /// The most scalar registers a kernel may use per wave.
        max_per_wave: u32,
        /// Registers the hardware takes from every wave's allocation.
        reserved_per_wave: u32,
    },
}

impl Hardware {
    /// NVIDIA Hopper, H100 SXM (compute capability 9.0), with shared memory opted in to
    /// its largest size and the largest carveout.
    pub const HOPPER: Hardware = Hardware {
        name: "hopper",
        unit: "SM",
        // CUDA guide: warp size 32.
        wave_width: 32,
        // cuda_occupancy.h: 4 sub-partitions per SM (cudaOccSubPartitionsPerMultiprocessor);
        // the Hopper whitepaper shows the same four quadrants.
        simds_per_unit: 4,
        // CUDA guide, CC 9.0: 64 resident warps per SM (2048 threads), over 4 sub-partitions.
        max_waves_per_simd: 64 / 4,
        // CUDA guide, CC 9.0: 32 resident blocks per SM.
        max_workgroups_per_unit: 32,
        single_wave_workgroups_exempt: false,
        // CUDA guide: 1024 threads per block.
        max_workgroup_size: 1024,
        // CUDA guide, CC 9.0: 64K 32-bit registers per SM, split over 4 sub-partitions of
        // 32-lane warps: 65536 / 4 / 32 = 512 per lane.
        vregs_per_simd_lane: 65536 / 4 / 32,
        // cuda_occupancy.h: registers are allocated per warp in units of 256
        // (cudaOccRegAllocationGranularity), that is 256 / 32 = 8 per lane.
        vreg_granule: 256 / 32,
        // CUDA guide, CC 9.0: 255 registers per thread. (cuda_occupancy.h's
        // cudaOccRegAllocationMaxPerThread says 256 for CC 7.x and 8.x; both allocate
        // the same 8192 registers per warp.)
        max_vregs_per_lane: 255,
        scalar: ScalarRegisters::NotCounted,
        // CUDA guide, CC 9.0: 228 KB shared memory per SM (the largest carveout).
        lds_bytes_per_unit: 228 * 1024,
        // CUDA guide, CC 9.0: 227 KB per block, with the opt-in attribute
        // (cudaFuncAttributeMaxDynamicSharedMemorySize); 48 KB without it.
        max_lds_bytes_per_workgroup: 227 * 1024,
        // CUDA guide (CC 8.x and 9.0) and cuda_occupancy.h (reservedSharedMemPerBlock):
        // 1 KB of shared memory per block is reserved for system use.
        lds_reserved_per_workgroup: 1024,
        // cuda_occupancy.h: 128-byte shared-memory allocation granularity from CC 8.x
        // (cudaOccSMemAllocationGranularity); taken to hold for 9.0 too.
        lds_granule: 128,
    };

    /// AMD CDNA3, Instinct MI300X (gfx942), wave64.
    pub const CDNA3: Hardware = Hardware {
        name: "cdna3",
        unit: "CU",
        // CDNA3 ISA guide: compute waves are 64 wide.
        wave_width: 64,
        // CDNA3 ISA guide / ROCm CU description: 4 SIMDs per CU.
        simds_per_unit: 4,
        // ROCm "pipeline descriptions": 8 wave slots per SIMD on CDNA2 and later (32 per
        // CU); LLVM getMaxWavesPerEU returns 8 for gfx90a-class targets (gfx942 included).
        max_waves_per_simd: 8,
        // LLVM getMaxWorkGroupsPerCU: 16 barrier resources per CU, not used by
        // single-wave workgroups. Not stated in AMD's hardware documents.
        max_workgroups_per_unit: 16,
        single_wave_workgroups_exempt: true,
        // HIP / LLVM: 1024 work-items per workgroup.
        max_workgroup_size: 1024,
        // ROCm GPU specifications: 512 KiB VGPR file per CU, so 128 KiB per SIMD, which
        // is 128 KiB / 64 lanes / 4 bytes = 512 registers per lane (VGPRs and AGPRs
        // together; LLVM getTotalNumVGPRs agrees).
        vregs_per_simd_lane: 512 * 1024 / 4 / 64 / 4,
        // LLVM getVGPRAllocGranule: 8 for gfx90a-class targets.
        vreg_granule: 8,
        // CDNA3 ISA guide: 256 architectural VGPRs plus 256 AGPRs in one unified
        // allocation; LLVM getAddressableNumVGPRs: 512.
        max_vregs_per_lane: 512,
        scalar: ScalarRegisters::Shared {
            // ROCm GPU specifications: 12.5 KiB SGPR file per CU: 12800 / 4 SIMDs / 4
            // bytes = 800 per SIMD; LLVM getTotalNumSGPRs: 800 from GFX8 on.
            per_simd: 12800 / 4 / 4,
            // LLVM getSGPRAllocGranule: 16 from GFX8 on. Uncertain: LLVM's own
            // occupancy table (getOccupancyWithNumSGPRs) keeps 8 waves up to 100
            // SGPRs, where a granule of 16 gives 7 from 97.
            granule: 16,
            // LLVM getAddressableNumSGPRs: 102 from GFX8 on.
            max_per_wave: 102,
            // LLVM getNumExtraSGPRs: VCC (2), FLAT_SCRATCH (2) and XNACK_MASK (2); gfx942
            // has architected flat scratch, so all 6 are always counted.
            reserved_per_wave: 6,
        },
        // ROCm GPU specifications: 64 KiB LDS per CU.
        lds_bytes_per_unit: 64 * 1024,
        // CDNA3 ISA guide: a workgroup may allocate up to 64 KiB.
        max_lds_bytes_per_workgroup: 64 * 1024,
        lds_reserved_per_workgroup: 0,
        // LLVM AMDGPUUsage, kernel descriptor LDS_SIZE: GFX7 to GFX11 allocate LDS in
        // blocks of 128 dwords = 512 bytes.
        lds_granule: 128 * 4,
    };

    /// AMD RDNA3, Navi 31 (gfx1100, Radeon RX 7900 XTX), wave32, WGP mode.
    ///
    /// Wave32 is what compilers use for compute on RDNA3 by default. A wave64 preset is
    /// not given: LLVM describes the register file in wave64 as 768 registers per lane
    /// with a granule of 12, but how wave64 uses the wave slots is not documented
    /// clearly enough to state a number.
    pub const RDNA3: Hardware = Hardware {
        name: "rdna3",
        unit: "WGP",
        wave_width: 32,
        // RDNA3 ISA guide: a WGP is two CUs of two SIMD32 each. In WGP mode (the
        // default for compute) a workgroup's waves may use all four.
        simds_per_unit: 4,
        // LLVM getMaxWavesPerEU: 16 from GFX10.3 on.
        max_waves_per_simd: 16,
        // LLVM getMaxWorkGroupsPerCU: 32 barrier resources per WGP in WGP mode, not
        // used by single-wave workgroups. Not stated in AMD's hardware documents.
        max_workgroups_per_unit: 32,
        single_wave_workgroups_exempt: true,
        max_workgroup_size: 1024,
        // ROCm GPU specifications: 768 KiB VGPR file per WGP (192 KiB per SIMD on Navi
        // 31 and 32; Navi 33 has 128 KiB): 192 KiB / 32 lanes / 4 bytes = 1536 per lane.
        // LLVM getTotalNumVGPRs (1.5x VGPR feature): 1536 in wave32.
        vregs_per_simd_lane: 192 * 1024 / 32 / 4,
        // LLVM getVGPRAllocGranule (1.5x VGPR feature): 24 in wave32. Rests on LLVM alone.
        vreg_granule: 24,
        // RDNA3 ISA guide: v0..v255.
        max_vregs_per_lane: 256,
        scalar: ScalarRegisters::Fixed {
            // RDNA3 ISA guide: s0..s105; LLVM getAddressableNumSGPRs: 106 from GFX10 on.
            max_per_wave: 106,
            // VCC (VCC_LO, VCC_HI), counted with a wave's SGPRs by LLVM getNumExtraSGPRs.
            reserved_per_wave: 2,
        },
        // ROCm GPU specifications: 128 KiB LDS per WGP (shared by its two CUs).
        lds_bytes_per_unit: 128 * 1024,
        // RDNA3 ISA guide: a workgroup may allocate up to 64 KiB.
        max_lds_bytes_per_workgroup: 64 * 1024,
        lds_reserved_per_workgroup: 0,
        // Uncertain: the kernel descriptor encodes LDS_SIZE in 512-byte units on GFX11,
        // while LLVM's later LDS-granule work states that GFX10.3 and GFX11 allocate
        // 1024-byte blocks; the larger figure is used.
        lds_granule: 1024,
    };

    /// Every preset, in the order reports list them.
    pub const PRESETS: &'static [&'static Hardware] =
        &[&Hardware::HOPPER, &Hardware::CDNA3, &Hardware::RDNA3];

    /// The preset called `name` (as in [`Hardware::name`], ignoring case),
    /// or the hardware of the part or memory model of that name in the part
    /// table ([`PARTS`](crate::PARTS)), if any.
    pub fn by_name(name: &str) -> Option<&'static Hardware> {
        Self::PRESETS
            .iter()
            .copied()
            .find(|hw| hw.name.eq_ignore_ascii_case(name))
            .or_else(|| crate::PartRow::named(name).map(|row| row.hardware))
    }

    /// Wave slots per unit: the most waves it holds whatever their resources.
    pub fn max_waves_per_unit(&self) -> u32 {
        self.simds_per_unit.saturating_mul(self.max_waves_per_simd)
    }
}

/// What one kernel launch holds while resident.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Usage {
    /// Vector registers per lane (32-bit each).
    pub vregs: u32,
    /// Scalar registers per wave (32-bit each).
    pub sregs: u32,
    /// Mask registers per wave (one lane mask each).
    pub mregs: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: u32,
    /// Work-items per workgroup.
    pub workgroup_size: u32,
}

impl Usage {
    /// The resources `program` holds when launched in workgroups of `workgroup_size`
    /// work-items.
    pub fn of(program: &Program, workgroup_size: u32) -> Self {
        Usage {
            vregs: u32::from(program.vregs),
            sregs: u32::from(program.sregs),
            mregs: u32::from(program.mregs),
            lds_bytes: program.lds_bytes,
            workgroup_size,
        }
    }
}

/// The resource that limits occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Limiter {
    /// The workgroup size is 0 or above the hardware's maximum: nothing can run.
    WorkgroupSize,
    /// The unit's wave (warp) slots.
    WaveSlots,
    /// The most workgroups (blocks) a unit holds.
    WorkgroupSlots,
    /// Vector registers.
    Registers,
    /// Scalar registers.
    ScalarRegisters,
    /// LDS (shared memory).
    Lds,
}

/// Workgroups per unit that each resource allows on its own; `None` where the
/// resource sets no limit (a kernel that uses none of it, or a hardware that does not
/// count it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// `Some(0)` when the workgroup size is 0 or above the maximum.
    pub workgroup_size: Option<u32>,
    /// From the unit's wave slots.
    pub wave_slots: Option<u32>,
    /// From the most workgroups per unit.
    pub workgroup_slots: Option<u32>,
    /// From vector registers.
    pub registers: Option<u32>,
    /// From scalar registers.
    pub scalar_registers: Option<u32>,
    /// From LDS.
    pub lds: Option<u32>,
}

impl Limits {
    /// Each limit with its limiter, in tie-breaking order.
    fn in_order(&self) -> [(Limiter, Option<u32>); 6] {
        [
            (Limiter::WorkgroupSize, self.workgroup_size),
            (Limiter::WaveSlots, self.wave_slots),
            (Limiter::WorkgroupSlots, self.workgroup_slots),
            (Limiter::Registers, self.registers),
            (Limiter::ScalarRegisters, self.scalar_registers),
            (Limiter::Lds, self.lds),
        ]
    }
}

/// What the hardware allocates once granularities and reserved amounts are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Allocation {
    /// Vector registers per lane, rounded up to the granule.
    pub vregs_per_lane: u64,
    /// Scalar registers per wave: the kernel's, its masks' and the reserved ones,
    /// rounded up to the granule (a fixed set's size on RDNA; 0 where not counted).
    pub sregs_per_wave: u64,
    /// LDS bytes per workgroup, reserved bytes included, rounded up to the granule.
    pub lds_bytes_per_workgroup: u64,
}

/// The theoretical occupancy of one [`Usage`] on one [`Hardware`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Occupancy {
    /// The hardware's [`Hardware::name`].
    pub hardware: &'static str,
    /// What the hardware calls its unit ("SM", "CU", "WGP").
    pub unit: &'static str,
    /// Waves per workgroup, in the hardware's wave width.
    pub waves_per_workgroup: u32,
    /// Resident workgroups (blocks) per unit.
    pub workgroups_per_unit: u32,
    /// Resident waves (warps) per unit: warps per SM on NVIDIA.
    pub waves_per_unit: u32,
    /// Resident waves per SIMD, averaged over the unit's SIMDs: AMD's usual figure.
    pub waves_per_simd: f64,
    /// The unit's wave slots.
    pub max_waves_per_unit: u32,
    /// `waves_per_unit / max_waves_per_unit`, from 0 to 1.
    pub occupancy: f64,
    /// The resource whose limit is the least (see the module docs for ties).
    pub limited_by: Limiter,
    /// Each resource's limit, for reports.
    pub limits: Limits,
    /// What each wave and workgroup is allocated.
    pub allocation: Allocation,
}

/// The theoretical occupancy of `usage` on `hw`. Defined for every input: what cannot
/// be placed at all gives occupancy 0 and names the resource that does not fit.
pub fn occupancy(hw: &Hardware, usage: &Usage) -> Occupancy {
    let wave_width = u64::from(hw.wave_width.max(1));
    let simds = u64::from(hw.simds_per_unit);
    let max_waves_per_unit = u64::from(hw.max_waves_per_unit());
    let size_fits = usage.workgroup_size != 0 && usage.workgroup_size <= hw.max_workgroup_size;
    // An invalid size still gets limits for the other resources, computed as if it
    // were at least one wave, so a report can show them beside the zero.
    let waves_per_workgroup = u64::from(usage.workgroup_size).div_ceil(wave_width).max(1);

    let workgroups_from_waves = |waves_per_unit: u64| waves_per_unit / waves_per_workgroup;

    let vregs_per_lane = round_up(u64::from(usage.vregs), hw.vreg_granule);
    // Here and below, a resource the kernel allocates none of sets no limit: that is
    // the `None` of `checked_div`.
    let registers = if usage.vregs > hw.max_vregs_per_lane {
        Some(0)
    } else {
        u64::from(hw.vregs_per_simd_lane)
            .checked_div(vregs_per_lane)
            .map(|waves_per_simd| workgroups_from_waves(waves_per_simd * simds))
    };

    let masks_as_sregs = u64::from(usage.mregs) * u64::from(hw.wave_width.div_ceil(32));
    let kernel_sregs = u64::from(usage.sregs) + masks_as_sregs;
    let (sregs_per_wave, scalar_registers) = match hw.scalar {
        ScalarRegisters::NotCounted => (0, None),
        ScalarRegisters::Fixed {
            max_per_wave,
            reserved_per_wave,
        } => {
            let set = u64::from(max_per_wave) + u64::from(reserved_per_wave);
            let limit = (kernel_sregs > u64::from(max_per_wave)).then_some(0);
            (set, limit)
        }
        ScalarRegisters::Shared {
            per_simd,
            granule,
            max_per_wave,
            reserved_per_wave,
        } => {
            let allocated = round_up(kernel_sregs + u64::from(reserved_per_wave), granule);
            let limit = if kernel_sregs > u64::from(max_per_wave) {
                Some(0)
            } else {
                u64::from(per_simd)
                    .checked_div(allocated)
                    .map(|waves_per_simd| workgroups_from_waves(waves_per_simd * simds))
            };
            (allocated, limit)
        }
    };

    let lds_bytes_per_workgroup = round_up(
        u64::from(usage.lds_bytes) + u64::from(hw.lds_reserved_per_workgroup),
        hw.lds_granule,
    );
    let lds = if usage.lds_bytes > hw.max_lds_bytes_per_workgroup {
        Some(0)
    } else {
        u64::from(hw.lds_bytes_per_unit).checked_div(lds_bytes_per_workgroup)
    };

    let workgroup_slots = if hw.single_wave_workgroups_exempt && waves_per_workgroup == 1 {
        None
    } else {
        Some(u64::from(hw.max_workgroups_per_unit))
    };

    let limits = Limits {
        workgroup_size: (!size_fits).then_some(0),
        wave_slots: Some(saturate(workgroups_from_waves(max_waves_per_unit))),
        workgroup_slots: workgroup_slots.map(saturate),
        registers: registers.map(saturate),
        scalar_registers: scalar_registers.map(saturate),
        lds: lds.map(saturate),
    };

    // The wave-slot limit is always present, so the fallback is never taken; it keeps
    // the function total without an unwrap.
    let (limited_by, workgroups_per_unit) = limits
        .in_order()
        .into_iter()
        .filter_map(|(limiter, limit)| limit.map(|limit| (limiter, limit)))
        .fold(
            None,
            |least: Option<(Limiter, u32)>, (limiter, limit)| match least {
                Some((_, least_limit)) if least_limit <= limit => least,
                _ => Some((limiter, limit)),
            },
        )
        .unwrap_or((Limiter::WaveSlots, 0));

    let waves_per_unit = u64::from(workgroups_per_unit) * waves_per_workgroup;
    Occupancy {
        hardware: hw.name,
        unit: hw.unit,
        waves_per_workgroup: saturate(waves_per_workgroup),
        workgroups_per_unit,
        waves_per_unit: saturate(waves_per_unit),
        waves_per_simd: ratio(waves_per_unit, simds),
        max_waves_per_unit: saturate(max_waves_per_unit),
        occupancy: ratio(waves_per_unit, max_waves_per_unit),
        limited_by,
        limits,
        allocation: Allocation {
            vregs_per_lane,
            sregs_per_wave,
            lds_bytes_per_workgroup,
        },
    }
}

/// `value` rounded up to a multiple of `granule` (a granule of 0 counts as 1).
fn round_up(value: u64, granule: u32) -> u64 {
    let granule = u64::from(granule.max(1));
    value.div_ceil(granule) * granule
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// `part / whole`, or 0 for an empty whole.
fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn usage(vregs: u32, sregs: u32, lds_bytes: u32, workgroup_size: u32) -> Usage {
        Usage {
            vregs,
            sregs,
            mregs: 0,
            lds_bytes,
            workgroup_size,
        }
    }

    /// Checks the headline numbers of one case.
    fn check(occ: &Occupancy, workgroups: u32, waves: u32, limiter: Limiter) {
        assert_eq!(occ.workgroups_per_unit, workgroups, "{occ:#?}");
        assert_eq!(occ.waves_per_unit, waves, "{occ:#?}");
        assert_eq!(occ.limited_by, limiter, "{occ:#?}");
        let expected = f64::from(waves) / f64::from(occ.max_waves_per_unit);
        assert!((occ.occupancy - expected).abs() < 1e-12, "{occ:#?}");
    }

    #[test]
    fn presets_are_found_by_name() {
        assert_eq!(Hardware::by_name("Hopper"), Some(&Hardware::HOPPER));
        assert_eq!(Hardware::by_name("cdna3"), Some(&Hardware::CDNA3));
        assert_eq!(Hardware::by_name("rdna3"), Some(&Hardware::RDNA3));
        assert_eq!(Hardware::by_name("volta"), None);
        assert_eq!(Hardware::HOPPER.max_waves_per_unit(), 64);
        assert_eq!(Hardware::CDNA3.max_waves_per_unit(), 32);
        assert_eq!(Hardware::RDNA3.max_waves_per_unit(), 64);
    }

    #[test]
    fn hopper_register_heavy() {
        let hw = &Hardware::HOPPER;
        // 128 regs x 32 lanes = 4096 per warp (a multiple of 256); a sub-partition's
        // 16384 hold 4 warps, the SM 16; a 256-thread block is 8 warps: 2 blocks.
        let occ = occupancy(hw, &usage(128, 0, 0, 256));
        check(&occ, 2, 16, Limiter::Registers);
        assert_eq!(occ.occupancy, 0.25); // 16 / 64 warps
        assert_eq!(occ.limits.registers, Some(2));
        assert_eq!(occ.limits.wave_slots, Some(8)); // 64 / 8
        assert_eq!(occ.limits.lds, Some(228)); // 233472 / (0 + 1024 reserved)

        // 40 regs: 1280 per warp; 16384 / 1280 = 12.8 -> 12 warps per sub-partition,
        // 48 per SM (not 65536 / 1280 = 51); 2-warp blocks: 24 blocks.
        check(
            &occupancy(hw, &usage(40, 0, 0, 64)),
            24,
            48,
            Limiter::Registers,
        );
        // 33 regs round up to 40 (33 x 32 = 1056 -> 1280): the same answer.
        let occ = occupancy(hw, &usage(33, 0, 0, 64));
        check(&occ, 24, 48, Limiter::Registers);
        assert_eq!(occ.allocation.vregs_per_lane, 40);
    }

    #[test]
    fn hopper_lds_heavy() {
        let hw = &Hardware::HOPPER;
        // 48 KiB + 1 KiB reserved = 50176 bytes (392 x 128); 233472 / 50176 = 4.65 -> 4
        // blocks of 8 warps. Registers: 512 / 32 = 16 warps per sub-partition, 64 per
        // SM, 8 blocks.
        let occ = occupancy(hw, &usage(32, 0, 48 * 1024, 256));
        check(&occ, 4, 32, Limiter::Lds);
        assert_eq!(occ.allocation.lds_bytes_per_workgroup, 50176);
        // 100 bytes + 1024 = 1124 -> 1152 (9 x 128); 233472 / 1152 = 202.67 -> 202.
        let occ = occupancy(hw, &usage(16, 0, 100, 32));
        assert_eq!(occ.allocation.lds_bytes_per_workgroup, 1152);
        assert_eq!(occ.limits.lds, Some(202));
    }

    #[test]
    fn hopper_warp_cap_and_block_cap() {
        let hw = &Hardware::HOPPER;
        // 256 threads = 8 warps; 64 / 8 = 8 blocks. Registers allow 512 / 16 = 32 warps
        // per sub-partition (128 per SM, 16 blocks), LDS 228, blocks 32.
        check(
            &occupancy(hw, &usage(16, 0, 0, 256)),
            8,
            64,
            Limiter::WaveSlots,
        );
        // 32 threads = 1 warp: the 32-block cap holds the SM at 32 of 64 warps.
        check(
            &occupancy(hw, &usage(16, 0, 0, 32)),
            32,
            32,
            Limiter::WorkgroupSlots,
        );
        // A workgroup of 1 is still one warp.
        check(
            &occupancy(hw, &usage(16, 0, 0, 1)),
            32,
            32,
            Limiter::WorkgroupSlots,
        );
    }

    #[test]
    fn hopper_scalar_registers_are_not_counted() {
        let occ = occupancy(&Hardware::HOPPER, &usage(16, 1000, 0, 256));
        check(&occ, 8, 64, Limiter::WaveSlots);
        assert_eq!(occ.limits.scalar_registers, None);
        assert_eq!(occ.allocation.sregs_per_wave, 0);
    }

    #[test]
    fn hopper_workgroups_that_do_not_fit() {
        let hw = &Hardware::HOPPER;
        // 228 KiB > the 227 KiB a block may have.
        check(
            &occupancy(hw, &usage(32, 0, 228 * 1024, 256)),
            0,
            0,
            Limiter::Lds,
        );
        // 227 KiB + 1 KiB reserved = exactly the SM's 228 KiB: one block.
        check(
            &occupancy(hw, &usage(32, 0, 227 * 1024, 256)),
            1,
            8,
            Limiter::Lds,
        );
        // 256 > 255 registers per thread.
        check(
            &occupancy(hw, &usage(256, 0, 0, 32)),
            0,
            0,
            Limiter::Registers,
        );
        // 1024 threads = 32 warps at 72 regs: 2304 per warp, 16384 / 2304 = 7 warps per
        // sub-partition, 28 per SM < 32.
        check(
            &occupancy(hw, &usage(72, 0, 0, 1024)),
            0,
            0,
            Limiter::Registers,
        );
        // At 64 regs: 2048 per warp, 8 per sub-partition, 32 per SM: one block.
        check(
            &occupancy(hw, &usage(64, 0, 0, 1024)),
            1,
            32,
            Limiter::Registers,
        );
        check(
            &occupancy(hw, &usage(16, 0, 0, 1025)),
            0,
            0,
            Limiter::WorkgroupSize,
        );
        check(
            &occupancy(hw, &usage(16, 0, 0, 0)),
            0,
            0,
            Limiter::WorkgroupSize,
        );
    }

    #[test]
    fn cdna3_register_heavy() {
        let hw = &Hardware::CDNA3;
        // 256 work-items = 4 waves64. 128 VGPRs (a multiple of 8): 512 / 128 = 4 waves
        // per SIMD, 16 per CU, 4 workgroups; 4 / 8 waves per SIMD.
        let occ = occupancy(hw, &usage(128, 0, 0, 256));
        check(&occ, 4, 16, Limiter::Registers);
        assert_eq!(occ.waves_per_simd, 4.0);
        assert_eq!(occ.occupancy, 0.5);
        // SGPRs: 0 + 6 reserved -> 16; 800 / 16 = 50 per SIMD, 200 per CU, 50 workgroups.
        assert_eq!(occ.allocation.sregs_per_wave, 16);
        assert_eq!(occ.limits.scalar_registers, Some(50));
        // 129 VGPRs -> 136; 512 / 136 = 3.76 -> 3 per SIMD, 12 per CU, 3 workgroups.
        check(
            &occupancy(hw, &usage(129, 0, 0, 256)),
            3,
            12,
            Limiter::Registers,
        );
    }

    #[test]
    fn cdna3_lds_heavy() {
        // 20000 bytes -> 20480 (40 x 512); 65536 / 20480 = 3.2 -> 3 workgroups of 4
        // waves. Registers: 512 / 32 = 16 per SIMD, capped at 8.
        let occ = occupancy(&Hardware::CDNA3, &usage(32, 0, 20000, 256));
        check(&occ, 3, 12, Limiter::Lds);
        assert_eq!(occ.allocation.lds_bytes_per_workgroup, 20480);
    }

    #[test]
    fn cdna3_scalar_registers() {
        let hw = &Hardware::CDNA3;
        // 100 SGPRs + 6 reserved = 106 -> 112; 800 / 112 = 7.1 -> 7 waves per SIMD, 28
        // per CU; single-wave workgroups: 28 workgroups, 7 / 8 of the slots.
        let occ = occupancy(hw, &usage(32, 100, 0, 64));
        check(&occ, 28, 28, Limiter::ScalarRegisters);
        assert_eq!(occ.occupancy, 0.875);
        // 45 SGPRs and 4 masks (an SGPR pair each in wave64): 45 + 8 + 6 = 59 -> 64;
        // 800 / 64 = 12 per SIMD: not limiting.
        let masks = Usage {
            mregs: 4,
            ..usage(32, 45, 0, 64)
        };
        let occ = occupancy(hw, &masks);
        assert_eq!(occ.allocation.sregs_per_wave, 64);
        check(&occ, 32, 32, Limiter::WaveSlots);
        // 103 > 102 addressable SGPRs.
        check(
            &occupancy(hw, &usage(32, 103, 0, 64)),
            0,
            0,
            Limiter::ScalarRegisters,
        );
    }

    #[test]
    fn cdna3_wave_slots_and_single_wave_workgroups() {
        let hw = &Hardware::CDNA3;
        // 4 waves per workgroup: 32 / 4 = 8 workgroups; 16 workgroup slots.
        check(
            &occupancy(hw, &usage(32, 0, 0, 256)),
            8,
            32,
            Limiter::WaveSlots,
        );
        // 2 waves: 32 / 2 = 16, tied with the 16 workgroup slots; the tie names the
        // wave slots.
        let occ = occupancy(hw, &usage(32, 0, 0, 128));
        check(&occ, 16, 32, Limiter::WaveSlots);
        assert_eq!(occ.limits.workgroup_slots, Some(16));
        // 1 wave: exempt from the workgroup slots, so 32 workgroups, not 16.
        let occ = occupancy(hw, &usage(32, 0, 0, 64));
        check(&occ, 32, 32, Limiter::WaveSlots);
        assert_eq!(occ.limits.workgroup_slots, None);
    }

    #[test]
    fn cdna3_workgroups_that_do_not_fit() {
        let hw = &Hardware::CDNA3;
        // 1024 work-items = 16 waves; 256 VGPRs: 512 / 256 = 2 per SIMD, 8 per CU < 16.
        check(
            &occupancy(hw, &usage(256, 0, 0, 1024)),
            0,
            0,
            Limiter::Registers,
        );
        // 128 VGPRs: 4 per SIMD, 16 per CU: exactly one workgroup.
        check(
            &occupancy(hw, &usage(128, 0, 0, 1024)),
            1,
            16,
            Limiter::Registers,
        );
        check(&occupancy(hw, &usage(32, 0, 65537, 64)), 0, 0, Limiter::Lds);
        check(
            &occupancy(hw, &usage(513, 0, 0, 64)),
            0,
            0,
            Limiter::Registers,
        );
    }

    #[test]
    fn rdna3_register_heavy() {
        let hw = &Hardware::RDNA3;
        // 256 work-items = 8 waves32. 128 VGPRs -> 144 (6 x 24); 1536 / 144 = 10.67 ->
        // 10 per SIMD, 40 per WGP, 5 workgroups; 40 / 64 slots.
        let occ = occupancy(hw, &usage(128, 0, 0, 256));
        check(&occ, 5, 40, Limiter::Registers);
        assert_eq!(occ.allocation.vregs_per_lane, 144);
        assert_eq!(occ.waves_per_simd, 10.0);
        assert_eq!(occ.occupancy, 0.625);
        // 96 VGPRs (4 x 24): 1536 / 96 = 16 per SIMD, the full 16 slots.
        check(
            &occupancy(hw, &usage(96, 0, 0, 256)),
            8,
            64,
            Limiter::WaveSlots,
        );
        // 97 -> 120: 1536 / 120 = 12.8 -> 12 per SIMD, 48 per WGP, 6 workgroups.
        check(
            &occupancy(hw, &usage(97, 0, 0, 256)),
            6,
            48,
            Limiter::Registers,
        );
    }

    #[test]
    fn rdna3_lds_heavy() {
        // 40000 bytes -> 40960 (40 x 1024); 131072 / 40960 = 3.2 -> 3 workgroups of 8 waves.
        let occ = occupancy(&Hardware::RDNA3, &usage(32, 0, 40000, 256));
        check(&occ, 3, 24, Limiter::Lds);
        assert_eq!(occ.allocation.lds_bytes_per_workgroup, 40960);
    }

    #[test]
    fn rdna3_wave_slots_and_fixed_sgprs() {
        let hw = &Hardware::RDNA3;
        // 64 VGPRs -> 72; 1536 / 72 = 21 per SIMD, above the 16 slots; 8 waves per
        // workgroup: 64 / 8 = 8 workgroups.
        let occ = occupancy(hw, &usage(64, 106, 0, 256));
        check(&occ, 8, 64, Limiter::WaveSlots);
        // Every wave holds the fixed set of 106 + VCC whatever it uses.
        assert_eq!(occ.allocation.sregs_per_wave, 108);
        assert_eq!(occ.limits.scalar_registers, None);
        // Single waves: 64 workgroups; the 32 workgroup slots do not apply.
        check(
            &occupancy(hw, &usage(64, 0, 0, 32)),
            64,
            64,
            Limiter::WaveSlots,
        );
    }

    #[test]
    fn rdna3_workgroups_that_do_not_fit() {
        let hw = &Hardware::RDNA3;
        check(
            &occupancy(hw, &usage(32, 0, 64 * 1024 + 1, 64)),
            0,
            0,
            Limiter::Lds,
        );
        check(
            &occupancy(hw, &usage(257, 0, 0, 64)),
            0,
            0,
            Limiter::Registers,
        );
        check(
            &occupancy(hw, &usage(32, 107, 0, 64)),
            0,
            0,
            Limiter::ScalarRegisters,
        );
        // 1024 work-items = 32 waves; 256 VGPRs -> 264; 1536 / 264 = 5 per SIMD, 20 per
        // WGP < 32.
        check(
            &occupancy(hw, &usage(256, 0, 0, 1024)),
            0,
            0,
            Limiter::Registers,
        );
    }

    #[test]
    fn extreme_inputs_give_defined_answers() {
        let extremes = [
            Usage::default(),
            usage(0, 0, 0, 1),
            usage(0, 0, 0, 1024),
            Usage {
                vregs: u32::MAX,
                sregs: u32::MAX,
                mregs: u32::MAX,
                lds_bytes: u32::MAX,
                workgroup_size: u32::MAX,
            },
            usage(0, 0, u32::MAX, 64),
        ];
        for hw in Hardware::PRESETS {
            for usage in &extremes {
                let occ = occupancy(hw, usage);
                assert!((0.0..=1.0).contains(&occ.occupancy), "{occ:#?}");
                assert!(occ.waves_per_unit <= occ.max_waves_per_unit, "{occ:#?}");
            }
        }
        // No registers, no LDS, one work-item: only the caps apply.
        let occ = occupancy(&Hardware::CDNA3, &usage(0, 0, 0, 1));
        check(&occ, 32, 32, Limiter::WaveSlots);
        assert_eq!(occ.limits.registers, None);
        assert_eq!(occ.limits.lds, None);
        // A hardware description full of zeros is odd but must not divide by zero.
        let empty = Hardware {
            name: "empty",
            unit: "unit",
            wave_width: 0,
            simds_per_unit: 0,
            max_waves_per_simd: 0,
            max_workgroups_per_unit: 0,
            single_wave_workgroups_exempt: false,
            max_workgroup_size: 0,
            vregs_per_simd_lane: 0,
            vreg_granule: 0,
            max_vregs_per_lane: 0,
            scalar: ScalarRegisters::Shared {
                per_simd: 0,
                granule: 0,
                max_per_wave: 0,
                reserved_per_wave: 0,
            },
            lds_bytes_per_unit: 0,
            max_lds_bytes_per_workgroup: 0,
            lds_reserved_per_workgroup: 0,
            lds_granule: 0,
        };
        let occ = occupancy(&empty, &usage(1, 1, 1, 1));
        assert_eq!(occ.workgroups_per_unit, 0);
        assert_eq!(occ.limited_by, Limiter::WorkgroupSize);
        assert_eq!(occ.occupancy, 0.0);
        assert_eq!(occ.waves_per_simd, 0.0);
    }

    #[test]
    fn results_and_descriptions_are_serializable() {
        fn serializable<T: Serialize>(_: &T) {}
        serializable(&occupancy(&Hardware::HOPPER, &usage(128, 0, 0, 256)));
        serializable(&Hardware::CDNA3);
        serializable(&Usage::default());
    }

    /// Any resource usage, with workgroup sizes the presets accept.
    fn any_usage() -> impl Strategy<Value = Usage> {
        (0u32..600, 0u32..140, 0u32..40, 0u32..300_000, 1u32..=1024).prop_map(
            |(vregs, sregs, mregs, lds_bytes, workgroup_size)| Usage {
                vregs,
                sregs,
                mregs,
                lds_bytes,
                workgroup_size,
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Holding more of any resource never raises occupancy. The workgroup size is
        /// left out on purpose: it is not a resource held, and occupancy is not
        /// monotone in it (on Hopper, 1-warp blocks hit the 32-block cap at 32 warps
        /// while 2-warp blocks reach 64).
        #[test]
        fn occupancy_never_rises_with_usage(
            base in any_usage(),
            resource in 0usize..4,
            extra in 1u32..100_000,
        ) {
            let mut more = base;
            match resource {
                0 => more.vregs = more.vregs.saturating_add(extra),
                1 => more.sregs = more.sregs.saturating_add(extra),
                2 => more.mregs = more.mregs.saturating_add(extra),
                _ => more.lds_bytes = more.lds_bytes.saturating_add(extra),
            }
            for hw in Hardware::PRESETS {
                let before = occupancy(hw, &base);
                let after = occupancy(hw, &more);
                prop_assert!(after.workgroups_per_unit <= before.workgroups_per_unit);
                prop_assert!(after.waves_per_unit <= before.waves_per_unit);
                prop_assert!(after.occupancy <= before.occupancy);
            }
        }
    }
}
