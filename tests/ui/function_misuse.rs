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

    fn sized(v: vreg, const N: u32) {
        lds s: [u32; N];
        lds_store s[0], v
    }

    fn unfinished(a: vreg) {
        v_add_u32 a, a,
    }

    fn l1(x: vreg) { v_add_u32 x, x, 1 }
    fn l2(x: vreg) { call l1(x) call l1(x) call l1(x) call l1(x) call l1(x) call l1(x) call l1(x) call l1(x) }
    fn l3(x: vreg) { call l2(x) call l2(x) call l2(x) call l2(x) call l2(x) call l2(x) call l2(x) call l2(x) }
    fn l4(x: vreg) { call l3(x) call l3(x) call l3(x) call l3(x) call l3(x) call l3(x) call l3(x) call l3(x) }
    fn l5(x: vreg) { call l4(x) call l4(x) call l4(x) call l4(x) call l4(x) call l4(x) call l4(x) call l4(x) }
    fn l6(x: vreg) { call l5(x) call l5(x) call l5(x) call l5(x) call l5(x) call l5(x) call l5(x) call l5(x) }

    kernel declarations(out: &mut [u32]) {
        vreg v;
        v_mov v, 0
        call sized(v, 64)
        call sized(v, 16)
        #[conflict_free]
        call bump(v)
        global_store out[global_id.x], v
    }

    kernel unfinished_call(out: &mut [u32]) {
        vreg v;
        v_mov v, 0
        call unfinished(v)
        global_store out[global_id.x], v
    }

    kernel huge(out: &mut [u32]) {
        vreg v;
        v_mov v, 0
        call l6(v)
        global_store out[global_id.x], v
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
