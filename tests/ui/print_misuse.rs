// `print`'s format and values: each mistake at the string or the value.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        vreg x;
        print "x = {d}", x;
        print "{} and {}", x;
        print "just {}", x, lane_id;
        print x;
        print "{} {} {} {} {}", x, x, x, x, x;
        print "open { brace", x;
        print;
        print "{}", out;
        print "{}", "x";
        v_mov x, "seven"
        global_store out["a"], x
        global_store out[lane_id], x
    }
}

fn main() {}
