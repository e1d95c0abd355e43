//! The workgroups a worker runs, generated one at a time: a launch holds no
//! list of its workgroups, so its memory does not grow with the grid.

use crate::launch::Order;

/// Workgroups (linear indices, x fastest), in the order a worker runs them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Groups {
    /// Positions `next..end` of `order` over the launch's `total` workgroups.
    Ordered {
        order: Order,
        total: u64,
        next: u64,
        end: u64,
    },
    /// One worker's share of a parallel launch, in increasing order: the
    /// workgroups `g` with `g % units % workers == worker`, from `next` on.
    /// `units` is the number of compute units when workers take whole units,
    /// `u64::MAX` (`g % units == g`) when they take workgroups in turn.
    Dealt {
        next: u64,
        total: u64,
        units: u64,
        workers: u64,
    },
}

impl Groups {
    /// Positions `range` of `order` over `total` workgroups.
    pub(super) fn ordered(order: Order, total: u64, range: std::ops::Range<u64>) -> Self {
        Groups::Ordered {
            order,
            total,
            next: range.start,
            end: range.end.min(total),
        }
    }

    /// The workgroups after 0 (which runs first, alone) dealt to `worker` of
    /// `workers` (`worker < workers <= units`).
    pub(super) fn dealt(worker: u64, workers: u64, units: u64, total: u64) -> Self {
        let mut groups = Groups::Dealt {
            next: worker,
            total,
            units,
            workers,
        };
        if worker == 0 {
            groups.next();
        }
        groups
    }
}

impl Iterator for Groups {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        match self {
            Groups::Ordered {
                order,
                total,
                next,
                end,
            } => {
                if next >= end {
                    return None;
                }
                let at = *next;
                *next += 1;
                Some(order.at(at, *total))
            }
            Groups::Dealt {
                next,
                total,
                units,
                workers,
            } => {
                let g = *next;
                if g >= *total {
                    return None;
                }
                // The worker's next unit in this round of units, or its first
                // unit in the next round.
                let unit = g % *units;
                let after = if unit < *units - *workers {
                    g.checked_add(*workers)
                } else {
                    (g - unit)
                        .checked_add(*units)
                        .and_then(|start| start.checked_add(unit % *workers))
                };
                *next = after.unwrap_or(u64::MAX);
                Some(g)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the rule written out: worker `k` takes the workgroups `g > 0`
    /// with `g % units % workers == k`, in increasing order.
    #[test]
    fn dealing_gives_each_worker_its_units_in_order() {
        for total in 1..60u64 {
            for units in (1..9).chain([u64::MAX]) {
                for workers in 1..=units.min(6) {
                    let mut lists = vec![Vec::new(); workers as usize];
                    for g in 1..total {
                        lists[(g % units % workers) as usize].push(g);
                    }
                    for (k, list) in lists.iter().enumerate() {
                        let dealt: Vec<u64> =
                            Groups::dealt(k as u64, workers, units, total).collect();
                        assert_eq!(&dealt, list, "{total} {units} {workers} {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_last_workgroups_of_a_u64_grid_end_the_deal() {
        let total = u64::MAX;
        let mut near_end = Groups::Dealt {
            next: total - 3,
            total,
            units: u64::MAX,
            workers: 2,
        };
        assert_eq!(near_end.next(), Some(total - 3));
        assert_eq!(near_end.next(), Some(total - 1));
        assert_eq!(near_end.next(), None);
        let mut by_unit = Groups::Dealt {
            next: total - 2,
            total,
            units: 5,
            workers: 2,
        };
        // u64::MAX - 2 = 5 * k + 3 (2^64 - 3 = 5k + 3 since 2^64 = 5k' + 1).
        assert_eq!(by_unit.next(), Some(total - 2));
        assert_eq!(by_unit.next(), None);
        assert_eq!(
            Groups::ordered(Order::Reversed, total, total - 2..total).collect::<Vec<_>>(),
            [1, 0]
        );
    }
}
