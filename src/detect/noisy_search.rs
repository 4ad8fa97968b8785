//! `noisy-search`: a pattern search whose output was swamped by a few huge lines or
//! truncated by the tool, so the matches it was after are buried.

use super::{Detector, Finding, SessionView, Telling};
use crate::analysis::searches::{self, LONG_LINE, Shape, payload};
use crate::analysis::text::human_bytes;

pub struct NoisySearch;

const DOC: &str = r#"
## What it finds

A pattern search of a file, folder or log (`grep`, `rg`, `ag`, `ack`, `git grep`,
`Select-String`, `findstr`, `journalctl | grep`, a Grep tool) whose output was swamped:

- most of its bytes are one or a few very long lines (the longest at least 2,000
  characters, the long lines at least half the output) — a config or argument dump such
  as `ServerArgs(…)`, minified JSON, a base64 blob; or
- the tool cut the output (`... [N lines truncated] ...`, `[... omitted N of M lines
  ...]`, `…N tokens truncated…`).

The key message is the one holding the search (the assistant's call, or a person's
`/run grep …` in aider); the summary names what swamped it.

## Why it matters

A search that returns a 14 KB line looks like an answer and is not one: the real
matches are buried or gone, and the assistant either misreads the dump or spends the
next messages working around it (often a `grep-tail-pivot`). Frequent noisy searches
of the same log say the log needs a better filter (`grep -v`, `cut -c1-300`, `rg -M`).

## Example

```text
[msg 5082] grep -i "exception\|error\|failed" exp.log | head -20
           -> [2026-02-27 11:05] server_args=ServerArgs(model_path=..., 14 KB on one line)
```

## Not an instance

- Long output made of many ordinary lines that was not truncated (a big but readable
  result).
- A search of a program's output (`ps aux | grep python`, `pip list | grep torch`): it
  searches no file or log.
- `grep -v` used as a filter, a search inside a polling loop, and a call where another
  command prints as much as the search (the output cannot be blamed on the search).
"#;

impl Detector for NoisySearch {
    fn id(&self) -> &'static str {
        "noisy-search"
    }

    fn summary(&self) -> &'static str {
        "A pattern search whose output was swamped by a few huge lines or truncated by the tool"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        // Any message with calls: the assistant's, or a person's `/run grep …` in aider.
        for m in view.messages.iter().filter(|m| !m.calls.is_empty()) {
            'calls: for c in &m.calls {
                let Some(res) = &c.result else { continue };
                let output = payload(&res.output);
                for s in searches::searches(c) {
                    if s.in_loop || !s.sole {
                        continue;
                    }
                    let shape = Shape::of(output);
                    let what = if shape.swamped() {
                        let long = shape.longest.iter().filter(|l| **l >= LONG_LINE).count();
                        let lines = if long == 1 {
                            format!("{} is", shape.swamp_phrase())
                        } else {
                            format!("{long} long lines (the longest {}) are", shape.swamp_phrase())
                        };
                        format!(
                            "{lines} {:.0}% of its {} output",
                            shape.long_share * 100.0,
                            human_bytes(shape.bytes as u64)
                        )
                    } else if let Some(marker) = &shape.truncated {
                        format!("output truncated by the tool ({})", crate::analysis::text::clip_line(marker, 50))
                    } else {
                        continue;
                    };
                    let command = c.command.clone().unwrap_or_else(|| format!("{} {}", c.name, s.pattern));
                    out.push(Finding {
                        detector: self.id().into(),
                        key: m.idx,
                        evidence: vec![m.idx],
                        summary: format!("{}: {what}", s.describe()),
                        command: Some(command),
                        details: None,
                    });
                    break 'calls;
                }
            }
        }
    }
    fn telling(&self) -> Telling {
        Telling { rank: 6, beats: &["search", "read"], ..Telling::DEFAULT }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::fixture;

    fn ran(cmd: &str, output: &str) -> Vec<Finding> {
        fixture::check(&NoisySearch, &[fixture::bash(7, cmd, output)])
    }

    #[test]
    fn a_dump_line_swamps_a_grep() {
        let dump = format!("server_args=ServerArgs(model_path='/m', {})\nWARNING x\n", "tp_size=8, ".repeat(1300));
        let f = ran("grep -i 'error\\|failed' /logs/exp.log | head -20", &dump);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].summary, "grep on exp.log: a 14 KB ServerArgs(…) dump line is 100% of its 14 KB output");
    }

    #[test]
    fn truncated_search_output() {
        let out = format!("{}\n... [4210 lines truncated] ...\n", "src/a.rs:1: use x;\n".repeat(200));
        let f = ran("rg -n 'use ' src", &out);
        assert_eq!(f[0].summary, "rg over src: output truncated by the tool (... [4210 lines truncated] ...)");
    }

    #[test]
    fn near_misses() {
        let many = "app.log:12: ERROR timeout\n".repeat(400);
        assert!(ran("grep -n ERROR app.log", &many).is_empty(), "long but readable");
        let long = format!("root 1 {}\n", "x".repeat(5000));
        assert!(ran("ps aux | grep python", &long).is_empty(), "not a file search");
        assert!(ran("for i in 1 2 3; do grep -c x a.log; sleep 1; done", &long).is_empty(), "a probe");
        assert!(ran("grep -c x a.log; cat big.json", &long).is_empty(), "cat printed the long line");
    }
}
