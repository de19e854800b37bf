//! Generated vectors for benchmarks, examples and tests: deterministic, no extra crate.
//!
//! [`topic_vectors`] gives unit vectors around `n / 50` topic centres, the neighbourhoods sentence
//! embeddings have (on uniform noise every index looks worse than on real data); [`near_queries`] gives
//! queries that land near stored vectors, as real queries land near a topic.

/// A xorshift pseudo-random generator.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[-1, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

/// `v` scaled to unit length (a zero vector stays zero).
pub fn normalised(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// `n` unit vectors of `dim` dimensions around `max(n / 50, 4)` random topic centres (noise 0.08 per
/// coordinate), each vector's topic drawn at random.
pub fn topic_vectors(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed | 1);
    let topics = (n / 50).max(4);
    let centres: Vec<Vec<f32>> =
        (0..topics).map(|_| normalised((0..dim).map(|_| rng.unit()).collect())).collect();
    (0..n)
        .map(|_| {
            let c = &centres[(rng.next_u64() % topics as u64) as usize];
            normalised(c.iter().map(|x| x + 0.08 * rng.unit()).collect())
        })
        .collect()
}

/// `count` queries, each a random stored vector of `data` moved by noise 0.05 per coordinate.
pub fn near_queries(data: &[Vec<f32>], count: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed | 1);
    (0..count)
        .map(|_| {
            let base = &data[(rng.next_u64() % data.len() as u64) as usize];
            normalised(base.iter().map(|x| x + 0.05 * rng.unit()).collect())
        })
        .collect()
}
