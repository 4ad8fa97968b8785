//! Embeddings for search by meaning: a static model (model2vec: a token-embedding table,
//! mean-pooled; no transformer at query time) compiled into the binary, so nothing is
//! downloaded and nothing else runs. The model is distilled from all-MiniLM-L6-v2 by
//! `scripts/distill-model` (see `model/README.md`).
//!
//! A message's vector (see [`message_vector`]) is stored in its tantivy document as int8
//! (a fast field, read memory-mapped), so it is written, replaced and deleted with the
//! message: an append embeds only the new messages.

use std::sync::OnceLock;

use anyhow::{Context, Result};
use model2vec_rs::model::StaticModel;

use crate::model::Message;

const MODEL: &[u8] = include_bytes!("../../model/minilm-l6-m2v-256/model.safetensors");
const TOKENIZER: &[u8] = include_bytes!("../../model/minilm-l6-m2v-256/tokenizer.json");
const CONFIG: &[u8] = include_bytes!("../../model/minilm-l6-m2v-256/config.json");

/// Tokens of a text that are pooled (the model's own limit is 512).
const MAX_TOKENS: usize = 256;
/// Characters of a message's text, and of each output's error lines, that are embedded.
const TEXT_CHARS: usize = 1500;
const ERROR_LINES: usize = 8;

/// The model in the binary, loaded on first use.
pub fn model() -> Result<&'static StaticModel> {
    static M: OnceLock<std::result::Result<StaticModel, String>> = OnceLock::new();
    M.get_or_init(|| StaticModel::from_bytes(TOKENIZER, MODEL, CONFIG, Some(true)).map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| anyhow::anyhow!("loading the embedded model: {e}"))
}

/// Dimensions of a vector.
pub fn dim() -> Result<usize> {
    Ok(model()?.dim())
}

/// The unit vector of `text` (zeros when no token of it is known).
pub fn embed(text: &str) -> Result<Vec<f32>> {
    let m = model()?;
    m.encode_with_args(&[text.to_string()], Some(MAX_TOKENS), 1).pop().context("the model gave no vector")
}

/// A vector as stored: its inverse int8 norm (f32, little-endian), then one signed byte per
/// dimension, scaled so that the largest component is ±127. `None` for a zero vector.
pub fn quantize(v: &[f32]) -> Option<Vec<u8>> {
    let (q, norm) = quantize_i8(v)?;
    let mut out = Vec::with_capacity(4 + q.len());
    out.extend_from_slice(&(1.0 / norm).to_le_bytes());
    out.extend(q.iter().map(|&x| x as u8));
    Some(out)
}

/// A vector as int8 (largest component ±127) and the norm of that, or `None` for a zero
/// vector.
fn quantize_i8(v: &[f32]) -> Option<(Vec<i8>, f32)> {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return None;
    }
    let q: Vec<i8> = v.iter().map(|x| (x / max * 127.0).round() as i8).collect();
    let norm = q.iter().map(|&x| f32::from(x) * f32::from(x)).sum::<f32>().sqrt();
    Some((q, norm))
}

/// A query vector, quantised like the stored ones so that the comparison with each of
/// them is an integer dot product (which the compiler vectorises).
pub struct Query {
    q: Vec<i8>,
    inv_norm: f32,
}

impl Query {
    /// `None` for a zero vector (no token of the query is known to the model).
    pub fn new(v: &[f32]) -> Option<Query> {
        let (q, norm) = quantize_i8(v)?;
        Some(Query { q, inv_norm: 1.0 / norm })
    }

    /// Cosine similarity with a stored vector (see [`quantize`]); 0 for one of another size.
    pub fn cosine(&self, stored: &[u8]) -> f32 {
        let Some((inv, q)) = stored.split_first_chunk::<4>() else { return 0.0 };
        if q.len() != self.q.len() {
            return 0.0;
        }
        let dot: i32 = self.q.iter().zip(q).map(|(&a, &b)| i32::from(a) * i32::from(b as i8)).sum();
        dot as f32 * self.inv_norm * f32::from_le_bytes(*inv)
    }
}

/// The stored vector of a message (see [`message_text`]), `None` when no token of it is
/// known to the model.
pub fn message_vector(m: &Message, buf: &mut String) -> Result<Option<Vec<u8>>> {
    message_text(m, buf);
    Ok(quantize(&embed(buf)?))
}

/// What of a message is embedded: its text (head), then the commands it ran and the
/// error lines of their outputs (an output's errors are what people remember of it),
/// then the head of the first output when nothing else was said.
pub fn message_text(m: &Message, out: &mut String) {
    out.clear();
    push_chars(out, m.text.trim(), TEXT_CHARS);
    for c in &m.calls {
        if let Some(cmd) = &c.command {
            out.push('\n');
            push_chars(out, cmd, 200);
        }
        let Some(r) = &c.result else { continue };
        let errors: Vec<&str> = r.output.lines().filter(|l| is_error_line(l)).take(ERROR_LINES).collect();
        for l in errors {
            out.push('\n');
            push_chars(out, l.trim(), 300);
        }
    }
    if out.trim().is_empty() {
        if let Some(r) = m.calls.iter().find_map(|c| c.result.as_ref()) {
            push_chars(out, r.output.trim(), TEXT_CHARS);
        } else {
            push_chars(out, m.thinking.trim(), TEXT_CHARS);
        }
    }
}

fn is_error_line(l: &str) -> bool {
    const MARKS: &[&str] =
        &["error", "exception", "traceback", "panic", "fatal", "failed", "fail:", "denied", "refused"];
    let lower = l.to_ascii_lowercase();
    l.len() < 2000 && MARKS.iter().any(|m| lower.contains(m))
}

fn push_chars(out: &mut String, s: &str, max: usize) {
    match s.char_indices().nth(max) {
        Some((i, _)) => out.push_str(&s[..i]),
        None => out.push_str(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_vectors_keep_the_cosine() {
        let a: Vec<f32> = (0..8).map(|i| (i as f32 - 3.5) / 10.0).collect();
        let n = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        let a: Vec<f32> = a.iter().map(|x| x / n).collect();
        let s = quantize(&a).unwrap();
        let q = Query::new(&a).unwrap();
        assert!((q.cosine(&s) - 1.0).abs() < 1e-3, "{}", q.cosine(&s));
        let neg: Vec<f32> = a.iter().map(|x| -x).collect();
        assert!((Query::new(&neg).unwrap().cosine(&s) + 1.0).abs() < 1e-3);
        let other: Vec<f32> = (0..8).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
        assert!((Query::new(&other).unwrap().cosine(&s) - a[0]).abs() < 1e-2);
        assert!(quantize(&[0.0; 8]).is_none() && Query::new(&[0.0; 8]).is_none());
        assert_eq!(q.cosine(&s[..5]), 0.0, "a vector of another size");
    }
}
