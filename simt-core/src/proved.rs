//! What a launch checks against the kernel's static facts before it runs: its
//! workgroup shape against the declared one, and the races the facts prove
//! for its shape and wave width, reported as findings of their own kind.

use crate::error::LaunchErrorKind;
use crate::findings::{BufferByte, Finding, FindingKind, Scope, Site, Space};
use crate::launch::LaunchConfig;
use crate::Kernel;
use simt_lang::facts::{Memory, Verdict, WorkItem};

/// Refuses a launch whose workgroup shape is not the one `kernel` declares,
/// or which breaks an assumption its `#[race_free]` was proved under.
pub(crate) fn check_shape(kernel: &Kernel, config: &LaunchConfig) -> Result<(), LaunchErrorKind> {
    let launched = config.workgroup.to_array();
    let program = kernel.program();
    if let Some(declared) = program.workgroup_size {
        if declared != launched {
            return Err(LaunchErrorKind::WorkgroupShape { declared, launched });
        }
    }
    if program.race_free.is_some() {
        let grid = config.grid.to_array();
        let lanes = config.lane_order;
        let broken = kernel
            .facts()
            .pairs
            .iter()
            .find_map(|pair| match &pair.verdict {
                Verdict::Free(assumptions) => {
                    assumptions.iter().find(|a| !a.holds(grid, launched, lanes))
                }
                _ => None,
            });
        if let Some(assumption) = broken {
            return Err(LaunchErrorKind::RaceFreeAssumption {
                assumption: assumption.to_string(),
                grid,
                shape: launched,
                lanes,
            });
        }
    }
    Ok(())
}

/// The races `kernel`'s facts prove for the launch `config` describes, as
/// [`FindingKind::ProvedRace`] findings: what a sanitized launch reports
/// before it runs, found without running it (no input is read).
pub fn races(kernel: &Kernel, config: &LaunchConfig) -> Vec<Finding> {
    let program = kernel.program();
    let facts = kernel.facts();
    let width = config.wave_width;
    let races = kernel.races_at(
        config.grid.to_array(),
        config.workgroup.to_array(),
        width,
        config.lane_order,
    );
    let shape = config.workgroup.to_array();
    let grid = config.grid.to_array();
    let site = |inst: u32, item: &WorkItem| {
        let linear = item.local[0] + shape[0] * (item.local[1] + shape[1] * item.local[2]);
        Site {
            inst,
            line: program.loc(inst as usize).line,
            workgroup: item.group,
            wave: linear / width,
            lane: linear % width,
        }
    };
    races
        .iter()
        .filter_map(|race| {
            let pair = facts.pairs.get(race.pair)?;
            let w = &race.witness;
            let bytes = [pair.a, pair.b]
                .iter()
                .filter_map(|&i| facts.accesses.get(i as usize)?.as_ref())
                .map(|a| a.bytes())
                .min()
                .unwrap_or(1);
            let (space, address, byte) = match pair.space {
                Memory::Lds(_) => (Space::Lds, Some(w.address), None),
                Memory::Global(param) => (
                    Space::Global,
                    None,
                    program
                        .params
                        .get(usize::from(param.0))
                        .map(|p| BufferByte {
                            buffer: p.name.to_string(),
                            offset: w.address,
                        }),
                ),
            };
            let (at, other) = (site(pair.b, &w.items[1]), site(pair.a, &w.items[0]));
            let linear_group = |g: [u32; 3]| g[0] + grid[0] * (g[1] + grid[1] * g[2]);
            Some(Finding {
                kind: FindingKind::ProvedRace {
                    space,
                    scope: Scope::of(
                        (linear_group(w.items[1].group), at.wave),
                        (linear_group(w.items[0].group), other.wave),
                    ),
                },
                at,
                other: Some(other),
                address,
                bytes,
                occurrences: 1,
                byte,
                register: None,
            })
        })
        .collect()
}
