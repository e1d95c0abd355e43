use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg done;
        v_cmp_ge_u32 done, lane_id, 4
        if done
            break done
        endif
        global_store out[lane_id], 1
    }
}

fn main() {}
