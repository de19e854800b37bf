//! Dot products written so that the compiler vectorises them (independent accumulator lanes), and the
//! per-vector int8 quantisation used by the fast scan.

/// Accumulator lanes: wide enough for AVX-512, and a multiple of SSE/AVX widths.
const LANES: usize = 16;

/// `Σ a[i]·b[i]`. Lengths must match (extra elements of the longer slice are ignored).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
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

/// `Σ a[i]·b[i]` over int8 codes, exact in i32 (384 dims × 127² fits easily).
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
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

    #[test]
    fn dot_matches_naive() {
        for n in [0, 1, 15, 16, 17, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-4, "n = {n}");
            let qa: Vec<i8> = (0..n).map(|i| (i % 255) - 127).map(|x| x as i8).collect();
            let naive_i: i32 = qa.iter().zip(&qa).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
            assert_eq!(dot_i8(&qa, &qa), naive_i);
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
