//! Every typed load and store mnemonic, global and LDS, written with
//! `simt_kernel!` on byte offsets, in odd lanes only, at wave32 and wave64:
//! sub-word loads zero- or sign-extend, stores keep the low bits, and even lanes
//! touch nothing.

use simt::core::LaunchConfig;
use simt::simt_kernel;

const UNTOUCHED: u32 = 0xdead;
const ITEMS: usize = 64;

simt_kernel! {
    /// In odd lanes: the seven typed global loads of `raw` at byte g, 2g or 4g
    /// into `out[16 g ..]`; the seven typed global stores of `x = 0x8a9b_c780
    /// | g` into regions of `bytes`; and `x` through each typed LDS store,
    /// read back by the load of the same type into `out[16 g + 7 ..]`.
    kernel typed(raw: &[u8], out: &mut [u32], bytes: &mut [u8]) {
        lds tile: [u32; 288];
        vreg g, b, h, w, x, y, at, base, bit;
        mreg odd;
        v_mov g, global_id
        v_mul_u32 base, g, 16
        v_mov y, 0xdead
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        if odd
            v_mov b, g
            v_mul_u32 h, g, 2
            v_mul_u32 w, g, 4
            global_load_u8 y, raw.bytes[b]
            global_store out[base], y
            global_load_i8 y, raw.bytes[b]
            global_store out[base + 1], y
            global_load_u16 y, raw.bytes[h]
            global_store out[base + 2], y
            global_load_i16 y, raw.bytes[h]
            global_store out[base + 3], y
            global_load_u32 y, raw.bytes[w]
            global_store out[base + 4], y
            global_load_i32 y, raw.bytes[w]
            global_store out[base + 5], y
            global_load_f32 y, raw.bytes[w]
            global_store out[base + 6], y
            v_or x, g, 0x8a9bc780
            global_store_u8 bytes.bytes[b], x
            v_add_u32 at, b, 64
            global_store_i8 bytes.bytes[at], x
            v_add_u32 at, h, 128
            global_store_u16 bytes.bytes[at], x
            v_add_u32 at, h, 256
            global_store_i16 bytes.bytes[at], x
            v_add_u32 at, w, 384
            global_store_u32 bytes.bytes[at], x
            v_add_u32 at, w, 640
            global_store_i32 bytes.bytes[at], x
            v_add_u32 at, w, 896
            global_store_f32 bytes.bytes[at], x
            lds_store_u8 tile.bytes[b], x
            lds_load_u8 y, tile.bytes[b]
            global_store out[base + 7], y
            v_add_u32 at, b, 64
            lds_store_i8 tile.bytes[at], x
            lds_load_i8 y, tile.bytes[at]
            global_store out[base + 8], y
            v_add_u32 at, h, 128
            lds_store_u16 tile.bytes[at], x
            lds_load_u16 y, tile.bytes[at]
            global_store out[base + 9], y
            v_add_u32 at, h, 256
            lds_store_i16 tile.bytes[at], x
            lds_load_i16 y, tile.bytes[at]
            global_store out[base + 10], y
            v_add_u32 at, w, 384
            lds_store_u32 tile.bytes[at], x
            lds_load_u32 y, tile.bytes[at]
            global_store out[base + 11], y
            v_add_u32 at, w, 640
            lds_store_i32 tile.bytes[at], x
            lds_load_i32 y, tile.bytes[at]
            global_store out[base + 12], y
            v_add_u32 at, w, 896
            lds_store_f32 tile.bytes[at], x
            lds_load_f32 y, tile.bytes[at]
        endif
        global_store out[base + 13], y
    }
}

#[test]
fn typed_loads_extend_and_typed_stores_truncate() {
    // Bytes with the top bit set and clear, so sign and zero extension differ.
    let raw: Vec<u8> = (0..4 * ITEMS as u32)
        .map(|k| (k * 37 + 0x85) as u8)
        .collect();
    let word = |at: usize| [raw[at], raw[at + 1], raw[at + 2], raw[at + 3]];
    for width in [32u32, 64] {
        let mut out = vec![0u32; 16 * ITEMS];
        let mut bytes = vec![0x55u8; 1152];
        let config = LaunchConfig::new(1, ITEMS as u32).wave_width(width);
        typed::launch(&config, &raw, &mut out, &mut bytes).unwrap();
        for g in 0..ITEMS {
            let got = &out[16 * g..16 * g + 14];
            if g % 2 == 0 {
                assert_eq!(&got[..13], &[0; 13], "wave{width} item {g}");
                assert_eq!(got[13], UNTOUCHED, "wave{width} item {g}");
                continue;
            }
            let (b, h, w) = (g, 2 * g, 4 * g);
            let half = u16::from_ne_bytes([raw[h], raw[h + 1]]);
            let x = 0x8a9b_c780 | g as u32;
            let want = [
                u32::from(raw[b]),
                raw[b] as i8 as i32 as u32,
                u32::from(half),
                half as i16 as i32 as u32,
                u32::from_ne_bytes(word(w)),
                u32::from_ne_bytes(word(w)),
                u32::from_ne_bytes(word(w)),
                // Through LDS: 0x80 | g is negative as an i8, 0xc780 | g as an i16.
                x & 0xff,
                x as u8 as i8 as i32 as u32,
                x & 0xffff,
                x as u16 as i16 as i32 as u32,
                x,
                x,
                x,
            ];
            assert_eq!(got, &want, "wave{width} item {g}");
        }
        // Even items' bytes keep the fill; odd items' hold x's low bytes.
        for g in 0..ITEMS {
            let x = (0x8a9b_c780 | g as u32).to_ne_bytes();
            let odd = g % 2 == 1;
            let pick = |n: usize| -> Vec<u8> {
                if odd {
                    x[..n].to_vec()
                } else {
                    vec![0x55; n]
                }
            };
            assert_eq!(bytes[g], pick(1)[0], "u8 {g}");
            assert_eq!(bytes[64 + g], pick(1)[0], "i8 {g}");
            assert_eq!(&bytes[128 + 2 * g..][..2], &pick(2)[..], "u16 {g}");
            assert_eq!(&bytes[256 + 2 * g..][..2], &pick(2)[..], "i16 {g}");
            for region in [384, 640, 896] {
                assert_eq!(&bytes[region + 4 * g..][..4], &pick(4)[..], "{region} {g}");
            }
        }
    }
}
