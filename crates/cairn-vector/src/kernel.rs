//! Dot products for the scans, selected once at run time: AVX2 + FMA kernels on x86-64 CPUs that have
//! them (through `pulp`, which enables the target features around a safe closure), and portable loops
//! written so the compiler vectorises them (independent accumulator lanes) everywhere else. Binaries
//! stay baseline x86-64; the fast path is chosen by CPU detection, never by build flags.
//!
//! Both variants are tested against each other on random inputs of odd lengths. The per-vector int8
//! quantisation used by the fast scan lives here too.

/// Accumulator lanes: wide enough for AVX-512, and a multiple of SSE/AVX widths.
const LANES: usize = 16;

/// The instruction set the dispatched kernels use on this CPU: `"avx2+fma"` or `"portable"`.
pub fn simd_level() -> &'static str {
    if simd::v3().is_some() { "avx2+fma" } else { "portable" }
}

/// `Σ a[i]·b[i]`, on the fastest kernel this CPU runs. Lengths must match (extra elements of the
/// longer slice are ignored).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    match simd::v3() {
        Some(s) => simd::dot_f32(s, a, b),
        None => dot_portable(a, b),
    }
}

/// `Σ a[i]·b[i]` over int8 codes, exact in i32 (384 dims × 127² fits easily), on the fastest kernel
/// this CPU runs.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    match simd::v3() {
        Some(s) => simd::dot_i8(s, a, b),
        None => dot_i8_portable(a, b),
    }
}

/// Scores every row of `rows` (row-major, `dim` wide) that `admit` accepts against `query` with the f32
/// dot product, calling `emit(row, score)`; the CPU dispatch happens once for the whole scan.
pub fn scan_f32(
    query: &[f32],
    rows: &[f32],
    dim: usize,
    admit: impl FnMut(usize) -> bool,
    emit: impl FnMut(usize, f32),
) {
    match simd::v3() {
        Some(s) => simd::scan_f32(s, query, rows, dim, admit, emit),
        None => scan_with(query, rows, dim, admit, emit, dot_portable),
    }
}

/// [`scan_f32`] over int8 codes: `emit(row, Σ query[i]·code[i])`.
pub fn scan_i8(
    query: &[i8],
    rows: &[i8],
    dim: usize,
    admit: impl FnMut(usize) -> bool,
    emit: impl FnMut(usize, i32),
) {
    match simd::v3() {
        Some(s) => simd::scan_i8(s, query, rows, dim, admit, emit),
        None => scan_with(query, rows, dim, admit, emit, dot_i8_portable),
    }
}

#[inline(always)]
fn scan_with<T, R>(
    query: &[T],
    rows: &[T],
    dim: usize,
    mut admit: impl FnMut(usize) -> bool,
    mut emit: impl FnMut(usize, R),
    dot: impl Fn(&[T], &[T]) -> R,
) {
    if dim == 0 {
        return;
    }
    for (r, row) in rows.chunks_exact(dim).enumerate() {
        if admit(r) {
            emit(r, dot(query, row));
        }
    }
}

/// The portable `Σ a[i]·b[i]` (the reference the SIMD kernel is tested against).
#[inline]
pub fn dot_portable(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; LANES];
    let mut ca = a.chunks_exact(LANES);
    let mut cb = b.chunks_exact(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    let mut tail = 0.0;
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        tail += x * y;
    }
    acc.iter().sum::<f32>() + tail
}

/// The portable int8 dot product (the reference the SIMD kernel is tested against).
#[inline]
pub fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0i32; LANES];
    let mut ca = a.chunks_exact(LANES);
    let mut cb = b.chunks_exact(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for i in 0..LANES {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let mut tail = 0;
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        tail += i32::from(*x) * i32::from(*y);
    }
    acc.iter().sum::<i32>() + tail
}

#[cfg(target_arch = "x86_64")]
mod simd {
    //! AVX2 + FMA kernels. Every function takes the `V3` token, which only exists on CPUs that have the
    //! features; `vectorize` compiles the closure with them enabled.
    use std::sync::OnceLock;

    use pulp::x86::V3;
    use pulp::{f32x8, i8x16, i32x8};

    pub(super) fn v3() -> Option<V3> {
        static LEVEL: OnceLock<Option<V3>> = OnceLock::new();
        *LEVEL.get_or_init(V3::try_new)
    }

    #[inline(always)]
    fn dot_f32_in(s: V3, a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (ha, ta) = pulp::as_arrays::<8, f32>(&a[..n]);
        let (hb, tb) = pulp::as_arrays::<8, f32>(&b[..n]);
        let load = |x: &[f32; 8]| -> f32x8 { pulp::bytemuck::cast(*x) };
        let zero = s.splat_f32x8(0.0);
        let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
        let mut qa = ha.chunks_exact(4);
        let mut qb = hb.chunks_exact(4);
        for (x, y) in (&mut qa).zip(&mut qb) {
            a0 = s.mul_add_f32x8(load(&x[0]), load(&y[0]), a0);
            a1 = s.mul_add_f32x8(load(&x[1]), load(&y[1]), a1);
            a2 = s.mul_add_f32x8(load(&x[2]), load(&y[2]), a2);
            a3 = s.mul_add_f32x8(load(&x[3]), load(&y[3]), a3);
        }
        for (x, y) in qa.remainder().iter().zip(qb.remainder()) {
            a0 = s.mul_add_f32x8(load(x), load(y), a0);
        }
        let acc = s.add_f32x8(s.add_f32x8(a0, a1), s.add_f32x8(a2, a3));
        let lanes: [f32; 8] = pulp::bytemuck::cast(acc);
        let mut sum = lanes.iter().sum::<f32>();
        for (x, y) in ta.iter().zip(tb) {
            sum += x * y;
        }
        sum
    }

    #[inline(always)]
    fn dot_i8_in(s: V3, a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let (ha, ta) = pulp::as_arrays::<16, i8>(&a[..n]);
        let (hb, tb) = pulp::as_arrays::<16, i8>(&b[..n]);
        let widen = |x: &[i8; 16]| s.convert_i8x16_to_i16x16(pulp::bytemuck::cast::<[i8; 16], i8x16>(*x));
        let zero = s.splat_i32x8(0);
        let (mut a0, mut a1) = (zero, zero);
        let mut pa = ha.chunks_exact(2);
        let mut pb = hb.chunks_exact(2);
        for (x, y) in (&mut pa).zip(&mut pb) {
            a0 =
                s.wrapping_add_i32x8(a0, s.multiply_wrapping_add_adjacent_i16x16(widen(&x[0]), widen(&y[0])));
            a1 =
                s.wrapping_add_i32x8(a1, s.multiply_wrapping_add_adjacent_i16x16(widen(&x[1]), widen(&y[1])));
        }
        for (x, y) in pa.remainder().iter().zip(pb.remainder()) {
            a0 = s.wrapping_add_i32x8(a0, s.multiply_wrapping_add_adjacent_i16x16(widen(x), widen(y)));
        }
        let lanes: [i32; 8] = pulp::bytemuck::cast::<i32x8, [i32; 8]>(s.wrapping_add_i32x8(a0, a1));
        let mut sum = lanes.iter().sum::<i32>();
        for (x, y) in ta.iter().zip(tb) {
            sum += i32::from(*x) * i32::from(*y);
        }
        sum
    }

    pub(super) fn dot_f32(s: V3, a: &[f32], b: &[f32]) -> f32 {
        s.vectorize(|| dot_f32_in(s, a, b))
    }

    pub(super) fn dot_i8(s: V3, a: &[i8], b: &[i8]) -> i32 {
        s.vectorize(|| dot_i8_in(s, a, b))
    }

    pub(super) fn scan_f32(
        s: V3,
        query: &[f32],
        rows: &[f32],
        dim: usize,
        admit: impl FnMut(usize) -> bool,
        emit: impl FnMut(usize, f32),
    ) {
        s.vectorize(|| super::scan_with(query, rows, dim, admit, emit, |a, b| dot_f32_in(s, a, b)))
    }

    pub(super) fn scan_i8(
        s: V3,
        query: &[i8],
        rows: &[i8],
        dim: usize,
        admit: impl FnMut(usize) -> bool,
        emit: impl FnMut(usize, i32),
    ) {
        s.vectorize(|| super::scan_with(query, rows, dim, admit, emit, |a, b| dot_i8_in(s, a, b)))
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod simd {
    //! No runtime-dispatched kernels on this architecture: the portable loops are used.
    #[derive(Clone, Copy)]
    pub(super) enum Never {}

    pub(super) fn v3() -> Option<Never> {
        None
    }

    pub(super) fn dot_f32(s: Never, _: &[f32], _: &[f32]) -> f32 {
        match s {}
    }

    pub(super) fn dot_i8(s: Never, _: &[i8], _: &[i8]) -> i32 {
        match s {}
    }

    pub(super) fn scan_f32(
        s: Never,
        _: &[f32],
        _: &[f32],
        _: usize,
        _: impl FnMut(usize) -> bool,
        _: impl FnMut(usize, f32),
    ) {
        match s {}
    }

    pub(super) fn scan_i8(
        s: Never,
        _: &[i8],
        _: &[i8],
        _: usize,
        _: impl FnMut(usize) -> bool,
        _: impl FnMut(usize, i32),
    ) {
        match s {}
    }
}

/// Symmetric per-vector quantisation: `x ≈ scale · code`, codes in `[-127, 127]`. Appends the codes to
/// `out` and returns the scale (0 for an all-zero vector).
pub fn quantize_into(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        out.extend(std::iter::repeat_n(0i8, v.len()));
        return 0.0;
    }
    let inv = 127.0 / max;
    out.extend(v.iter().map(|x| (x * inv).round().clamp(-127.0, 127.0) as i8));
    max / 127.0
}

/// The HNSW distance: `1 − a·b` (vectors are L2-normalised, so this orders like cosine distance).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct DotDistance;

impl hnsw_rs::anndists::dist::Distance<f32> for DotDistance {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - dot(va, vb)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift: deterministic inputs without an extra crate.
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn dot_matches_naive() {
        for n in [0, 1, 15, 16, 17, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-4, "n = {n}");
            assert!((dot_portable(&a, &b) - naive).abs() < 1e-4, "n = {n}");
            let qa: Vec<i8> = (0..n).map(|i| (i % 255) - 127).map(|x| x as i8).collect();
            let naive_i: i32 = qa.iter().zip(&qa).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
            assert_eq!(dot_i8(&qa, &qa), naive_i);
            assert_eq!(dot_i8_portable(&qa, &qa), naive_i);
        }
    }

    /// The dispatched (SIMD on AVX2 machines) kernels equal the portable ones on random inputs of every
    /// length up to 3 × 64 + 1 (all tail shapes) and at 384: bit-exact for int8, within rounding for f32.
    #[test]
    fn dispatched_kernels_equal_portable_ones() {
        let mut seed = 0x5eed_u64;
        for n in (0..=193).chain([383, 384, 385, 768]) {
            let a: Vec<f32> = (0..n).map(|_| (rng(&mut seed) % 2001) as f32 / 1000.0 - 1.0).collect();
            let b: Vec<f32> = (0..n).map(|_| (rng(&mut seed) % 2001) as f32 / 1000.0 - 1.0).collect();
            let (fast, slow) = (dot(&a, &b), dot_portable(&a, &b));
            let exact: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            assert!((f64::from(fast) - exact).abs() < 1e-4, "n = {n}: {fast} vs {exact}");
            assert!((fast - slow).abs() < 1e-4, "n = {n}: {fast} vs {slow}");
            // Full int8 range, including -128 (not produced by quantisation, still exact).
            let ca: Vec<i8> = (0..n).map(|_| rng(&mut seed) as i8).collect();
            let cb: Vec<i8> = (0..n).map(|_| rng(&mut seed) as i8).collect();
            assert_eq!(dot_i8(&ca, &cb), dot_i8_portable(&ca, &cb), "n = {n}");
        }
    }

    /// The scans visit admitted rows only, in order, with the kernels' scores.
    #[test]
    fn scans_match_per_row_dots() {
        let mut seed = 0xabcd_u64;
        for dim in [1, 7, 16, 33, 384] {
            let rows = 37;
            let data: Vec<f32> =
                (0..rows * dim).map(|_| (rng(&mut seed) % 2001) as f32 / 1000.0 - 1.0).collect();
            let codes: Vec<i8> = (0..rows * dim).map(|_| rng(&mut seed) as i8).collect();
            let q: Vec<f32> = data[..dim].iter().map(|x| x * 0.5 + 0.1).collect();
            let qc: Vec<i8> = codes[dim..2 * dim].to_vec();
            let admit = |r: usize| r % 3 != 1;
            let mut got = Vec::new();
            scan_f32(&q, &data, dim, admit, |r, d| got.push((r, d)));
            let want: Vec<(usize, f32)> = (0..rows)
                .filter(|&r| admit(r))
                .map(|r| (r, dot_portable(&q, &data[r * dim..(r + 1) * dim])))
                .collect();
            assert_eq!(got.len(), want.len());
            for ((r1, d1), (r2, d2)) in got.iter().zip(&want) {
                assert_eq!(r1, r2);
                assert!((d1 - d2).abs() < 1e-4, "dim {dim} row {r1}: {d1} vs {d2}");
            }
            let mut got_i = Vec::new();
            scan_i8(&qc, &codes, dim, admit, |r, d| got_i.push((r, d)));
            let want_i: Vec<(usize, i32)> = (0..rows)
                .filter(|&r| admit(r))
                .map(|r| (r, dot_i8_portable(&qc, &codes[r * dim..(r + 1) * dim])))
                .collect();
            assert_eq!(got_i, want_i, "dim {dim}");
        }
    }

    #[test]
    fn reports_the_simd_level() {
        let level = simd_level();
        assert!(level == "avx2+fma" || level == "portable");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            assert_eq!(level, "avx2+fma");
        }
    }

    #[test]
    fn quantisation_round_trips_closely() {
        let v: Vec<f32> = (0..384).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5).collect();
        let mut codes = Vec::new();
        let s = quantize_into(&v, &mut codes);
        assert_eq!(codes.len(), 384);
        for (x, c) in v.iter().zip(&codes) {
            assert!((x - s * f32::from(*c)).abs() <= s * 0.5 + 1e-6);
        }
        let mut zero = Vec::new();
        assert_eq!(quantize_into(&[0.0; 4], &mut zero), 0.0);
        assert_eq!(zero, [0; 4]);
    }
}
