// A kernel is printed back without `r#`, where `kernel type` would not parse;
// and `r#` does not make a word of the language a name.
use simt::simt_kernel;

simt_kernel! {
    kernel r#type(r#in: &mut [u32]) {
        vreg r#loop;
        global_store r#in[0], 1
    }
}

fn main() {}
