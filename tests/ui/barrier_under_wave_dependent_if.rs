use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        mreg first_wave;
        s_cmp_eq_u32 first_wave, wave_id, 0
        if first_wave
            barrier
        endif
        global_store out[global_id], 1
    }
}

fn main() {}
