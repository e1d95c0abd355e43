use simt::simt_kernel;

// The first kernel's closing brace is missing, so the second one is read as
// part of its body.
simt_kernel! {
    pub kernel first(out: &mut [u32]) {
        global_store out[lane_id], lane_id

    pub kernel second(out: &mut [u32]) {
        global_store out[lane_id], 1
    }
    }
}

fn main() {}
