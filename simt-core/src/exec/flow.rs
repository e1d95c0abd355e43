//! Structured control flow: the divergence stack and its handlers.
//!
//! Each wave owns a stack of typed [`Frame`]s, one per open `if` or `loop`. The
//! handlers below update the exec mask and return the next program counter. When
//! exec becomes empty inside a body, [`leave_empty`] jumps to the innermost
//! construct's next control point (the `else` or `endif` of an `if`, the `endloop`
//! of a loop) and records the instructions jumped over in the [`SkipLog`].

/// One open construct on a wave's divergence stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Frame {
    /// An open `if`.
    If {
        /// The exec mask before the `if`, restored by `endif`.
        saved: u64,
        /// The lanes the `else` part runs (cleared once the `else` is reached).
        else_lanes: u64,
        /// The next control point: the `else` (or `endif`) while in the then-part,
        /// the `endif` once in the else-part.
        target: u32,
    },
    /// An open `loop`.
    Loop {
        /// The exec mask at the `loop`, restored when the loop exits.
        entry: u64,
        /// Lanes that `continue`d during this iteration; they rejoin at `endloop`.
        continued: u64,
        /// The `endloop`.
        end: u32,
    },
}

/// Instructions jumped over, attributed to each skipped instruction.
///
/// A difference array over instruction indices: skipping `from+1..to` adds one at
/// `from+1` and subtracts one at `to`, so a skip costs O(1) however long the body;
/// [`SkipLog::finish`] turns it into per-instruction counts.
pub(super) struct SkipLog<'a>(pub(super) &'a mut [i64]);

impl SkipLog<'_> {
    /// Records that the instructions strictly between `from` and `to` were skipped.
    #[inline]
    pub(super) fn skip(&mut self, from: usize, to: usize) {
        if to > from + 1 {
            if let Some(d) = self.0.get_mut(from + 1) {
                *d += 1;
            }
            if let Some(d) = self.0.get_mut(to) {
                *d -= 1;
            }
        }
    }

    /// Turns the differences into per-instruction skip counts, calling `add(k, n)`
    /// for each instruction `k` skipped `n > 0` times.
    pub(super) fn finish(&self, mut add: impl FnMut(usize, u64)) {
        let mut running = 0i64;
        for (k, d) in self.0.iter().enumerate() {
            running += d;
            if running > 0 {
                add(k, running as u64);
            }
        }
    }
}

/// The pc after a wave's exec became empty at `pc`: the innermost construct's next
/// control point, which the wave then issues.
///
/// An empty stack cannot have an empty exec (the launch mask is never empty and
/// `break`/`continue` only occur inside loops); should it happen, the wave jumps to
/// its last instruction, `end`.
#[inline]
pub(super) fn leave_empty(
    stack: &[Frame],
    pc: usize,
    last: usize,
    skips: &mut SkipLog<'_>,
) -> usize {
    let target = match stack.last() {
        Some(Frame::If { target, .. }) => *target as usize,
        Some(Frame::Loop { end, .. }) => *end as usize,
        None => last,
    };
    skips.skip(pc, target);
    target
}

/// `if mask`: pushes exec and narrows it; skips the then-part when no lane remains.
#[inline]
pub(super) fn op_if(
    stack: &mut Vec<Frame>,
    exec: &mut u64,
    mask: u64,
    pc: usize,
    next: u32,
    skips: &mut SkipLog<'_>,
) -> usize {
    let saved = *exec;
    stack.push(Frame::If {
        saved,
        else_lanes: saved & !mask,
        target: next,
    });
    *exec = saved & mask;
    if *exec == 0 {
        skips.skip(pc, next as usize);
        next as usize
    } else {
        pc + 1
    }
}

/// `else`: switches to the lanes whose condition was clear; skips the else-part when
/// none remain.
#[inline]
pub(super) fn op_else(
    stack: &mut [Frame],
    exec: &mut u64,
    pc: usize,
    end: u32,
    skips: &mut SkipLog<'_>,
) -> usize {
    if let Some(Frame::If {
        else_lanes, target, ..
    }) = stack.last_mut()
    {
        *exec = *else_lanes;
        *else_lanes = 0;
        *target = end;
    }
    if *exec == 0 {
        skips.skip(pc, end as usize);
        end as usize
    } else {
        pc + 1
    }
}

/// `endif`: restores the exec saved by the `if` (less any lanes that left the loop
/// meanwhile); when that is empty, keeps skipping outward.
#[inline]
pub(super) fn op_endif(
    stack: &mut Vec<Frame>,
    exec: &mut u64,
    pc: usize,
    last: usize,
    skips: &mut SkipLog<'_>,
) -> usize {
    if let Some(Frame::If { saved, .. }) = stack.last().copied() {
        stack.pop();
        *exec = saved;
    }
    if *exec == 0 {
        leave_empty(stack, pc, last, skips)
    } else {
        pc + 1
    }
}

/// `loop`: pushes exec as the loop's entry mask.
#[inline]
pub(super) fn op_loop(stack: &mut Vec<Frame>, exec: u64, pc: usize, end: u32) -> usize {
    stack.push(Frame::Loop {
        entry: exec,
        continued: 0,
        end,
    });
    pc + 1
}

/// `endloop mask`: lanes still running (or that `continue`d) with their bit in
/// `mask` set run another iteration; when none do, the entry mask is restored.
#[inline]
pub(super) fn op_endloop(
    stack: &mut Vec<Frame>,
    exec: &mut u64,
    mask: u64,
    pc: usize,
    start: u32,
    last: usize,
    skips: &mut SkipLog<'_>,
) -> usize {
    if let Some(Frame::Loop {
        entry, continued, ..
    }) = stack.last_mut()
    {
        let again = (*exec | *continued) & mask;
        *continued = 0;
        if again != 0 {
            *exec = again;
            return start as usize + 1;
        }
        *exec = *entry;
        stack.pop();
    }
    if *exec == 0 {
        leave_empty(stack, pc, last, skips)
    } else {
        pc + 1
    }
}

/// Removes `lanes` from the current construct's active set down to the innermost
/// loop: from the saved masks of the `if`s in between (so their `endif` does not
/// bring them back) and, for `continue`, adds them to the loop's continued lanes.
#[inline]
fn leave_to_loop(stack: &mut [Frame], lanes: u64, continuing: bool) {
    for frame in stack.iter_mut().rev() {
        match frame {
            Frame::If {
                saved, else_lanes, ..
            } => {
                *saved &= !lanes;
                *else_lanes &= !lanes;
            }
            Frame::Loop { continued, .. } => {
                if continuing {
                    *continued |= lanes;
                }
                break;
            }
        }
    }
}

/// `break mask` or `continue mask`: active lanes in `mask` leave this iteration;
/// when no lane remains, the wave skips to the next control point.
#[inline]
pub(super) fn op_exit(
    stack: &mut [Frame],
    exec: &mut u64,
    mask: u64,
    continuing: bool,
    pc: usize,
    last: usize,
    skips: &mut SkipLog<'_>,
) -> usize {
    let leaving = *exec & mask;
    if leaving == 0 {
        return pc + 1;
    }
    *exec &= !mask;
    leave_to_loop(stack, leaving, continuing);
    if *exec == 0 {
        leave_empty(stack, pc, last, skips)
    } else {
        pc + 1
    }
}
