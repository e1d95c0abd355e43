// Mistakes in inline functions and their calls: each error points into the
// function and is labelled at the call it came through.
use simt::simt_kernel;

simt_kernel! {
    fn bump(x: vreg) {
        v_add_u32 x, x, 1
        barrier
    }

    fn ping(x: vreg) {
        call pong(x)
    }

    fn pong(x: vreg) {
        call ping(x)
    }

    fn wrong(x: vreg, n: u32) {
        v_mov x, n
    }

    fn reserved(loop: vreg) {
        v_mov loop, 1
    }

    kernel k(out: &mut [u32]) {
        vreg i, v;
        mreg m;
        v_mov i, global_id.x
        v_mov v, 0
        call bump(v)
        call ping(v)
        call bmup(v)
        call bump(v, i)
        call bump
        global_store out[i], v
    }

    kernel divergent(out: &mut [u32]) {
        vreg i, v;
        mreg m;
        v_mov i, global_id.x
        v_mov v, 0
        v_cmp_lt_u32 m, i, 3
        if m
            call bump(v)
        endif
        global_store out[i], v
    }
}

fn main() {}
