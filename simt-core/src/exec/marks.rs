//! Which bytes of the writable buffers each worker of a parallel launch read
//! and wrote: what decides whether the workers' private copies can be merged
//! (no byte written by one and touched by another) and which bytes to merge.

use super::bind::Slot;
use super::memory::each_lane;

/// A byte was read.
const READ: u8 = 1;
/// A byte was written.
const WRITTEN: u8 = 2;

/// The most workers whose marks [`conflicting`] compares: per-byte counts must
/// fit in a byte.
pub(super) const MAX_WORKERS: usize = 64;

/// One worker's marks, by parameter (empty for read-only buffers and scalars).
#[derive(Debug)]
pub(super) struct Marks {
    bufs: Vec<Buffer>,
}

/// The marks of one buffer: a byte of flags per byte, and the range touched,
/// so that comparing and merging cost what the workers touched, not the
/// buffer's size.
#[derive(Debug, Default)]
struct Buffer {
    flags: Vec<u8>,
    lo: usize,
    hi: usize,
}

impl Marks {
    /// No byte touched yet.
    pub(super) fn new(slots: &[Slot<'_>]) -> Self {
        Marks {
            bufs: slots
                .iter()
                .map(|s| match s {
                    Slot::BufferMut { data, .. } => Buffer {
                        flags: vec![0; data.len()],
                        lo: usize::MAX,
                        hi: 0,
                    },
                    _ => Buffer::default(),
                })
                .collect(),
        }
    }

    /// Records an access of `bytes` bytes per lane at the byte offsets `offs`
    /// of the active lanes of `exec`, to buffer parameter `buffer`.
    #[inline]
    pub(super) fn record(
        &mut self,
        buffer: usize,
        store: bool,
        exec: u64,
        offs: &[u32],
        bytes: u32,
    ) {
        let Some(b) = self.bufs.get_mut(buffer) else {
            return;
        };
        if b.flags.is_empty() {
            return;
        }
        let bit = if store { WRITTEN } else { READ };
        each_lane(exec, |l| {
            let o = offs.get(l).map_or(usize::MAX, |&o| o as usize);
            let end = o.saturating_add(bytes as usize);
            if let Some(span) = b.flags.get_mut(o..end) {
                span.iter_mut().for_each(|m| *m |= bit);
                b.lo = b.lo.min(o);
                b.hi = b.hi.max(end);
            }
        });
    }
}

/// Whether a byte was written by one worker and read or written by another.
pub(super) fn conflicting(marks: &[&Marks]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let Some(first) = marks.first() else {
        return false;
    };
    for p in 0..first.bufs.len() {
        let bufs = || marks.iter().filter_map(|m| m.bufs.get(p));
        let lo = bufs().map(|b| b.lo).min().unwrap_or(usize::MAX);
        let hi = bufs().map(|b| b.hi).max().unwrap_or(0);
        let mut at = lo;
        while at < hi {
            let end = (at + 8).min(hi);
            // Per byte of the chunk: how many workers wrote it, and how many
            // touched it at all (at most MAX_WORKERS: no carry between bytes).
            let (mut writers, mut users) = (0u64, 0u64);
            for b in bufs() {
                let mut chunk = [0u8; 8];
                if let Some(src) = b.flags.get(at..end) {
                    chunk[..src.len()].copy_from_slice(src);
                }
                let x = u64::from_le_bytes(chunk);
                writers += (x >> 1) & ONES;
                users += (x | (x >> 1)) & ONES;
            }
            if writers != 0 && users & !ONES != 0 {
                let (w, u) = (writers.to_le_bytes(), users.to_le_bytes());
                if w.iter().zip(u).any(|(&w, u)| w > 0 && u > 1) {
                    return true;
                }
            }
            at = end;
        }
    }
    false
}

/// Copies the bytes a worker wrote from its private `copy` into `slots`.
pub(super) fn merge_written(slots: &mut [Slot<'_>], marks: &Marks, copy: &[Vec<u8>]) {
    for ((slot, b), copy) in slots.iter_mut().zip(&marks.bufs).zip(copy) {
        if let Slot::BufferMut { data, .. } = slot {
            let range = b.lo..b.hi.min(data.len()).min(copy.len());
            let (Some(data), Some(flags), Some(copy)) = (
                data.get_mut(range.clone()),
                b.flags.get(range.clone()),
                copy.get(range),
            ) else {
                continue;
            };
            for ((d, &m), &c) in data.iter_mut().zip(flags).zip(copy) {
                if m & WRITTEN != 0 {
                    *d = c;
                }
            }
        }
    }
}
