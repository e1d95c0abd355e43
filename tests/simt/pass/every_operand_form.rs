// Every operand form: numbered and named registers of each class, scalar
// parameters of each type, integer (decimal, hex, negative, suffixed) and float
// immediates, every special value with and without an axis, element and byte
// addressing, typed and untyped loads and stores, LDS; checked on the host.
// Named registers take the indices numbered ones leave free: a..f are v3..v6.
use simt::simt_kernel;

simt_kernel! {
    pub kernel forms(octets: &mut [u8], words: &mut [u32], floats: &mut [f32], halves: &[i16],
                     k: i32, scale: f32, n: u32) {
        lds tile: [u16; 64];
        lds pad: [f32; 3];
        vreg a, b, idx, f;
        sreg s, t;
        mreg m, odd;
        v_mov v0, global_id
        v_shl idx, v0, 3                     // 8 words per work-item
        // words[8g + 0]: local id, group id, group size and group count
        v_add_u32 a, local_id.x, group_id.y
        v_mul_u32 b, group_size, num_groups.x
        v_add_u32 a, a, b
        global_store words[idx], a
        // words[8g + 1]: scalar ALU on parameters, specials and immediates
        s_add_i32 s, k, -3
        s_add_u32 s, s, 0x10
        s_mul_u32 t, wave_width, 2
        s_add_u32 t, t, wave_id
        s_add_u32 s, s, t
        v_add_u32 idx, idx, 1
        global_store words[idx], s
        // words[8g + 2]: lane id, local_id.y/.z, group_id.z, num_groups.y/.z, group_size.y/.z
        v_add_u32 a, lane_id, local_id.y
        v_add_u32 a, a, local_id.z
        v_add_u32 a, a, group_id.z
        v_add_u32 a, a, num_groups.y
        v_add_u32 a, a, num_groups.z
        v_add_u32 a, a, group_size.y
        v_add_u32 a, a, group_size.z
        v_add_u32 a, a, global_id.y
        v_add_u32 a, a, global_id.z
        v_add_u32 idx, idx, 1
        v_shl v1, idx, 2                     // the byte offset of words[idx]
        global_store_u32 words.bytes[v1], a
        // floats[g] = scale * 2.5 + 1 (integer immediate in an f32 position)
        v_fma_f32 f, scale, 2.5f32, 1
        v_shl v2, v0, 2
        global_store_f32 floats.bytes[v2], f
        // octets[g] = low byte of 3g - 1
        v_mad_i32 a, v0, 3, -1
        global_store_u8 octets.bytes[v0], a
        // words[8g + 3]: select on a mask from a compare; m_not, m_and
        v_and a, v0, 1u32
        v_cmp_eq_u32 odd, a, 1
        m_not m, odd
        m_and m, m, m
        v_select a, m, 1.0, -1
        v_add_u32 idx, idx, 1
        global_store words[idx], a
        // words[8g + 4]: a round trip through LDS with byte addressing
        v_add_u32 a, local_id, 1000
        lds_store tile[local_id], a
        v_shl b, local_id, 1
        lds_load_u16 a, tile.bytes[b]
        v_add_u32 idx, idx, 1
        global_store words[idx], a
        // words[8g + 5]: sign-extending typed load of an i16 buffer, element addressed
        global_load a, halves[v0]
        v_add_u32 idx, idx, 1
        global_store words[idx], a
        // words[8g + 6]: a scalar register and an unsigned parameter as vector operands
        v_add_u32 a, s, n
        v_add_u32 idx, idx, 1
        global_store words[idx], a
        // words[8g + 7]: an LDS array of f32 written with an integer immediate
        lds_store pad[2], 7
        lds_load a, pad[2]
        v_add_u32 idx, idx, 1
        global_store words[idx], a
    }
}

#[test]
fn runs() {
    let groups = 2u32;
    let size = 32u32;
    let total = (groups * size) as usize;
    let mut octets = vec![0u8; total];
    let mut words = vec![0u32; total * 8];
    let mut floats = vec![0f32; total];
    let halves: Vec<i16> = (0..total as i16).map(|i| -i).collect();
    let config = simt::core::LaunchConfig::new(groups, size);
    forms::launch(
        &config,
        &mut octets,
        &mut words,
        &mut floats,
        &halves,
        5,
        0.5,
        100,
    )
    .unwrap();
    for g in 0..total {
        let local = g as u32 % size;
        let w = &words[8 * g..8 * g + 8];
        assert_eq!(w[0], local + size * groups, "words[8 * {g}]");
        // k - 3 + 0x10 + wave_width * 2 + wave_id
        let s = (5 - 3 + 0x10) + 32 * 2 + local / 32;
        assert_eq!(w[1], s);
        // lane id plus four unit sizes and counts along y and z; ids along y, z are 0
        assert_eq!(w[2], local + 4);
        let expected = if g % 2 == 1 {
            u32::MAX
        } else {
            1.0f32.to_bits()
        };
        assert_eq!(w[3], expected, "select of {g}");
        assert_eq!(w[4], 1000 + local);
        assert_eq!(w[5], (-(g as i32)) as u32);
        assert_eq!(w[6], s + 100);
        assert_eq!(w[7], 7.0f32.to_bits());
        assert_eq!(octets[g], (3 * g as i32 - 1) as u8);
        assert_eq!(floats[g], 0.5f32.mul_add(2.5, 1.0));
    }
    assert_eq!((forms::VREGS, forms::SREGS, forms::MREGS), (7, 2, 2));
    assert_eq!(forms::LDS_BYTES, 140);
}
