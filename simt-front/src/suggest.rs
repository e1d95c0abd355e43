//! "Did you mean": the closest words to a misspelt one, and what other GPU
//! languages call this language's special values and keywords.

use crate::diagnostic::Help;
use simt_lang::isa::MNEMONICS;
use std::cell::RefCell;
use std::collections::HashMap;

/// The control-flow words (and `barrier`): mnemonics that shape the program
/// rather than compute, which users take for keywords.
pub const CONTROL: &[&str] = &[
    "if", "else", "endif", "loop", "endloop", "break", "continue", "barrier",
];

/// What other GPU languages (CUDA, HIP, OpenCL, Metal, WGSL, GLSL) call the
/// special values, and the name each has here; matched ignoring ASCII case.
/// Written without an axis, a 3-D one is suggested with the axis of the
/// original (`threadIdx.y` -> `local_id.y`).
const SPELLINGS: &[(&str, &str)] = &[
    // CUDA and HIP.
    ("threadIdx", "local_id"),
    ("blockIdx", "group_id"),
    ("blockDim", "group_size"),
    ("gridDim", "num_groups"),
    ("laneid", "lane_id"),
    ("warpid", "wave_id"),
    ("warpSize", "wave_width"),
    // OpenCL.
    ("get_global_id", "global_id"),
    ("get_local_id", "local_id"),
    ("get_group_id", "group_id"),
    ("get_local_size", "group_size"),
    ("get_num_groups", "num_groups"),
    ("get_sub_group_local_id", "lane_id"),
    ("get_sub_group_id", "wave_id"),
    ("get_sub_group_size", "wave_width"),
    // Metal.
    ("thread_position_in_grid", "global_id"),
    ("thread_position_in_threadgroup", "local_id"),
    ("threadgroup_position_in_grid", "group_id"),
    ("threads_per_threadgroup", "group_size"),
    ("threadgroups_per_grid", "num_groups"),
    ("thread_index_in_simdgroup", "lane_id"),
    ("simdgroup_index_in_threadgroup", "wave_id"),
    ("threads_per_simdgroup", "wave_width"),
    // WGSL and GLSL.
    ("global_invocation_id", "global_id"),
    ("local_invocation_id", "local_id"),
    ("workgroup_id", "group_id"),
    ("num_workgroups", "num_groups"),
    ("subgroup_invocation_id", "lane_id"),
    ("subgroup_id", "wave_id"),
    ("subgroup_size", "wave_width"),
    ("gl_GlobalInvocationID", "global_id"),
    ("gl_LocalInvocationID", "local_id"),
    ("gl_WorkGroupID", "group_id"),
    ("gl_WorkGroupSize", "group_size"),
    ("gl_NumWorkGroups", "num_groups"),
    ("gl_SubgroupInvocationID", "lane_id"),
    ("gl_SubgroupID", "wave_id"),
    ("gl_SubgroupSize", "wave_width"),
    // Common variable names for the same values.
    ("thread_id", "global_id"),
    ("global_thread_id", "global_id"),
    ("tid", "global_id"),
    ("gid", "global_id"),
    ("lid", "local_id"),
    ("local_thread_id", "local_id"),
    ("block_id", "group_id"),
    ("work_group_id", "group_id"),
    ("block_size", "group_size"),
    ("block_dim", "group_size"),
    ("local_size", "group_size"),
    ("workgroup_size", "group_size"),
    ("num_blocks", "num_groups"),
    ("lane", "lane_id"),
    ("lane_index", "lane_id"),
    ("warp_id", "wave_id"),
    ("warp_size", "wave_width"),
    ("wave_size", "wave_width"),
    ("wavefront_size", "wave_width"),
];

/// What a statement that starts with a CUDA or HIP word is here: the message
/// that names this language's equivalent, and the word to write instead where
/// one word replaces it.
pub struct Habit {
    /// What to write instead, said in full.
    pub message: String,
    /// What replaces the CUDA word (and its parenthesised arguments), where
    /// it can be said without knowing them.
    pub replacement: Option<String>,
}

/// CUDA's and HIP's intrinsics that begin a statement, and the instruction
/// each is here.
const INTRINSICS: &[(&str, &str)] = &[
    ("__syncthreads", "barrier"),
    ("__shfl_sync", "v_shfl_idx"),
    ("__shfl", "v_shfl_idx"),
    ("__shfl_xor_sync", "v_shfl_xor"),
    ("__shfl_xor", "v_shfl_xor"),
    ("__shfl_up_sync", "v_shfl_up"),
    ("__shfl_up", "v_shfl_up"),
    ("__shfl_down_sync", "v_shfl_down"),
    ("__shfl_down", "v_shfl_down"),
    ("__ballot_sync", "s_ballot"),
    ("__ballot", "s_ballot"),
];

/// CUDA's atomic functions and the operation each names in this language's
/// `global_atomic_*` and `lds_atomic_*` mnemonics.
const ATOMICS: &[(&str, &str)] = &[
    ("atomicAdd", "add_u32"),
    ("atomicSub", "sub_u32"),
    ("atomicMin", "min_u32"),
    ("atomicMax", "max_u32"),
    ("atomicAnd", "and"),
    ("atomicOr", "or"),
    ("atomicXor", "xor"),
    ("atomicExch", "xchg"),
    ("atomicCAS", "cmpswap"),
];

/// C's type names, which start a variable's declaration in CUDA and HIP.
const C_TYPES: &[&str] = &[
    "int", "unsigned", "signed", "float", "double", "half", "bool", "char", "short", "long",
    "uint", "size_t", "auto", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t",
];

/// The help for a statement a CUDA or HIP programmer starts with `word`, or
/// `None` when the word is no CUDA habit.
pub fn cuda_habit(word: &str) -> Option<Habit> {
    if let Some((_, ours)) = INTRINSICS.iter().find(|(theirs, _)| *theirs == word) {
        let message = match *ours {
            "barrier" => "`__syncthreads` is CUDA: the workgroup barrier here is the instruction `barrier`, without parentheses".to_owned(),
            "s_ballot" => format!("`{word}` is CUDA: a ballot here is `s_ballot dst, mask`, the active lanes of a mask as one scalar (lanes 32 to 63 with `s_ballot_hi`)"),
            _ => format!("`{word}` is CUDA: the lane exchange here is the instruction `{ours} dst, src, lane`"),
        };
        return Some(Habit {
            message,
            replacement: (*ours == "barrier").then(|| "barrier".to_owned()),
        });
    }
    if word == "__syncwarp" {
        return Some(Habit {
            message: "`__syncwarp` is CUDA: the lanes of a wave run in lockstep here and need no barrier among them; delete it (`barrier` waits for the whole workgroup)".to_owned(),
            replacement: None,
        });
    }
    if let Some((_, op)) = ATOMICS.iter().find(|(theirs, _)| *theirs == word) {
        return Some(Habit {
            message: format!("`{word}` is CUDA: an atomic here is an instruction, `global_atomic_{op} old, buf[i], value` on a buffer or `lds_atomic_{op}` on an LDS array, where `old` (optional) receives the old value"),
            replacement: None,
        });
    }
    if word == "__shared__" {
        return Some(Habit {
            message: "`__shared__` is CUDA: workgroup memory here is an LDS array, declared `lds tile: [f32; 256];` at the top of the body".to_owned(),
            replacement: None,
        });
    }
    C_TYPES.contains(&word).then(|| Habit {
        message: format!("`{word}` declares a variable in C: registers here are `vreg name;` (one value per lane), `sreg name;` (one per wave) or `mreg name;` (a lane mask); registers have no type, the instruction says it (`v_add_f32`)"),
        replacement: Some("vreg".to_owned()),
    })
}

/// The special values that take an axis.
const WITH_AXIS: &[&str] = &[
    "local_id",
    "global_id",
    "group_id",
    "group_size",
    "num_groups",
];

/// This language's spelling of a special value another language names `name`,
/// with `axis` (`x`, `y` or `z`, any case) kept where the value has axes.
pub fn special_spelling(name: &str, axis: Option<&str>) -> Option<String> {
    let (_, ours) = SPELLINGS
        .iter()
        .find(|(theirs, _)| theirs.eq_ignore_ascii_case(name))?;
    let axis = axis
        .map(str::to_ascii_lowercase)
        .filter(|a| matches!(a.as_str(), "x" | "y" | "z"));
    Some(match axis {
        Some(a) if WITH_AXIS.contains(ours) => format!("{ours}.{a}"),
        _ => (*ours).to_owned(),
    })
}

/// The most candidates [`closest`] gives.
const NEAREST: usize = 3;

/// The candidates closest to `word`, for "did you mean", ignoring ASCII case:
/// one that differs from `word` in case only (`V_MOV` -> `v_mov`), else the
/// shortest candidates that extend `word` with a `_suffix` (`v_add` ->
/// `v_add_u32`, ...), else the ones at the smallest edit distance if it is
/// small for the word's length (at most a third of it, plus one); three at
/// most.
pub fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Vec<&'a str> {
    if let Some(same) = candidates
        .clone()
        .into_iter()
        .find(|c| c.eq_ignore_ascii_case(word))
    {
        return vec![same];
    }
    let extended: Vec<&str> = candidates
        .clone()
        .into_iter()
        .filter(|c| {
            c.len() > word.len() + 1
                && c.as_bytes()[word.len()] == b'_'
                && c.get(..word.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(word))
        })
        .collect();
    if !extended.is_empty() {
        // The shortest three (`v` has 170 extensions): the nearest to what
        // was written, in the table's order among equals.
        let mut extended = extended;
        extended.sort_by_key(|c| c.len());
        extended.truncate(NEAREST);
        return extended;
    }
    let word: Vec<char> = word.chars().collect();
    let mut edits = Edits::default();
    let mut best = Vec::new();
    let mut best_d = (word.len() / 3).max(1) + 1;
    for c in candidates {
        let Some(d) = edits.within(&word, c, best_d) else {
            continue;
        };
        if d < best_d {
            best_d = d;
            best.clear();
        }
        if !best.contains(&c) {
            best.push(c);
        }
    }
    best.truncate(NEAREST);
    best
}

/// The mnemonics closest to `word`. Remembered per word, since a misspelt
/// mnemonic is looked up by the parser and the checker, and pasted mistakes
/// repeat one word many times; the memory is dropped when it grows large.
pub fn mnemonics(word: &str) -> Vec<&'static str> {
    thread_local! {
        static SEEN: RefCell<HashMap<String, Vec<&'static str>>> = RefCell::default();
    }
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        if let Some(found) = seen.get(word) {
            return found.clone();
        }
        let found = closest(word, MNEMONICS.iter().map(|m| m.name));
        if seen.len() >= 4096 {
            seen.clear();
        }
        seen.insert(word.to_owned(), found.clone());
        found
    })
}

/// Buffers for [`Edits::within`], reused across the candidates of one
/// [`closest`], so that a flood of misspellings costs no allocation per
/// candidate.
#[derive(Default)]
struct Edits {
    other: Vec<char>,
    rows: [Vec<usize>; 3],
}

impl Edits {
    /// The edit distance between `a` and `b` ignoring ASCII case, counting a
    /// swap of neighbours as one edit (optimal string alignment), since
    /// `endfi` is one slip from `endif`; `None` when it exceeds `bound`.
    fn within(&mut self, a: &[char], b: &str, bound: usize) -> Option<usize> {
        self.other.clear();
        self.other.extend(b.chars());
        let b = &self.other;
        if a.len().abs_diff(b.len()) > bound {
            return None;
        }
        let same = |x: char, y: char| x.eq_ignore_ascii_case(&y);
        let [before, previous, current] = &mut self.rows;
        // previous[j]: distance between a[..i-1] and b[..j]; before: a[..i-2].
        previous.clear();
        previous.extend(0..=b.len());
        for i in 1..=a.len() {
            current.clear();
            current.push(i);
            let mut row_min = i;
            for j in 1..=b.len() {
                let cost = usize::from(!same(a[i - 1], b[j - 1]));
                let mut d = (previous[j] + 1)
                    .min(current[j - 1] + 1)
                    .min(previous[j - 1] + cost);
                if i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) {
                    d = d.min(before[j - 2] + 1);
                }
                row_min = row_min.min(d);
                current.push(d);
            }
            // Every later row is at least this row's minimum.
            if row_min > bound {
                return None;
            }
            std::mem::swap(before, previous);
            std::mem::swap(previous, current);
        }
        Some(previous[b.len()]).filter(|&d| d <= bound)
    }
}

/// What [`similar`] calls a mnemonic.
pub const MNEMONIC: (&str, &str) = ("mnemonic", "mnemonics");

/// The help for a word close to `suggestions`, each a `what` (singular and
/// plural: `("mnemonic", "mnemonics")`): one is the text to write instead;
/// several are listed, for the author to choose.
pub fn similar(what: (&str, &str), suggestions: &[&str]) -> Option<Help> {
    let quoted: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
    match (suggestions, quoted.as_slice()) {
        ([], _) | (_, []) => None,
        ([one], _) => Some(Help {
            message: format!("a similar {} exists", what.0),
            replacement: Some((*one).to_owned()),
        }),
        (_, [init @ .., last]) => Some(Help {
            message: format!("similar {} exist: {} or {last}", what.1, init.join(", ")),
            replacement: None,
        }),
    }
}

/// The help for a name another language gives a special value: ours.
pub fn special_value(ours: &str) -> Help {
    Help {
        message: "the special value of that meaning is".to_owned(),
        replacement: Some(ours.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simt_lang::isa::lookup;

    fn distance(a: &str, b: &str) -> Option<usize> {
        let a: Vec<char> = a.chars().collect();
        Edits::default().within(&a, b, usize::MAX / 2)
    }

    #[test]
    fn suggestions() {
        let names = || MNEMONICS.iter().map(|m| m.name);
        assert_eq!(closest("v_add_f23", names()), ["v_add_f32"]);
        assert_eq!(
            closest("v_add", names()),
            ["v_add_u32", "v_add_i32", "v_add_f32"]
        );
        // Of the 170 extensions of `v`, the three shortest.
        assert_eq!(closest("v", names()), ["v_or", "v_and", "v_xor"]);
        assert_eq!(closest("endfi", names()), ["endif"]);
        assert_eq!(closest("globl_load", names()), ["global_load"]);
        assert!(closest("frobnicate", names()).is_empty());
        assert_eq!(closest("V_MOV", names()), ["v_mov"]);
        assert_eq!(closest("Endif", names()), ["endif"]);
        assert_eq!(
            closest("V_ADD", names()),
            ["v_add_u32", "v_add_i32", "v_add_f32"]
        );
        assert_eq!(closest("V_ADD_F23", names()), ["v_add_f32"]);
        assert_eq!(closest("ñ_mov", names()), ["v_mov", "s_mov"]);
        let names = ("name", "names");
        assert_eq!(
            similar(names, &["a", "b", "c"]).map(|h| h.to_string()),
            Some("similar names exist: `a`, `b` or `c`".to_owned())
        );
        let one = similar(names, &["a"]).expect("a help");
        assert_eq!(one.replacement.as_deref(), Some("a"));
        assert_eq!(one.to_string(), "a similar name exists: `a`");
        assert_eq!(similar(names, &[]), None);
        assert_eq!(mnemonics("V_ADD_F23"), ["v_add_f32"]);
        assert_eq!(mnemonics("V_ADD_F23"), ["v_add_f32"]);
        assert_eq!(distance("kitten", "sitting"), Some(3));
        assert_eq!(distance("endfi", "endif"), Some(1));
        assert_eq!(distance("", "abc"), Some(3));
        assert_eq!(Edits::default().within(&['a'; 9], "bbbbbbbbb", 3), None);
    }

    #[test]
    fn spellings_name_special_values() {
        assert_eq!(
            special_spelling("threadIdx", Some("x")).as_deref(),
            Some("local_id.x")
        );
        assert_eq!(
            special_spelling("blockidx", Some("Y")).as_deref(),
            Some("group_id.y")
        );
        assert_eq!(
            special_spelling("thread_id", None).as_deref(),
            Some("global_id")
        );
        assert_eq!(
            special_spelling("laneid", Some("x")).as_deref(),
            Some("lane_id")
        );
        assert_eq!(special_spelling("frob", None), None);
        let specials = crate::check::SPECIALS;
        for (theirs, ours) in SPELLINGS {
            assert!(specials.contains(ours), "{theirs} -> {ours}");
            assert!(lookup(theirs).is_none(), "{theirs}");
        }
        for word in CONTROL {
            assert!(lookup(word).is_some(), "{word}");
        }
    }
}
