//! Fused, in-place element-wise kernels for the encoder: bias + activation and bias + residual, applied
//! to a fresh GEMM output row by row on every core. Plain loops over slices, written so the compiler
//! vectorises them (no calls in the hot loop: `exp` and `erf` are polynomials).

use candle_core::{CpuStorage, CustomOp1, InplaceOp1, InplaceOp2, Layout, Shape};
use rayon::prelude::*;

use crate::config::Activation;

/// Rows per parallel task (keeps tasks big enough to amortise scheduling).
const MIN_ROWS: usize = 8;

/// Up to this many elements a kernel runs on the calling thread: handing a few tens of µs of work to
/// the thread pool (and waiting for it) costs more than it saves, most of all on a busy machine.
const SERIAL_MAX: usize = 1 << 15;

fn f32_slice<'a>(s: &'a mut CpuStorage, l: &Layout) -> candle_core::Result<&'a mut [f32]> {
    let (a, b) = l
        .contiguous_offsets()
        .ok_or_else(|| candle_core::Error::Msg("expected a contiguous tensor".into()))?;
    match s {
        CpuStorage::F32(v) => Ok(&mut v[a..b]),
        _ => Err(candle_core::Error::Msg("expected f32".into())),
    }
}

/// `x = act(x + bias)` for each row of a `[n, bias.len()]` tensor.
pub(crate) struct BiasAct<'a> {
    pub(crate) bias: &'a [f32],
    pub(crate) act: Activation,
}

impl InplaceOp1 for BiasAct<'_> {
    fn name(&self) -> &'static str {
        "bias-act"
    }

    fn cpu_fwd(&self, s: &mut CpuStorage, l: &Layout) -> candle_core::Result<()> {
        let x = f32_slice(s, l)?;
        let b = self.bias;
        let act = self.act;
        let one = |row: &mut [f32]| match act {
            Activation::Gelu => row.iter_mut().zip(b).for_each(|(v, &bb)| *v = gelu_erf(*v + bb)),
            Activation::GeluTanh => row.iter_mut().zip(b).for_each(|(v, &bb)| *v = gelu_tanh(*v + bb)),
            Activation::Relu => row.iter_mut().zip(b).for_each(|(v, &bb)| *v = (*v + bb).max(0.0)),
        };
        if x.len() <= SERIAL_MAX {
            x.chunks_mut(b.len()).for_each(one);
        } else {
            x.par_chunks_mut(b.len()).with_min_len(MIN_ROWS).for_each(one);
        }
        Ok(())
    }
}

/// `x = x + bias + residual` for each row of a `[n, bias.len()]` tensor.
pub(crate) struct BiasResidual<'a> {
    pub(crate) bias: &'a [f32],
}

impl InplaceOp2 for BiasResidual<'_> {
    fn name(&self) -> &'static str {
        "bias-residual"
    }

    fn cpu_fwd(
        &self,
        s1: &mut CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> candle_core::Result<()> {
        let x = f32_slice(s1, l1)?;
        let (a, e) = l2
            .contiguous_offsets()
            .ok_or_else(|| candle_core::Error::Msg("expected a contiguous residual".into()))?;
        let CpuStorage::F32(r) = s2 else { return Err(candle_core::Error::Msg("expected f32".into())) };
        let r = &r[a..e];
        if r.len() != x.len() {
            return Err(candle_core::Error::Msg("residual shape differs".into()));
        }
        let b = self.bias;
        let one = |(row, res): (&mut [f32], &[f32])| {
            for ((v, &rr), &bb) in row.iter_mut().zip(res).zip(b) {
                *v += bb + rr;
            }
        };
        if x.len() <= SERIAL_MAX {
            x.chunks_mut(b.len()).zip(r.chunks(b.len())).for_each(one);
        } else {
            x.par_chunks_mut(b.len()).zip(r.par_chunks(b.len())).with_min_len(MIN_ROWS).for_each(one);
        }
        Ok(())
    }
}

/// `x = x + bias` for each row.
pub(crate) struct Bias<'a> {
    pub(crate) bias: &'a [f32],
}

impl InplaceOp1 for Bias<'_> {
    fn name(&self) -> &'static str {
        "bias"
    }

    fn cpu_fwd(&self, s: &mut CpuStorage, l: &Layout) -> candle_core::Result<()> {
        let x = f32_slice(s, l)?;
        let b = self.bias;
        let one = |row: &mut [f32]| row.iter_mut().zip(b).for_each(|(v, &bb)| *v += bb);
        if x.len() <= SERIAL_MAX {
            x.chunks_mut(b.len()).for_each(one);
        } else {
            x.par_chunks_mut(b.len()).with_min_len(MIN_ROWS * 4).for_each(one);
        }
        Ok(())
    }
}

/// `x = (x − mean) / √(var + eps) · weight + bias` for each row (LayerNorm over the last dimension, in
/// place, f32 throughout like candle's).
pub(crate) struct LayerNormOp<'a> {
    pub(crate) weight: &'a [f32],
    pub(crate) bias: &'a [f32],
    pub(crate) eps: f32,
}

impl InplaceOp1 for LayerNormOp<'_> {
    fn name(&self) -> &'static str {
        "layer-norm"
    }

    fn cpu_fwd(&self, s: &mut CpuStorage, l: &Layout) -> candle_core::Result<()> {
        let x = f32_slice(s, l)?;
        let (w, b, eps) = (self.weight, self.bias, self.eps);
        let n = w.len();
        if n == 0 || x.len() % n != 0 || b.len() != n {
            return Err(candle_core::Error::Msg("layer norm: shape differs".into()));
        }
        let one = |row: &mut [f32]| {
            let mean = row.iter().sum::<f32>() / n as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, &ww), &bb) in row.iter_mut().zip(w).zip(b) {
                *v = (*v - mean) * inv * ww + bb;
            }
        };
        if x.len() <= SERIAL_MAX {
            x.chunks_mut(n).for_each(one);
        } else {
            x.par_chunks_mut(n).with_min_len(MIN_ROWS).for_each(one);
        }
        Ok(())
    }
}

/// Multi-head self-attention straight from the fused projection: `[batch·len, 3·hidden]` (per token
/// Q | K | V, each `heads × head_dim`, the query scale already folded in) to the context
/// `[batch·len, hidden]`, one sequence per task. Keys past a sequence's length are skipped (the
/// padding mask), and so are padded query rows (left at zero: later layers work per token and never
/// attend to them, and pooling ignores them). No head split / transpose copies, no per-head GEMM calls.
pub(crate) struct Attention<'a> {
    pub(crate) len: usize,
    pub(crate) heads: usize,
    pub(crate) head_dim: usize,
    /// Real tokens of each sequence.
    pub(crate) lens: &'a [usize],
    /// A bias added to the scores by relative position (MPNet): `[heads, 2·len − 1]`, the value for
    /// key `j` and query `t` at `j − t + len − 1`.
    pub(crate) bias: Option<&'a [f32]>,
}

impl CustomOp1 for Attention<'_> {
    fn name(&self) -> &'static str {
        "attention"
    }

    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> candle_core::Result<(CpuStorage, Shape)> {
        let (a, e) = l
            .contiguous_offsets()
            .ok_or_else(|| candle_core::Error::Msg("expected a contiguous qkv".into()))?;
        let CpuStorage::F32(v) = s else { return Err(candle_core::Error::Msg("expected f32".into())) };
        let qkv = &v[a..e];
        let (len, h) = (self.len, self.heads * self.head_dim);
        let b = self.lens.len();
        if qkv.len() != b * len * 3 * h || self.lens.iter().any(|&k| k > len) {
            return Err(candle_core::Error::Msg("attention: qkv shape differs".into()));
        }
        let mut out = vec![0f32; b * len * h];
        if b == 0 || len == 0 {
            return Ok((CpuStorage::F32(out), Shape::from((b * len, h))));
        }
        if self.bias.is_some_and(|bias| bias.len() != self.heads * (2 * len - 1)) {
            return Err(candle_core::Error::Msg("attention: position bias shape differs".into()));
        }
        let bias = self.bias.map(|bias| (bias, len));
        let one = |(ctx, (rows, &k)): (&mut [f32], (&[f32], &usize))| {
            attend(rows, ctx, k, self.heads, self.head_dim, bias);
        };
        if b == 1 {
            // A single sequence (a query): no hand-off to the thread pool for a few hundred µs of work.
            out.chunks_mut(len * h).zip(qkv.chunks(len * 3 * h).zip(self.lens)).for_each(one);
        } else {
            out.par_chunks_mut(len * h).zip(qkv.par_chunks(len * 3 * h).zip(self.lens)).for_each(one);
        }
        Ok((CpuStorage::F32(out), Shape::from((b * len, h))))
    }
}

/// One sequence: `rows` is `[len, 3·hidden]`, `ctx` is `[len, hidden]`, `k` real tokens; `bias`, the
/// relative position bias and the padded length it was made for.
fn attend(rows: &[f32], ctx: &mut [f32], k: usize, heads: usize, hd: usize, bias: Option<(&[f32], usize)>) {
    let h = heads * hd;
    let mut scores = vec![0f32; k];
    for head in 0..heads {
        let off = head * hd;
        for t in 0..k {
            let q = &rows[t * 3 * h + off..][..hd];
            let mut max = f32::NEG_INFINITY;
            match bias {
                None => {
                    for (j, s) in scores.iter_mut().enumerate() {
                        *s = dot(q, &rows[j * 3 * h + h + off..][..hd]);
                        max = max.max(*s);
                    }
                }
                // Key j's bias for query t is at j − t + len − 1: a slice of the head's row from t.
                Some((bias, len)) => {
                    let row = &bias[head * (2 * len - 1) + len - 1 - t..][..k];
                    for ((j, s), b) in scores.iter_mut().enumerate().zip(row) {
                        *s = dot(q, &rows[j * 3 * h + h + off..][..hd]) + b;
                        max = max.max(*s);
                    }
                }
            }
            let mut sum = 0.0;
            for s in scores.iter_mut() {
                *s = exp_nonpos(*s - max);
                sum += *s;
            }
            let inv = 1.0 / sum;
            let out = &mut ctx[t * h + off..][..hd];
            for (j, &p) in scores.iter().enumerate() {
                let p = p * inv;
                let v = &rows[j * 3 * h + 2 * h + off..][..hd];
                out.iter_mut().zip(v).for_each(|(o, &x)| *o += p * x);
            }
        }
    }
}

/// `Σ a·b` in eight independent lanes (vectorises; head sizes are multiples of 8 in practice).
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `e^x` for `x ≤ 0` (clamped at -87), Cephes' polynomial; relative error ~1e-7.
#[inline(always)]
fn exp_nonpos(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer in the low mantissa bits
    let x = x.clamp(-87.0, 0.0);
    let t = x * std::f32::consts::LOG2_E + MAGIC;
    let n = t - MAGIC;
    let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    let scale = f32::from_bits((((t.to_bits() as i32) - 0x4B40_0000 + 127) << 23) as u32);
    y * scale
}

/// `erf(x)`, Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly =
        ((((1.061_405_4 * t - 1.453_152_1) * t + 1.421_413_8) * t - 0.284_496_74) * t + 0.254_829_6) * t;
    let y = 1.0 - poly * exp_nonpos(-a * a);
    y.copysign(x)
}

/// Exact GELU, `x · Φ(x)` (PyTorch's `gelu`).
#[inline(always)]
pub(crate) fn gelu_erf(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// GELU with the tanh approximation (`gelu_new`).
#[inline(always)]
fn gelu_tanh(x: f32) -> f32 {
    let u = 0.797_884_6 * (x + 0.044_715 * x * x * x);
    // tanh(u) = 1 - 2 / (e^{2u} + 1), computed from e^{-2|u|} to stay in range.
    let e = exp_nonpos(-2.0 * u.abs());
    let th = ((1.0 - e) / (1.0 + e)).copysign(u);
    0.5 * x * (1.0 + th)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_std() {
        let mut worst = 0f32;
        for i in 0..=87_000 {
            let x = -(i as f32) / 1000.0;
            let (a, b) = (exp_nonpos(x), x.exp());
            if b > 1e-30 {
                worst = worst.max(((a - b) / b).abs());
            }
        }
        assert!(worst < 3e-7, "relative error {worst}");
    }

    #[test]
    fn gelu_matches_the_erf_definition() {
        // erf via the f64 series (reference), GELU = x Φ(x).
        fn erf64(x: f64) -> f64 {
            let mut sum = 0.0;
            let mut term = x;
            let mut n = 0.0;
            while term.abs() > 1e-17 && n < 200.0 {
                sum += term / (2.0 * n + 1.0);
                n += 1.0;
                term *= -x * x / n;
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        }
        let mut worst = 0f64;
        for i in -6000..=6000 {
            let x = i as f64 / 1000.0;
            let want = 0.5 * x * (1.0 + erf64(x / std::f64::consts::SQRT_2));
            worst = worst.max((gelu_erf(x as f32) as f64 - want).abs());
        }
        assert!(worst < 1e-6, "absolute error {worst}");
        assert_eq!(gelu_erf(0.0), 0.0);
        assert!(gelu_erf(-20.0).abs() < 1e-6 && (gelu_erf(20.0) - 20.0).abs() < 1e-5);
    }

    #[test]
    fn gelu_tanh_matches_its_formula() {
        for i in -600..=600 {
            let x = i as f32 / 100.0;
            let want = 0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044_715 * x * x * x)).tanh());
            assert!((gelu_tanh(x) - want).abs() < 1e-6, "{x}");
        }
    }
}
