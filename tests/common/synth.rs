//! Writes small Claude Code transcripts for tests that need content no real sample has
//! (secrets, markup). Lines have the shape of `corpus/claude-code/*.jsonl`.

use serde_json::json;

pub struct Transcript {
    lines: Vec<String>,
    n: u32,
    parent: Option<String>,
}

impl Transcript {
    pub fn new() -> Transcript {
        Transcript { lines: Vec::new(), n: 0, parent: None }
    }

    fn push(&mut self, kind: &str, message: serde_json::Value, extra: Option<(&str, serde_json::Value)>) {
        self.n += 1;
        let uuid = format!("00000000-0000-4000-8000-{:012}", self.n);
        let mut v = json!({
            "parentUuid": self.parent,
            "isSidechain": false,
            "userType": "external",
            "cwd": "/home/ann/src/app",
            "sessionId": "5e55a1c0-0000-4000-8000-00000000beef",
            "version": "2.1.30",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": format!("2026-03-05T10:{:02}:{:02}.000Z", self.n / 60, self.n % 60),
        });
        if let Some((k, x)) = extra {
            v[k] = x;
        }
        self.parent = Some(uuid);
        self.lines.push(v.to_string());
    }

    pub fn user(mut self, text: &str) -> Self {
        self.push("user", json!({"role": "user", "content": text}), None);
        self
    }

    pub fn assistant(mut self, text: &str) -> Self {
        let id = format!("msg_{}", self.n);
        self.push(
            "assistant",
            json!({"model": "claude-sonnet-4-5", "id": id, "type": "message", "role": "assistant",
                   "content": [{"type": "text", "text": text}]}),
            None,
        );
        self
    }

    /// An assistant Bash call and its result.
    pub fn bash(mut self, command: &str, output: &str, is_error: bool) -> Self {
        let id = format!("msg_{}", self.n);
        let tool = format!("toolu_{}", self.n);
        self.push(
            "assistant",
            json!({"model": "claude-sonnet-4-5", "id": id, "type": "message", "role": "assistant",
                   "content": [{"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": command}}]}),
            None,
        );
        self.push(
            "user",
            json!({"role": "user", "content": [{"tool_use_id": tool, "type": "tool_result", "content": output, "is_error": is_error}]}),
            Some(("toolUseResult", json!(output))),
        );
        self
    }

    /// Bytes the transcript has so far.
    pub fn text_len(&self) -> usize {
        self.lines.iter().map(|l| l.len() + 1).sum()
    }

    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }
}

/// `n` characters of a fixed pseudo-random sequence over `alphabet`: secrets that
/// look real to entropy checks without being written out in the repository.
pub fn noise(seed: u64, n: usize, alphabet: &str) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chars[(x % chars.len() as u64) as usize]
        })
        .collect()
}

pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
pub const HEX: &str = "0123456789abcdef";
pub const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
