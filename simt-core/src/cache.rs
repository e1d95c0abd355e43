//! Cache state for the memory models: a sectored L1 and the DRAM sectors of a launch.
//!
//! These are plain data structures that the interpreter calls once per distinct line
//! of a memory phase; they return counts and keep no statistics of their own.
//!
//! - [`SectoredCache`] is one compute unit's L1: set-associative, least recently
//!   used replacement within a set, and sectored. Loads allocate; stores write
//!   through without allocating, and a store to a resident line keeps the sectors
//!   it writes valid (the cached copy is updated along with memory).
//! - [`DramSectors`] is the set of distinct sectors a launch touches: the first
//!   touch of a sector is one DRAM sector read, later ones are served by an
//!   unbounded L2. That makes it a lower bound on DRAM traffic.
//!
//! Addresses are byte addresses in the global memory space. A line is named by any
//! byte address inside it (the offset bits are ignored), and its sectors by a mask
//! whose bit `k` is sector `k` of the line; a line has at most 32 sectors, and mask
//! bits past the line's last sector are ignored.

use serde::Serialize;
use std::collections::HashSet;

/// The most lines a [`SectoredCache`] may hold.
///
/// A compute unit's L1 holds a few thousand lines; the bound keeps the one
/// allocation that [`SectoredCache::new`] makes small whatever geometry it is given.
pub const MAX_CACHE_LINES: u64 = 1 << 20;

/// The most sectors a line may have: sector masks are `u32`.
pub const MAX_SECTORS_PER_LINE: u32 = 32;

/// The shape of a sectored, set-associative cache.
///
/// `sets = bytes / (line_bytes * ways)`. A line's set is its line index modulo
/// `sets`, so `sets` must be a power of two; `ways` need not be, which allows
/// capacities such as 96 KiB as 6 ways of 128 sets of 128-byte lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CacheGeometry {
    /// Total capacity in bytes: `line_bytes * ways * sets`.
    pub bytes: u32,
    /// Bytes per line (the unit of a tag); a power of two.
    pub line_bytes: u32,
    /// Bytes per sector (the unit of a fill); a power of two no larger than
    /// `line_bytes`, and at least `line_bytes / 32`.
    pub sector_bytes: u32,
    /// Lines per set (the associativity); at least 1.
    pub ways: u32,
}

impl CacheGeometry {
    /// Checks the geometry; the error says which field is wrong and why.
    pub fn check(&self) -> Result<(), String> {
        let pow2 = |v: u32| v != 0 && v.is_power_of_two();
        if !pow2(self.line_bytes) {
            return Err(format!(
                "line_bytes must be a power of two, not {}",
                self.line_bytes
            ));
        }
        if !pow2(self.sector_bytes) || self.sector_bytes > self.line_bytes {
            return Err(format!(
                "sector_bytes must be a power of two no larger than line_bytes ({}), not {}",
                self.line_bytes, self.sector_bytes
            ));
        }
        if self.line_bytes / self.sector_bytes > MAX_SECTORS_PER_LINE {
            return Err(format!(
                "a line has at most {MAX_SECTORS_PER_LINE} sectors, not {} ({} / {})",
                self.line_bytes / self.sector_bytes,
                self.line_bytes,
                self.sector_bytes
            ));
        }
        if self.ways == 0 {
            return Err("ways must be at least 1".to_string());
        }
        // In u64, a product of two u32 cannot overflow.
        let set_bytes = u64::from(self.line_bytes) * u64::from(self.ways);
        let bytes = u64::from(self.bytes);
        if bytes == 0 || bytes % set_bytes != 0 || !(bytes / set_bytes).is_power_of_two() {
            return Err(format!(
                "bytes ({}) must be line_bytes ({}) x ways ({}) x a power-of-two number of sets",
                self.bytes, self.line_bytes, self.ways
            ));
        }
        if bytes / u64::from(self.line_bytes) > MAX_CACHE_LINES {
            return Err(format!(
                "a cache holds at most {MAX_CACHE_LINES} lines, not {}",
                bytes / u64::from(self.line_bytes)
            ));
        }
        Ok(())
    }

    /// Number of sets, `bytes / (line_bytes * ways)`; 0 when that divisor is 0.
    /// Meaningful for a geometry that passes [`check`](Self::check).
    pub fn sets(&self) -> u32 {
        let set_bytes = u64::from(self.line_bytes) * u64::from(self.ways);
        match u64::from(self.bytes).checked_div(set_bytes) {
            // bytes / set_bytes <= bytes, which is a u32.
            Some(sets) => u32::try_from(sets).unwrap_or(u32::MAX),
            None => 0,
        }
    }

    /// Number of sectors per line, `line_bytes / sector_bytes`; 0 when
    /// `sector_bytes` is 0. Meaningful for a geometry that passes
    /// [`check`](Self::check).
    pub fn sectors_per_line(&self) -> u32 {
        self.line_bytes.checked_div(self.sector_bytes).unwrap_or(0)
    }
}

/// What a lookup found: of the sectors asked for, how many were valid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Lookup {
    /// Requested sectors that were valid in the cache.
    pub hit_sectors: u32,
    /// Requested sectors that were not (for a load, they are now filled).
    pub miss_sectors: u32,
}

/// One way of a set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Way {
    /// The line index (address >> log2(line_bytes)), kept whole rather than
    /// without its set bits: one comparison, and no reconstruction for tests.
    line: u64,
    /// Valid sectors; 0 marks an empty way, since a load never allocates an empty
    /// mask and nothing but [`SectoredCache::clear`] invalidates a sector.
    valid: u32,
    /// The cache's clock at this way's last load; 0 for a way unused since the
    /// last clear, so empty ways are chosen before any line is evicted.
    last_use: u64,
}

/// One compute unit's sectored, set-associative L1 with LRU replacement.
///
/// Sectored: a line is allocated as a tag, and each of its sectors is then valid
/// or not, so a miss fetches only the sectors that were asked for.
///
/// - Loads allocate ([`load_line`](Self::load_line)). A tag miss evicts the set's
///   least recently used line and allocates the new one with only the requested
///   sectors valid; a tag hit fills the requested sectors that were not yet valid
///   (they count as misses). Either way the line becomes the most recently used of
///   its set.
/// - Stores write through without allocating, as NVIDIA's L1 has done since Volta
///   ([`store_line`](Self::store_line)). A store never allocates a line or a
///   sector and never changes the order of use. Sectors of a resident line that it
///   writes stay valid, because a write-through cache updates its copy along with
///   memory; sectors that were not valid stay invalid. A store is therefore
///   neither a hit nor a miss for the load counters; `store_line` still reports
///   which of its sectors were resident, for a separate store counter.
///
/// The ways of all sets live in one flat `Vec`, set-major, allocated once by
/// [`new`](Self::new); an access allocates nothing. Recency is a per-way stamp of
/// a clock that each load advances: a hit or fill restamps the way, and the
/// victim of a miss is the way with the smallest stamp. This costs one store per
/// hit (an ordered list would move up to `ways` entries) and the victim search
/// is one pass over the set, which a miss has already scanned for the tag.
#[derive(Clone, Debug)]
pub struct SectoredCache {
    geometry: CacheGeometry,
    /// log2(line_bytes).
    line_shift: u32,
    /// sets - 1.
    set_mask: u64,
    /// Lines per set, as an index.
    ways_per_set: usize,
    /// The mask of every sector a line has.
    line_sectors: u32,
    ways: Vec<Way>,
    /// Advanced by each load; saturates rather than wraps, which 2^64 loads never
    /// reach.
    clock: u64,
}

impl SectoredCache {
    /// An empty cache of the given geometry, or the reason the geometry is invalid.
    pub fn new(geometry: &CacheGeometry) -> Result<Self, String> {
        geometry.check()?;
        let lines = geometry.bytes / geometry.line_bytes;
        let sectors = geometry.sectors_per_line();
        Ok(SectoredCache {
            geometry: geometry.clone(),
            line_shift: geometry.line_bytes.trailing_zeros(),
            set_mask: u64::from(geometry.sets()) - 1,
            ways_per_set: geometry.ways as usize,
            line_sectors: sector_mask_of(sectors),
            ways: vec![Way::default(); lines as usize],
            clock: 0,
        })
    }

    /// The geometry this cache was built with.
    pub fn geometry(&self) -> &CacheGeometry {
        &self.geometry
    }

    /// Loads the sectors in `sector_mask` of the line holding `line_addr`.
    ///
    /// A tag miss evicts the set's least recently used line (an empty way first)
    /// and allocates this one with only the requested sectors valid; a tag hit
    /// fills the requested sectors that were invalid, which count as misses. The
    /// line becomes its set's most recently used. An empty mask (after dropping
    /// bits past the line's last sector) changes nothing and counts nothing.
    pub fn load_line(&mut self, line_addr: u64, sector_mask: u32) -> Lookup {
        let wanted = sector_mask & self.line_sectors;
        if wanted == 0 {
            return Lookup::default();
        }
        let line = line_addr >> self.line_shift;
        self.clock = self.clock.saturating_add(1);
        let clock = self.clock;
        let set = self.set_of(line);
        let ways = &mut self.ways[set];
        let (way, hit) = match ways.iter().position(|w| w.valid != 0 && w.line == line) {
            Some(i) => (i, wanted & ways[i].valid),
            None => {
                // min_by_key keeps the first of equal stamps, so empty ways fill in
                // index order; a set is never empty here (ways >= 1).
                let victim = ways
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, w)| w.last_use)
                    .map_or(0, |(i, _)| i);
                ways[victim] = Way {
                    line,
                    valid: 0,
                    last_use: 0,
                };
                (victim, 0)
            }
        };
        ways[way].valid |= wanted;
        ways[way].last_use = clock;
        Lookup {
            hit_sectors: hit.count_ones(),
            miss_sectors: (wanted & !hit).count_ones(),
        }
    }

    /// Stores to the sectors in `sector_mask` of the line holding `line_addr`.
    ///
    /// Write-through without allocation: nothing in the cache changes, neither
    /// validity nor the order of use (resident sectors stay valid, holding the
    /// written data). The result says which of the stored sectors were resident;
    /// it is a store lookup, not a load hit or miss.
    pub fn store_line(&mut self, line_addr: u64, sector_mask: u32) -> Lookup {
        let wanted = sector_mask & self.line_sectors;
        let resident = wanted & self.resident_sectors(line_addr);
        Lookup {
            hit_sectors: resident.count_ones(),
            miss_sectors: (wanted & !resident).count_ones(),
        }
    }

    /// The valid sectors of the line holding `line_addr` (0 when it is not
    /// resident), without counting as a use.
    pub fn resident_sectors(&self, line_addr: u64) -> u32 {
        let line = line_addr >> self.line_shift;
        self.ways[self.set_of(line)]
            .iter()
            .find(|w| w.valid != 0 && w.line == line)
            .map_or(0, |w| w.valid)
    }

    /// Invalidates every line, so that a new launch starts cold; keeps the
    /// allocation.
    pub fn clear(&mut self) {
        self.ways.fill(Way::default());
        self.clock = 0;
    }

    /// The range of `ways` that holds `line`'s set.
    fn set_of(&self, line: u64) -> std::ops::Range<usize> {
        // The set index is below sets <= MAX_CACHE_LINES, so it fits a usize.
        let set = (line & self.set_mask) as usize;
        set * self.ways_per_set..(set + 1) * self.ways_per_set
    }

    /// Each set's resident lines as (line address, valid sectors), most recently
    /// used first.
    #[cfg(test)]
    fn resident_by_set(&self) -> Vec<Vec<(u64, u32)>> {
        self.ways
            .chunks(self.ways_per_set)
            .map(|set| {
                let mut lines: Vec<&Way> = set.iter().filter(|w| w.valid != 0).collect();
                lines.sort_by_key(|w| std::cmp::Reverse(w.last_use));
                lines
                    .iter()
                    .map(|w| (w.line << self.line_shift, w.valid))
                    .collect()
            })
            .collect()
    }
}

/// The mask of the first `sectors` sectors of a line (`sectors <= 32`).
fn sector_mask_of(sectors: u32) -> u32 {
    if sectors >= 32 {
        u32::MAX
    } else {
        (1u32 << sectors) - 1
    }
}

/// The end of the address range that [`DramSectors`] tracks in a bitset: buffers
/// are laid out below 4 GiB.
const DENSE_ADDRESS_END: u64 = 1 << 32;

/// The distinct global-memory sectors a launch has touched, and those it has
/// written.
///
/// The first read of a sector (a load's or an atomic's first touch) is one
/// DRAM sector read; the first write of a sector is one DRAM sector written
/// back (once, whenever the L2 evicts it); every other touch is served by an
/// L2 assumed unbounded, so the counts are a lower bound on DRAM traffic. A
/// store to a sector never read needs no read: the L2 keeps the bytes it
/// writes.
///
/// Sectors below 4 GiB are bits of a bitset indexed by sector number, grown on
/// demand to the highest word touched, so that an access allocates only when it
/// reaches past every earlier one. A line's sectors are consecutive bits that never
/// straddle a word (at most 32 of them, a power of two, aligned), so a touch is a
/// single word operation. [`clear`](Self::clear) zeroes only the range of words
/// touched since the last clear. Sectors at or above 4 GiB, which the interpreter
/// does not produce, go to a hash set so that no address can make the bitset huge.
#[derive(Clone, Debug)]
pub struct DramSectors {
    /// log2(line_bytes).
    line_shift: u32,
    /// log2(sectors per line).
    sector_index_shift: u32,
    /// The mask of every sector a line has.
    line_sectors: u32,
    words: Vec<u64>,
    /// The sectors written, as `words` holds those touched.
    written: Vec<u64>,
    /// The words that may be non-zero: `words[dirty_start..dirty_end]`.
    dirty_start: usize,
    dirty_end: usize,
    /// Sector indices at or above 4 GiB, or whose word could not be allocated.
    sparse: HashSet<u64>,
    /// The same, written.
    sparse_written: HashSet<u64>,
}

impl DramSectors {
    /// An empty set for lines of `line_bytes` made of sectors of `sector_bytes`, or
    /// the reason these sizes are invalid (as in [`CacheGeometry::check`]).
    pub fn new(line_bytes: u32, sector_bytes: u32) -> Result<Self, String> {
        // Borrow the cache's checks of line and sector sizes; one way of one set
        // is always a valid capacity for them.
        CacheGeometry {
            bytes: line_bytes,
            line_bytes,
            sector_bytes,
            ways: 1,
        }
        .check()?;
        let sectors = line_bytes / sector_bytes;
        Ok(DramSectors {
            line_shift: line_bytes.trailing_zeros(),
            sector_index_shift: sectors.trailing_zeros(),
            line_sectors: sector_mask_of(sectors),
            words: Vec::new(),
            written: Vec::new(),
            dirty_start: usize::MAX,
            dirty_end: 0,
            sparse: HashSet::new(),
            sparse_written: HashSet::new(),
        })
    }

    /// Marks the sectors in `sector_mask` of the line holding `line_addr` as
    /// touched, and returns how many of them were touched for the first time since
    /// the last [`clear`](Self::clear). Mask bits past the line's last sector are
    /// ignored.
    pub fn touch(&mut self, line_addr: u64, sector_mask: u32) -> u32 {
        self.touch_sectors(line_addr, sector_mask).count_ones()
    }

    /// As [`touch`](Self::touch), returning the mask of the sectors touched for
    /// the first time.
    pub fn touch_sectors(&mut self, line_addr: u64, sector_mask: u32) -> u32 {
        let wanted = sector_mask & self.line_sectors;
        if wanted == 0 {
            return 0;
        }
        // sector_index_shift <= line_shift, so this cannot overflow.
        let first_sector = (line_addr >> self.line_shift) << self.sector_index_shift;
        if line_addr >= DENSE_ADDRESS_END {
            return self.touch_sparse(first_sector, wanted);
        }
        // Below 4 GiB the sector index is below 2^32, so the word index fits a
        // usize on any target with 32-bit or wider pointers.
        let word = (first_sector / 64) as usize;
        if word >= self.words.len() && !self.grow_to(word) {
            return self.touch_sparse(first_sector, wanted);
        }
        let shift = first_sector % 64;
        let bits = u64::from(wanted) << shift;
        let fresh = bits & !self.words[word];
        self.words[word] |= bits;
        self.dirty_start = self.dirty_start.min(word);
        self.dirty_end = self.dirty_end.max(word + 1);
        (fresh >> shift) as u32
    }

    /// Marks the sectors in `sector_mask` of the line holding `line_addr` as
    /// touched and written, and returns the mask of those written for the
    /// first time since the last [`clear`](Self::clear).
    pub fn write_sectors(&mut self, line_addr: u64, sector_mask: u32) -> u32 {
        let wanted = sector_mask & self.line_sectors;
        if wanted == 0 {
            return 0;
        }
        let first_sector = (line_addr >> self.line_shift) << self.sector_index_shift;
        let word = (first_sector / 64) as usize;
        if line_addr >= DENSE_ADDRESS_END || (word >= self.words.len() && !self.grow_to(word)) {
            self.touch_sparse(first_sector, wanted);
            let mut fresh = 0;
            let mut rest = wanted;
            while rest != 0 {
                let k = rest.trailing_zeros();
                rest &= rest - 1;
                if self.sparse_written.insert(first_sector + u64::from(k)) {
                    fresh |= 1 << k;
                }
            }
            return fresh;
        }
        let shift = first_sector % 64;
        let bits = u64::from(wanted) << shift;
        let fresh = bits & !self.written[word];
        self.words[word] |= bits;
        self.written[word] |= bits;
        self.dirty_start = self.dirty_start.min(word);
        self.dirty_end = self.dirty_end.max(word + 1);
        (fresh >> shift) as u32
    }

    /// As [`write_sectors`](Self::write_sectors), the count.
    pub fn write(&mut self, line_addr: u64, sector_mask: u32) -> u32 {
        self.write_sectors(line_addr, sector_mask).count_ones()
    }

    /// Forgets every touch, zeroing only the words touched since the last clear;
    /// keeps the allocation.
    pub fn clear(&mut self) {
        if self.dirty_start < self.dirty_end {
            self.words[self.dirty_start..self.dirty_end].fill(0);
            self.written[self.dirty_start..self.dirty_end].fill(0);
        }
        self.dirty_start = usize::MAX;
        self.dirty_end = 0;
        self.sparse.clear();
        self.sparse_written.clear();
    }

    /// Grows the bitset to hold `word`, at least doubling so that growth is
    /// amortised; false when the memory cannot be had.
    fn grow_to(&mut self, word: usize) -> bool {
        let dense_words = (DENSE_ADDRESS_END >> (self.line_shift - self.sector_index_shift)) / 64;
        let cap = usize::try_from(dense_words.max(1)).unwrap_or(usize::MAX);
        let len = (word + 1).max(self.words.len() * 2).min(cap).max(word + 1);
        if self
            .words
            .try_reserve_exact(len - self.words.len())
            .is_err()
        {
            return false;
        }
        if self
            .written
            .try_reserve_exact(len - self.written.len())
            .is_err()
        {
            return false;
        }
        self.words.resize(len, 0);
        self.written.resize(len, 0);
        true
    }

    /// The slow path: one hash-set entry per sector.
    fn touch_sparse(&mut self, first_sector: u64, wanted: u32) -> u32 {
        let mut fresh = 0;
        let mut rest = wanted;
        while rest != 0 {
            let k = rest.trailing_zeros();
            rest &= rest - 1;
            if self.sparse.insert(first_sector + u64::from(k)) {
                fresh |= 1 << k;
            }
        }
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// 1 KiB of 128-byte lines in 32-byte sectors (4 per line), 2 ways, so
    /// 1024 / (128 * 2) = 4 sets: line index i lives in set i % 4, and the lines
    /// at 0, 512, 1024, ... (indices 0, 4, 8) all share set 0.
    fn small() -> SectoredCache {
        let geometry = CacheGeometry {
            bytes: 1024,
            line_bytes: 128,
            sector_bytes: 32,
            ways: 2,
        };
        match SectoredCache::new(&geometry) {
            Ok(cache) => cache,
            Err(e) => panic!("{e}"),
        }
    }

    fn lookup(hit_sectors: u32, miss_sectors: u32) -> Lookup {
        Lookup {
            hit_sectors,
            miss_sectors,
        }
    }

    #[test]
    fn geometry_counts_sets_and_sectors() {
        let g = CacheGeometry {
            bytes: 96 * 1024,
            line_bytes: 128,
            sector_bytes: 32,
            ways: 6,
        };
        assert_eq!(g.check(), Ok(()));
        assert_eq!(g.sets(), 128);
        assert_eq!(g.sectors_per_line(), 4);
    }

    #[test]
    fn geometry_errors_name_the_field() {
        let good = CacheGeometry {
            bytes: 1024,
            line_bytes: 128,
            sector_bytes: 32,
            ways: 2,
        };
        let cases = [
            (
                CacheGeometry {
                    line_bytes: 0,
                    ..good.clone()
                },
                "line_bytes",
            ),
            (
                CacheGeometry {
                    line_bytes: 96,
                    ..good.clone()
                },
                "line_bytes",
            ),
            (
                CacheGeometry {
                    sector_bytes: 0,
                    ..good.clone()
                },
                "sector_bytes",
            ),
            (
                CacheGeometry {
                    sector_bytes: 24,
                    ..good.clone()
                },
                "sector_bytes",
            ),
            (
                CacheGeometry {
                    sector_bytes: 256,
                    ..good.clone()
                },
                "sector_bytes",
            ),
            (
                CacheGeometry {
                    sector_bytes: 2,
                    ..good.clone()
                },
                "at most 32 sectors",
            ),
            (
                CacheGeometry {
                    ways: 0,
                    ..good.clone()
                },
                "ways",
            ),
            (
                CacheGeometry {
                    bytes: 0,
                    ..good.clone()
                },
                "bytes",
            ),
            // 1000 is not a multiple of a set's 256 bytes.
            (
                CacheGeometry {
                    bytes: 1000,
                    ..good.clone()
                },
                "bytes",
            ),
            // 768 / 256 = 3 sets, not a power of two.
            (
                CacheGeometry {
                    bytes: 768,
                    ..good.clone()
                },
                "power-of-two number of sets",
            ),
            // Smaller than one set.
            (
                CacheGeometry {
                    bytes: 128,
                    ..good.clone()
                },
                "bytes",
            ),
            // 2^31 / 2 = 2^30 lines.
            (
                CacheGeometry {
                    bytes: 1 << 31,
                    line_bytes: 2,
                    sector_bytes: 2,
                    ways: 1,
                },
                "at most",
            ),
        ];
        for (geometry, needle) in cases {
            let err = geometry.check().err().unwrap_or_default();
            assert!(
                err.contains(needle),
                "{geometry:?}: {err:?} lacks {needle:?}"
            );
            assert!(SectoredCache::new(&geometry).is_err());
        }
        let extreme = CacheGeometry {
            bytes: u32::MAX,
            line_bytes: u32::MAX,
            sector_bytes: u32::MAX,
            ways: u32::MAX,
        };
        assert!(extreme.check().is_err());
        assert_eq!(extreme.sets(), 0);
        let zero = CacheGeometry {
            bytes: 0,
            line_bytes: 0,
            sector_bytes: 0,
            ways: 0,
        };
        assert!(zero.check().is_err());
        assert_eq!((zero.sets(), zero.sectors_per_line()), (0, 0));
    }

    #[test]
    fn a_reread_hits_every_sector() {
        let mut cache = small();
        // Cold: sectors 0 and 2 of line 0 are both fetched.
        assert_eq!(cache.load_line(0, 0b0101), lookup(0, 2));
        // The same sectors again are both resident.
        assert_eq!(cache.load_line(0, 0b0101), lookup(2, 0));
        // Any byte address inside the line names it.
        assert_eq!(cache.load_line(127, 0b0001), lookup(1, 0));
    }

    #[test]
    fn ways_plus_one_lines_round_robin_thrash_lru() {
        let mut cache = small();
        // Lines 0, 512, 1024 all map to set 0, which has 2 ways. Reading them in
        // turn, each line was evicted by the two reads since its last use (LRU
        // always evicts the line needed next), so all six reads miss.
        for round in 0..2 {
            for addr in [0, 512, 1024] {
                assert_eq!(cache.load_line(addr, 0b1111), lookup(0, 4), "round {round}");
            }
        }
    }

    #[test]
    fn ways_lines_round_robin_fit() {
        let mut cache = small();
        // Two lines in a 2-way set: the first round fills both ways, the second
        // finds both resident.
        for addr in [0, 512] {
            assert_eq!(cache.load_line(addr, 0b1111), lookup(0, 4));
        }
        for addr in [0, 512] {
            assert_eq!(cache.load_line(addr, 0b1111), lookup(4, 0));
        }
        // Other sets are independent: line 128 is in set 1.
        assert_eq!(cache.load_line(128, 0b0001), lookup(0, 1));
        assert_eq!(cache.resident_sectors(0), 0b1111);
    }

    #[test]
    fn lru_evicts_the_least_recently_loaded() {
        let mut cache = small();
        cache.load_line(0, 1);
        cache.load_line(512, 1);
        // Reusing line 0 makes 512 the least recently used of set 0...
        cache.load_line(0, 1);
        // ...so 1024 evicts 512, not 0.
        cache.load_line(1024, 1);
        assert_eq!(cache.resident_sectors(0), 1);
        assert_eq!(cache.resident_sectors(512), 0);
        assert_eq!(cache.resident_sectors(1024), 1);
    }

    #[test]
    fn a_store_does_not_allocate() {
        let mut cache = small();
        // Write-through, no allocation: the store finds nothing resident...
        assert_eq!(cache.store_line(0, 0b0001), lookup(0, 1));
        // ...and leaves nothing behind, so the load misses.
        assert_eq!(cache.load_line(0, 0b0001), lookup(0, 1));
    }

    #[test]
    fn a_store_keeps_resident_sectors_valid() {
        let mut cache = small();
        assert_eq!(cache.load_line(0, 0b0001), lookup(0, 1));
        // Sector 0 is resident and updated in place; sector 1 is not, and the store
        // does not fill it.
        assert_eq!(cache.store_line(0, 0b0011), lookup(1, 1));
        // Sector 0 still hits; sector 1 is still a miss.
        assert_eq!(cache.load_line(0, 0b0011), lookup(1, 1));
    }

    #[test]
    fn a_store_does_not_change_lru_order() {
        let mut cache = small();
        cache.load_line(0, 1);
        cache.load_line(512, 1);
        // Were the store a use, 512 would be evicted next; it is not, so 0 is.
        cache.store_line(0, 1);
        cache.load_line(1024, 1);
        assert_eq!(cache.resident_sectors(0), 0);
        assert_eq!(cache.resident_sectors(512), 1);
    }

    #[test]
    fn a_resident_tag_fills_missing_sectors() {
        let mut cache = small();
        // Allocates line 0 with sectors 0 and 1 only.
        assert_eq!(cache.load_line(0, 0b0011), lookup(0, 2));
        assert_eq!(cache.resident_sectors(0), 0b0011);
        // The tag hits, but only sector 1 of {1, 2, 3} is valid: 1 hit, 2 fills.
        assert_eq!(cache.load_line(0, 0b1110), lookup(1, 2));
        assert_eq!(cache.resident_sectors(0), 0b1111);
        assert_eq!(cache.load_line(0, 0b1111), lookup(4, 0));
    }

    #[test]
    fn masks_past_the_line_are_ignored() {
        let mut cache = small();
        // A 4-sector line: bits 4 and up name no sector.
        assert_eq!(cache.load_line(0, 0xffff_fff0), lookup(0, 0));
        assert_eq!(cache.resident_sectors(0), 0);
        assert_eq!(cache.load_line(0, 0xffff_ffff), lookup(0, 4));
        // Addresses far past 4 GiB are lines like any other.
        assert_eq!(cache.load_line(u64::MAX, 0b1000), lookup(0, 1));
        assert_eq!(cache.load_line(u64::MAX, 0b1000), lookup(1, 0));
    }

    #[test]
    fn clear_makes_everything_miss_again() {
        let mut cache = small();
        for addr in [0, 128, 512] {
            cache.load_line(addr, 0b1111);
        }
        cache.clear();
        for addr in [0, 128, 512] {
            assert_eq!(cache.resident_sectors(addr), 0);
            assert_eq!(cache.load_line(addr, 0b1111), lookup(0, 4));
        }
    }

    #[test]
    fn dram_counts_first_touches_only() {
        let Ok(mut dram) = DramSectors::new(128, 32) else {
            panic!("valid sizes")
        };
        // Sectors 0 and 1 of line 0: both new.
        assert_eq!(dram.touch(0, 0b0011), 2);
        // Sectors 1 and 2: only 2 is new.
        assert_eq!(dram.touch(0, 0b0110), 1);
        assert_eq!(dram.touch(64, 0b0111), 0);
        // Line 1 shares a bitset word with line 0 but not its sectors.
        assert_eq!(dram.touch(128, 0b0011), 2);
        // Far in the 32-bit space (grows the bitset), and past it (the hash set).
        assert_eq!(dram.touch(0xffff_ff80, 0b1000), 1);
        assert_eq!(dram.touch(0xffff_ff80, 0b1000), 0);
        assert_eq!(dram.touch(1 << 40, 0b1111), 4);
        assert_eq!(dram.touch(1 << 40, 0b0001), 0);
        dram.clear();
        assert_eq!(dram.touch(0, 0b1111), 4);
        assert_eq!(dram.touch(0xffff_ff80, 0b1000), 1);
        assert_eq!(dram.touch(1 << 40, 0b0001), 1);
        assert!(DramSectors::new(128, 256).is_err());
        assert!(DramSectors::new(0, 0).is_err());
    }

    /// The reference cache: per set, a list of (line address, valid sectors) with
    /// the most recently used first, searched linearly and never longer than the
    /// number of ways.
    struct ListCache {
        line_bytes: u64,
        sectors: u32,
        ways: usize,
        sets: Vec<Vec<(u64, u32)>>,
    }

    impl ListCache {
        fn new(g: &CacheGeometry) -> Self {
            ListCache {
                line_bytes: u64::from(g.line_bytes),
                sectors: g.sectors_per_line(),
                ways: g.ways as usize,
                sets: vec![Vec::new(); g.sets() as usize],
            }
        }

        /// (set, line address, requested sectors that exist).
        fn locate(&self, addr: u64, mask: u32) -> (usize, u64, u32) {
            let line = addr / self.line_bytes;
            let set = (line % self.sets.len() as u64) as usize;
            let existing: u32 = (0..self.sectors).map(|k| 1u32 << k).sum();
            (set, line * self.line_bytes, mask & existing)
        }

        fn load(&mut self, addr: u64, mask: u32) -> Lookup {
            let (set, line, wanted) = self.locate(addr, mask);
            if wanted == 0 {
                return Lookup::default();
            }
            let list = &mut self.sets[set];
            let valid = match list.iter().position(|&(l, _)| l == line) {
                Some(i) => list.remove(i).1,
                None => 0,
            };
            list.insert(0, (line, valid | wanted));
            list.truncate(self.ways);
            let hits = (valid & wanted).count_ones();
            lookup(hits, wanted.count_ones() - hits)
        }

        fn store(&self, addr: u64, mask: u32) -> Lookup {
            let (set, line, wanted) = self.locate(addr, mask);
            let valid = self.sets[set]
                .iter()
                .find(|&&(l, _)| l == line)
                .map_or(0, |&(_, v)| v);
            let hits = (valid & wanted).count_ones();
            lookup(hits, wanted.count_ones() - hits)
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Load(u64, u32),
        Store(u64, u32),
        Clear,
    }

    /// Small geometries: 8-byte sectors, 1 to 32 sectors a line, 1 to 4 ways,
    /// 1 to 4 sets.
    fn geometries() -> impl Strategy<Value = CacheGeometry> {
        (0u32..=5, 1u32..=4, 0u32..=2).prop_map(|(sector_log, ways, sets_log)| {
            let line_bytes = 8 << sector_log;
            CacheGeometry {
                bytes: (line_bytes * ways) << sets_log,
                line_bytes,
                sector_bytes: 8,
                ways,
            }
        })
    }

    /// Accesses to 12 lines (a few times the capacity of the smaller geometries),
    /// at any byte of the line, with any mask (bits past the line included).
    fn ops(line_bytes: u32) -> impl Strategy<Value = Vec<Op>> {
        let line_bytes = u64::from(line_bytes);
        let access = (0u64..12, 0..line_bytes, any::<u32>(), 0u32..5);
        let op = prop_oneof![
            20 => access.clone().prop_map(move |(line, offset, mask, sparse)| {
                // Thin the mask out now and then, so partial lines are common.
                let mask = if sparse == 0 { mask } else { mask & (mask >> sparse) };
                Op::Load(line * line_bytes + offset, mask)
            }),
            8 => access.prop_map(move |(line, offset, mask, _)| {
                Op::Store(line * line_bytes + offset, mask)
            }),
            1 => Just(Op::Clear),
        ];
        prop::collection::vec(op, 0..200)
    }

    proptest! {
        #[test]
        fn cache_matches_the_list_model(
            (geometry, ops) in geometries().prop_flat_map(|g| {
                let line_bytes = g.line_bytes;
                (Just(g), ops(line_bytes))
            })
        ) {
            let Ok(mut cache) = SectoredCache::new(&geometry) else {
                panic!("invalid test geometry {geometry:?}")
            };
            let mut model = ListCache::new(&geometry);
            for (step, op) in ops.iter().enumerate() {
                match *op {
                    Op::Load(addr, mask) => {
                        prop_assert_eq!(cache.load_line(addr, mask), model.load(addr, mask),
                            "step {} {:?}", step, op);
                    }
                    Op::Store(addr, mask) => {
                        prop_assert_eq!(cache.store_line(addr, mask), model.store(addr, mask),
                            "step {} {:?}", step, op);
                    }
                    Op::Clear => {
                        cache.clear();
                        model.sets.iter_mut().for_each(Vec::clear);
                    }
                }
            }
            prop_assert_eq!(cache.resident_by_set(), model.sets.clone());
            for line in 0..12 {
                let addr = line * u64::from(geometry.line_bytes);
                let (set, _, _) = model.locate(addr, 0);
                let expected = model.sets[set].iter().find(|&&(l, _)| l == addr).map_or(0, |&(_, v)| v);
                prop_assert_eq!(cache.resident_sectors(addr), expected);
            }
        }

        #[test]
        fn dram_matches_a_hash_set(
            sector_log in 0u32..=5,
            ops in prop::collection::vec((any::<bool>(), 0u64..128, any::<u32>(), 0u32..40), 0..200),
        ) {
            // Sectors of 256 bytes keep a bitset reaching 4 GiB at 2 MiB.
            let line_bytes = 256u32 << sector_log;
            let sectors = 1u64 << sector_log;
            let Ok(mut dram) = DramSectors::new(line_bytes, 256) else {
                panic!("invalid test sizes")
            };
            // Lines near 0, and lines on either side of 4 GiB, where the bitset
            // gives way to the hash set.
            let boundary_line = (1u64 << 32) / u64::from(line_bytes);
            let mut seen = HashSet::new();
            for (near_boundary, i, mask, clear) in ops {
                if clear == 0 {
                    dram.clear();
                    seen.clear();
                    continue;
                }
                let line = if near_boundary { boundary_line - 64 + i } else { i % 64 };
                let addr = line * u64::from(line_bytes);
                let fresh = (0..sectors)
                    .filter(|&k| mask & (1 << k) != 0)
                    .filter(|&k| seen.insert(line * sectors + k))
                    .count() as u32;
                prop_assert_eq!(dram.touch(addr, mask), fresh, "line {} mask {:#x}", line, mask);
            }
        }
    }
}
