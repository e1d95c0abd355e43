use simt::simt_kernel;

simt_kernel! {
    kernel k(n: u32) {
        sreg i;
        mreg more;
        s_mov i, 0
        loop
            s_add_u32 i, i, 1
            s_cmp_lt_u32 more, i, n
    }
}

fn main() {}
