//! A BERT (or MPNet) encoder forward pass on CPU with candle tensors.
//!
//! MPNet differs from BERT in three places: no token type embeddings, positions counted from the
//! padding id + 1, and a relative position bias (one learnt value per head for each of 32 buckets of
//! distance, the buckets logarithmic beyond 8 tokens) added to every layer's attention scores.
//!
//! Weights are kept in the layouts the kernels want: linear weights transposed once at load
//! (`[in, out]`, so every projection is one row-major GEMM) and also kept as `[out, in]` for inputs of
//! few rows (queries), the query/key/value projections fused into one `[hidden, 3·hidden]` matrix, and
//! the query scale folded into the query weights. Attention, LayerNorm and the bias/activation epilogues
//! are fused kernels of our own ([`crate::ops`]) that stay on the calling thread for small inputs.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Tensor};

use crate::config::{Activation, Family, ModelSpec};
use crate::ops::{Attention, Bias, BiasAct, BiasResidual, LayerNormOp};
use crate::{Error, Result};

struct LayerNorm {
    weight: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl LayerNorm {
    /// Normalises `x` in place (a fresh tensor nobody else holds) and returns it.
    fn apply(&self, x: Tensor) -> candle_core::Result<Tensor> {
        x.inplace_op1(&LayerNormOp { weight: &self.weight, bias: &self.bias, eps: self.eps })?;
        Ok(x)
    }
}

struct Linear {
    /// `[in, out]`, contiguous.
    weight_t: Tensor,
    /// `[out, in]`, contiguous (PyTorch's layout).
    weight: Tensor,
    bias: Vec<f32>,
}

/// Up to this many rows (a query, a few short texts) the GEMM reads the `[out, in]` weights: gemm does
/// not pack the right-hand side for so few rows, and each output column is then one contiguous run of
/// memory instead of a strided walk over the `[in, out]` copy (measured ~11 % less CPU per query).
/// Larger inputs use the `[in, out]` copy, which gemm packs (the layout the batch throughput was tuned on).
const SMALL_ROWS: usize = 64;

impl Linear {
    fn new(weight_t: Tensor, bias: Vec<f32>) -> candle_core::Result<Linear> {
        let weight = weight_t.t()?.contiguous()?;
        Ok(Linear { weight_t, weight, bias })
    }

    fn matmul(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        if x.dim(0)? <= SMALL_ROWS { x.matmul(&self.weight.t()?) } else { x.matmul(&self.weight_t) }
    }

    /// `x·W + b`: `[n, in]` → `[n, out]`.
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let y = self.matmul(x)?;
        y.inplace_op1(&Bias { bias: &self.bias })?;
        Ok(y)
    }

    /// `act(x·W + b)`.
    fn forward_act(&self, x: &Tensor, act: Activation) -> candle_core::Result<Tensor> {
        let y = self.matmul(x)?;
        y.inplace_op1(&BiasAct { bias: &self.bias, act })?;
        Ok(y)
    }

    /// `x·W + b + residual`.
    fn forward_residual(&self, x: &Tensor, residual: &Tensor) -> candle_core::Result<Tensor> {
        let y = self.matmul(x)?;
        y.inplace_op2(residual, &BiasResidual { bias: &self.bias })?;
        Ok(y)
    }
}

struct Layer {
    qkv: Linear,
    attn_out: Linear,
    attn_norm: LayerNorm,
    up: Linear,
    down: Linear,
    out_norm: LayerNorm,
}

/// The encoder: embeddings plus transformer layers.
pub(crate) struct Bert {
    word: Tensor,
    position: Tensor,
    /// The first position's row (0 for BERT, the padding id + 1 for MPNet).
    position_offset: usize,
    /// BERT's token type 0 embedding, added to every token (MPNet has none).
    token_type0: Option<Tensor>,
    /// MPNet's relative position bias, `[buckets, heads]` row-major, and its bucket count.
    relative: Option<(Vec<f32>, usize)>,
    emb_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    hidden: usize,
    activation: Activation,
}

/// A layer's attention tensors in BERT: query, key, value, output, and the LayerNorm after it.
pub(crate) const BERT_ATTENTION: [&str; 5] = [
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "attention.output.LayerNorm",
];

/// The same tensors in MPNet.
pub(crate) const MPNET_ATTENTION: [&str; 5] =
    ["attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o", "attention.LayerNorm"];

/// Looks tensors up by name, with or without a `bert.` prefix, checking shapes.
struct Weights<'a> {
    map: &'a HashMap<String, Tensor>,
    prefix: &'static str,
    path: &'a Path,
    dir: &'a Path,
}

impl Weights<'_> {
    fn get(&self, name: &str, shape: &[usize]) -> Result<Tensor> {
        let full = format!("{}{name}", self.prefix);
        let t = self.map.get(&full).ok_or_else(|| Error::CorruptWeights {
            path: self.path.to_path_buf(),
            reason: format!("tensor `{full}` is missing"),
        })?;
        if t.dims() != shape {
            return Err(Error::ConfigMismatch {
                dir: self.dir.to_path_buf(),
                reason: format!("tensor `{full}` has shape {:?}, config.json implies {shape:?}", t.dims()),
            });
        }
        t.to_dtype(DType::F32).map_err(|e| Error::CorruptWeights {
            path: self.path.to_path_buf(),
            reason: format!("tensor `{full}`: {e}"),
        })
    }

    /// A LayerNorm's weight and bias (`weight`/`bias`, or the older `gamma`/`beta`).
    fn norm(&self, name: &str, h: usize, eps: f32) -> Result<LayerNorm> {
        let has = |s: &str| self.map.contains_key(&format!("{}{name}.{s}", self.prefix));
        let (w, b) = if !has("weight") && has("gamma") { ("gamma", "beta") } else { ("weight", "bias") };
        Ok(LayerNorm {
            weight: internal(self.get(&format!("{name}.{w}"), &[h])?.to_vec1())?,
            bias: internal(self.get(&format!("{name}.{b}"), &[h])?.to_vec1())?,
            eps,
        })
    }

    /// A linear layer stored as PyTorch does (`weight` is `[out, in]`), transposed for the GEMM.
    fn linear(&self, name: &str, inp: usize, out: usize) -> Result<Linear> {
        let w = self.get(&format!("{name}.weight"), &[out, inp])?;
        let b = self.get(&format!("{name}.bias"), &[out])?;
        internal(w.t().and_then(|t| t.contiguous()).and_then(|wt| Linear::new(wt, b.to_vec1()?)))
    }
}

/// One `[hidden, 3·hidden]` projection for Q, K and V, with the attention scale folded into Q.
fn fuse_qkv(q: &Linear, k: &Linear, v: &Linear, scale: f64) -> candle_core::Result<Linear> {
    let wq = (&q.weight_t * scale)?;
    let bias: Vec<f32> = q
        .bias
        .iter()
        .map(|b| b * scale as f32)
        .chain(k.bias.iter().copied())
        .chain(v.bias.iter().copied())
        .collect();
    Linear::new(Tensor::cat(&[&wq, &k.weight_t, &v.weight_t], 1)?.contiguous()?, bias)
}

fn internal<T>(r: candle_core::Result<T>) -> Result<T> {
    r.map_err(|e| Error::Inference(e.to_string()))
}

impl Bert {
    /// Builds the encoder from the tensors of `model.safetensors` (`path`), checked against `spec`.
    pub(crate) fn load(map: &HashMap<String, Tensor>, spec: &ModelSpec, path: &Path) -> Result<Bert> {
        let c = &spec.bert;
        let mpnet = spec.family == Family::Mpnet;
        let prefix = match () {
            _ if map.contains_key("embeddings.word_embeddings.weight") => "",
            _ if mpnet => "mpnet.",
            _ => "bert.",
        };
        let w = Weights { map, prefix, path, dir: &spec.dir };
        let h = c.hidden_size;
        let eps = c.layer_norm_eps as f32;
        let heads = c.num_attention_heads;
        let head_dim = h / heads;
        let word = w.get("embeddings.word_embeddings.weight", &[c.vocab_size, h])?;
        let position = w.get("embeddings.position_embeddings.weight", &[c.max_position_embeddings, h])?;
        let (token_type0, relative, position_offset) = if mpnet {
            let buckets = c.relative_attention_num_buckets.unwrap_or(32);
            let table = w.get("encoder.relative_attention_bias.weight", &[buckets, heads])?;
            let table = internal(table.flatten_all().and_then(|t| t.to_vec1()))?;
            (None, Some((table, buckets)), crate::config::mpnet_offset(c))
        } else {
            let token_type = w.get("embeddings.token_type_embeddings.weight", &[c.type_vocab_size, h])?;
            (Some(internal(token_type.get(0))?), None, 0)
        };
        let emb_norm = w.norm("embeddings.LayerNorm", h, eps)?;
        // Layer tensor names: BERT's, or MPNet's (`attention.attn.{q,k,v,o}`, `attention.LayerNorm`).
        let [q_name, k_name, v_name, o_name, attn_norm_name] =
            if mpnet { MPNET_ATTENTION } else { BERT_ATTENTION };
        let scale = 1.0 / (head_dim as f64).sqrt();
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for i in 0..c.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let q = w.linear(&format!("{p}.{q_name}"), h, h)?;
            let k = w.linear(&format!("{p}.{k_name}"), h, h)?;
            let v = w.linear(&format!("{p}.{v_name}"), h, h)?;
            let qkv = internal(fuse_qkv(&q, &k, &v, scale))?;
            layers.push(Layer {
                qkv,
                attn_out: w.linear(&format!("{p}.{o_name}"), h, h)?,
                attn_norm: w.norm(&format!("{p}.{attn_norm_name}"), h, eps)?,
                up: w.linear(&format!("{p}.intermediate.dense"), h, c.intermediate_size)?,
                down: w.linear(&format!("{p}.output.dense"), c.intermediate_size, h)?,
                out_norm: w.norm(&format!("{p}.output.LayerNorm"), h, eps)?,
            });
        }
        Ok(Bert {
            word,
            position,
            position_offset,
            token_type0,
            relative,
            emb_norm,
            layers,
            heads,
            head_dim,
            hidden: h,
            activation: spec.activation,
        })
    }

    /// Hidden size.
    pub(crate) fn hidden(&self) -> usize {
        self.hidden
    }

    /// Runs `batch` sequences padded to `len` (`ids` row-major `[batch, len]`, `lens[i]` real tokens)
    /// and returns the last hidden states, row-major `[batch, len, hidden]`.
    pub(crate) fn forward(&self, ids: &[u32], batch: usize, len: usize, lens: &[usize]) -> Result<Vec<f32>> {
        internal(self.forward_inner(ids, batch, len, lens))
    }

    fn forward_inner(
        &self,
        ids: &[u32],
        b: usize,
        l: usize,
        lens: &[usize],
    ) -> candle_core::Result<Vec<f32>> {
        let dev = Device::Cpu;
        let h = self.hidden;
        let n = b * l;
        let ids_t = Tensor::from_slice(ids, n, &dev)?;
        let x = self.word.index_select(&ids_t, 0)?.reshape((b, l, h))?;
        let x = x.broadcast_add(&self.position.narrow(0, self.position_offset, l)?.unsqueeze(0)?)?;
        let x = match &self.token_type0 {
            Some(t) => x.broadcast_add(t)?,
            None => x,
        };
        let mut x = self.emb_norm.apply(x.reshape((n, h))?.contiguous()?)?;

        let (nh, hd) = (self.heads, self.head_dim);
        let bias = self.relative.as_ref().map(|(table, buckets)| relative_bias(table, *buckets, nh, l));
        let attention = Attention { len: l, heads: nh, head_dim: hd, lens, bias: bias.as_deref() };
        for layer in &self.layers {
            let ctx = layer.qkv.forward(&x)?.apply_op1_no_bwd(&attention)?;
            x = layer.attn_norm.apply(layer.attn_out.forward_residual(&ctx, &x)?)?;
            let up = layer.up.forward_act(&x, self.activation)?;
            x = layer.out_norm.apply(layer.down.forward_residual(&up, &x)?)?;
        }
        x.flatten_all()?.to_vec1::<f32>()
    }
}

/// MPNet's relative position bias for sequences of `len` tokens: `[heads, 2·len − 1]` row-major, the
/// value for key `j` and query `t` at `j − t + len − 1`.
fn relative_bias(table: &[f32], buckets: usize, heads: usize, len: usize) -> Vec<f32> {
    let width = (2 * len).saturating_sub(1);
    let mut out = vec![0f32; heads * width];
    for i in 0..width {
        let bucket = relative_bucket(i as i64 - (len as i64 - 1), buckets, 128);
        for head in 0..heads {
            out[head * width + i] = table[bucket * heads + head];
        }
    }
    out
}

/// The bucket of a relative position (key minus query), as MPNet (after T5) computes it: half the
/// buckets for keys before the query, half for keys after; within each, exact distances below a
/// quarter of the buckets, then logarithmic up to `max_distance`.
fn relative_bucket(relative: i64, buckets: usize, max_distance: i64) -> usize {
    let half = (buckets / 2) as i64;
    let n = -relative;
    let mut bucket = if n < 0 { half } else { 0 };
    let n = n.abs();
    let exact = half / 2;
    bucket += if n < exact {
        n
    } else {
        let log = ((n as f64 / exact as f64).ln() / (max_distance as f64 / exact as f64).ln()
            * (half - exact) as f64) as i64;
        (exact + log).min(half - 1)
    };
    bucket as usize
}

/// Rows of `[batch, len, hidden]` pooled into one vector per sequence.
pub(crate) fn pool(
    hidden_states: &[f32],
    hidden: usize,
    len: usize,
    lens: &[usize],
    pooling: crate::config::Pooling,
) -> Vec<Vec<f32>> {
    use crate::config::Pooling;
    lens.iter()
        .enumerate()
        .map(|(i, &k)| {
            let seq = &hidden_states[i * len * hidden..(i * len + k) * hidden];
            match pooling {
                Pooling::Cls => seq[..hidden].to_vec(),
                Pooling::Mean => {
                    let mut acc = vec![0f32; hidden];
                    for tok in seq.chunks_exact(hidden) {
                        acc.iter_mut().zip(tok).for_each(|(a, t)| *a += t);
                    }
                    let inv = 1.0 / k.max(1) as f32;
                    acc.iter_mut().for_each(|a| *a *= inv);
                    acc
                }
                Pooling::Max => {
                    let mut acc = vec![f32::NEG_INFINITY; hidden];
                    for tok in seq.chunks_exact(hidden) {
                        acc.iter_mut().zip(tok).for_each(|(a, &t)| *a = a.max(t));
                    }
                    acc
                }
            }
        })
        .collect()
}

/// Scales `v` to unit L2 norm (a zero vector stays zero).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        let inv = 1.0 / norm;
        v.iter_mut().for_each(|x| *x *= inv);
    }
}
