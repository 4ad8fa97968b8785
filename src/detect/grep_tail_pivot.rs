//! `grep-tail-pivot`: a pattern search of a file or log did not answer (swamped,
//! truncated, very long, or dismissed by the assistant) and within a few messages the
//! assistant read the same file or log by position instead.

use std::sync::LazyLock;

use regex::Regex;

use super::{Cited, Details, Detector, Finding, SessionView, Telling};
use crate::analysis::searches::{self, PositionalRead, Search, Shape, payload};
use crate::analysis::statements::{prose, sentences};
use crate::analysis::text::{clip_line, human_bytes};
use crate::model::{Message, Role};

pub struct GrepTailPivot;

const DOC: &str = r#"
## What it finds

The assistant searched a file or log by pattern (`grep`, `egrep`, `rg`, `ag`, `ack`,
`git grep`, `Select-String`, `findstr`, `journalctl | grep`, a Grep tool), the result
did not answer the question, and within a few messages it read **the same file or log
by position** instead: `tail`, `head`, `sed -n 'a,bp'`, `awk 'NR>…'`, `less +G`,
`journalctl -n`, `docker logs --tail`, or a file-read tool with an offset or limit.

The search "did not answer" when its output was swamped by one or a few huge lines
(a config or argument dump, minified JSON, base64), was truncated by the tool, was very
long (10 KB or 200 lines), or the assistant said so of the output ("the output is too
long", "just the ServerArgs dump", "noise"). A search that matched nothing did not answer
either when the assistant says the search missed rather than that the thing is absent
("\"Fail\" is a dead end", "read the first 50 lines to understand its format") and reads the
file it searched. The key message is the positional read; the evidence is the failed
search(es), the message where the assistant dismissed them, and the read.

## Why it matters

It is a small, telling pivot: pattern matching assumed the interesting lines were rare,
the log proved otherwise, and reading by position (what happened *last*) was the way
through. Seeing how often it happens says which logs need a better search (exclude the
dump, cut long lines) and where time went.

## Example

```text
[msg 5083] grep -A5 "Traceback\|Exception\|NCCL error" exp.log | tail -30
           -> one 14 KB ServerArgs(...) line
[msg 5084] "The output is too long — that's just the ServerArgs dump."
           tail -50 exp.log     <- key
```

## Not an instance

- A search that answered (short output, normal lines) followed by a read of an
  unrelated file.
- A read that starts at a line the search reported (`grep -n` then `sed -n '200,260p'`
  around the match): the read follows the search's answer.
- A search with no match: an empty result is an answer ("no tracebacks").
- A second file read after the same search: the search was followed up by the first
  read of a file it covered; reading another of its files is exploring, not a pivot.
- A file listing (`rg --files`, `rg --files | rg README`): it searched no contents.
- Reading one of the files a long recursive search listed: the search answered
  "where", and the read follows it (a folder search counts only when swamped,
  truncated or dismissed).
- A `tail` that is the first look at a file, and a second `tail` of a file already
  read by position (only the first read after the search is the pivot).
- Searches and reads inside a polling loop.
"#;

/// How many messages before the read the failed search may be.
const WITHIN: usize = 6;
/// A positional read starting this close to a line the search reported is the search's
/// answer being read, not a way around it.
const NEAR_LINE: u64 = 60;

static COMPLAINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\btoo\s+(?:long|noisy|verbose|large|big|much(?:\s+output)?)\b",
        r"|\b(?:noisy|noise|swamped|drowned|drowning|flooded|cluttered|polluted|useless|unhelpful|unreadable)\b",
        r"|\bnot\s+(?:very\s+)?(?:helpful|useful|informative|readable)\b",
        r"|\b(?:doesn't|does not|didn't|did not)\s+help\b",
        r"|\b(?:got|was|is|been|gets)\s+truncated\b",
        r"|\b(?:just|only|mostly|all)\s+(?:the\s+|a\s+|an\s+|that\s+)?[\w.-]+(?:\s+[\w.-]+)?\s+(?:dump|blob|spam|noise)\b",
        r"|\bmatch(?:ed|es|ing)?\s+(?:the\s+|a\s+|an\s+|in\s+the\s+)?[\w.-]+(?:\s+[\w.-]+)?\s+(?:dump|blob|args)\b",
    ))
    .expect("complaint regex is valid")
});
/// A complaint must be about what came back ("the output is too long", "that's just the
/// dump"), not about the code ("this function is too long").
static ABOUT_OUTPUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:output|result|results|grep|search|match(?:es|ed)?|dump|noise|noisy|log|lines|truncated|swamped|drowned|flooded)\b|^(?:that|this|it)(?:'s| is| was)\s+(?:just|only|all|mostly)\b")
        .expect("about-output regex is valid")
});
/// The assistant says a search that matched nothing missed because of how it searched
/// (not that the thing is absent): "a dead end", "to understand its format".
static MISSED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bdead[\s-]end\b|\bhit\s+a\s+(?:roadblock|wall)\b",
        r"|\b(?:understand|see|learn|check|figure\s+out)\s+(?:its|the|this\s+file's|the\s+file's|the\s+log's)\s+(?:format|layout|structure|wording|terminology)\b",
        r"|\b(?:different|other)\s+(?:terminology|wording|keywords?|terms)\b",
        r"|\b(?:pattern|search|grep)\s+(?:didn't|did\s+not|doesn't|does\s+not)\s+(?:match|work|find)\b",
    ))
    .expect("missed-search regex is valid")
});
/// What search tools say when nothing matched.
static NO_MATCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\A\s*(?:no\s+matches\s+found|no\s+files\s+found|found\s+0\s+matches|no\s+results\s+found)\b")
        .expect("no-match regex is valid")
});
static LINE_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^(?:[^\s:]{1,300}[:-])?(\d{1,7})[:-]").expect("line-number regex is valid"));

/// Why a search did not answer.
enum Why {
    Swamped(String),
    Truncated,
    VeryLong { bytes: usize, lines: usize },
    Said(String),
    Missed(String),
}

impl Why {
    fn phrase(&self) -> String {
        match self {
            Why::Swamped(p) => format!("returned {p}"),
            Why::Truncated => "was truncated by the tool".into(),
            Why::VeryLong { bytes, lines } => format!("returned {} in {lines} lines", human_bytes(*bytes as u64)),
            Why::Said(q) => format!("was dismissed (\"{q}\")"),
            Why::Missed(q) => format!("matched nothing (\"{q}\")"),
        }
    }
}

struct Failed {
    pos: usize,
    search: Search,
    why: Why,
}

/// The sentence of the assistant's text that calls an output useless, if any.
fn complaint(m: &Message) -> Option<String> {
    if m.role != Role::Assistant {
        return None;
    }
    let p = prose(&m.text);
    sentences(&p)
        .into_iter()
        .find(|(s, _)| COMPLAINT.is_match(s) && ABOUT_OUTPUT.is_match(s))
        .map(|(s, _)| clip_line(s, 60))
}

/// The sentence of the assistant's text or reasoning saying that a search missed.
fn missed(m: &Message) -> Option<String> {
    if m.role != Role::Assistant {
        return None;
    }
    [prose(&m.text), prose(&m.thinking)]
        .iter()
        .find_map(|p| sentences(p).into_iter().find(|(s, _)| MISSED.is_match(s)).map(|(s, _)| clip_line(s, 60)))
}

/// The search's output reports a line near where the read starts: the read follows the
/// search's answer.
fn read_follows_answer(read: &PositionalRead, output: &str) -> bool {
    let Some(first) = read.first_line else { return false };
    LINE_NUMBER
        .captures_iter(output)
        .filter_map(|c| c[1].parse::<u64>().ok())
        .any(|n| n + NEAR_LINE >= first && n <= first + 5 * NEAR_LINE)
}

fn failed_searches(msgs: &[Message], i: usize, read: &PositionalRead) -> Vec<Failed> {
    let mut failed = Vec::new();
    for j in (i.saturating_sub(WITHIN)..i).rev() {
        let n = &msgs[j];
        if n.role != Role::Assistant {
            continue;
        }
        // An earlier positional read of the same file: any pivot happened there.
        if n.calls.iter().flat_map(searches::positional_reads).any(|r| r.target.same(&read.target)) {
            break;
        }
        let said = msgs[j + 1..=i].iter().find_map(complaint);
        // Reads between the search and this one: a read of a file the search covered
        // already followed the search up (one search, one pivot).
        let reads_between: Vec<PositionalRead> = msgs[j + 1..i]
            .iter()
            .filter(|n| n.role == Role::Assistant)
            .flat_map(|n| n.calls.iter().flat_map(searches::positional_reads))
            .collect();
        // A folder search here that answered by naming the file: the read follows that
        // answer ("where"), whatever earlier searches missed.
        let mut answered = false;
        for c in &n.calls {
            let Some(res) = &c.result else { continue };
            let out = payload(&res.output);
            let no_match = out.trim().is_empty() || NO_MATCH.is_match(out);
            for s in searches::searches(c) {
                if s.in_loop {
                    continue;
                }
                // A folder search that lists many matches answered "where"; reading one
                // of the files it named is following it, not working around it.
                let whole_file = s.targets.iter().any(|t| t.same(&read.target));
                if no_match {
                    // No match is an answer, unless the assistant says the search
                    // missed and reads the very file it searched to see how it is written.
                    if let Some(q) = whole_file.then(|| msgs[j + 1..=i].iter().find_map(missed)).flatten() {
                        failed.push(Failed { pos: j, search: s, why: Why::Missed(q) });
                        break;
                    }
                    continue;
                }
                if !s.targets.iter().any(|t| t.covers(&read.target, out)) {
                    continue;
                }
                if reads_between.iter().any(|r| s.targets.iter().any(|t| t.covers(&r.target, out))) {
                    continue;
                }
                let shape = Shape::of_output(&res.output);
                let why = if s.sole && shape.swamped() {
                    Some(Why::Swamped(shape.swamp_phrase()))
                } else if s.sole && shape.cut_buries() {
                    Some(Why::Truncated)
                } else if s.sole && whole_file && shape.very_long() {
                    Some(Why::VeryLong { bytes: shape.bytes, lines: shape.lines })
                } else if shape.lines >= 5 || shape.bytes >= 1000 {
                    // Dismissed by the assistant; a one-line answer is not "too long".
                    said.clone().map(Why::Said)
                } else {
                    None
                };
                let Some(why) =
                    why.filter(|w| matches!(w, Why::Said(_)) || said.is_some() || !read_follows_answer(read, out))
                else {
                    answered |= !whole_file;
                    continue;
                };
                failed.push(Failed { pos: j, search: s, why });
                break;
            }
        }
        if answered && !failed.iter().any(|f| f.pos == j) {
            break;
        }
    }
    failed
}

/// A search as its finding cites it: its message and the command line that ran it (or
/// the search described, for a tool's structured call).
fn search_cited(m: &Message, s: &Search) -> Cited {
    let command = m
        .calls
        .iter()
        .find(|c| searches::searches(c).iter().any(|x| x.pattern == s.pattern && x.program == s.program))
        .and_then(|c| c.command.clone());
    Cited { idx: m.idx, text: command.unwrap_or_else(|| format!("{} {}", s.describe(), s.pattern)) }
}

fn summary(msgs: &[Message], i: usize, read: &PositionalRead, failed: &[Failed]) -> String {
    let last = &failed[0];
    let name = read.target.name();
    let searches = if failed.len() == 1 {
        format!("{} on {name}", last.search.program)
    } else if failed.iter().all(|f| f.search.program == last.search.program) {
        format!("{} {}s on {name}", failed.len(), last.search.program)
    } else {
        format!("{} searches on {name}", failed.len())
    };
    let later = msgs[i].idx.saturating_sub(msgs[last.pos].idx);
    let plural = if later == 1 { "" } else { "s" };
    format!(
        "{searches} {}; {} of the same {} {later} message{plural} later",
        last.why.phrase(),
        read.how,
        read.target.noun()
    )
}

impl Detector for GrepTailPivot {
    fn id(&self) -> &'static str {
        "grep-tail-pivot"
    }

    fn summary(&self) -> &'static str {
        "A pattern search of a file or log did not answer, so the assistant read the same file by position"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let msgs = view.messages;
        for (i, m) in msgs.iter().enumerate() {
            if m.role != Role::Assistant {
                continue;
            }
            'calls: for c in &m.calls {
                for read in searches::positional_reads(c).into_iter().filter(|r| !r.in_loop) {
                    let failed = failed_searches(msgs, i, &read);
                    if failed.is_empty() {
                        continue;
                    }
                    let mut evidence: Vec<u32> = failed.iter().map(|f| msgs[f.pos].idx).collect();
                    let first = failed.iter().map(|f| f.pos).min().unwrap_or(i);
                    evidence.extend(msgs[first + 1..=i].iter().filter(|n| complaint(n).is_some()).map(|n| n.idx));
                    evidence.push(m.idx);
                    evidence.sort_unstable();
                    evidence.dedup();
                    let command = c.command.clone().unwrap_or_else(|| format!("{} {}", read.how, read.target.name()));
                    let details = Details::Search {
                        searches: failed.iter().rev().map(|f| search_cited(&msgs[f.pos], &f.search)).collect(),
                        why: failed[0].why.phrase(),
                        read: Some(Cited { idx: m.idx, text: command.clone() }),
                    };
                    out.push(Finding {
                        detector: self.id().into(),
                        key: m.idx,
                        evidence,
                        summary: summary(msgs, i, &read, &failed),
                        command: Some(command),
                        details: Some(details),
                    });
                    break 'calls;
                }
            }
        }
    }
    fn telling(&self) -> Telling {
        Telling {
            rank: 2,
            beats: &["search", "read"],
            told_by: &["read"],
            with_tag: "with-grep-tail-pivot",
            ..Telling::DEFAULT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::fixture;
    use crate::detect::fixture::step as msg;
    use crate::model::{Call, CallResult};

    fn run(msgs: &[Message]) -> Vec<Finding> {
        fixture::check(&GrepTailPivot, msgs)
    }

    fn dump() -> String {
        format!("[11:05] server_args=ServerArgs(model_path='/m', {})\n[11:06] load ok\n", "tp_size=8, ".repeat(1300))
    }

    #[test]
    fn swamped_grep_then_tail_of_the_same_log() {
        let log = "/data/logs/exp_1b.log";
        let msgs = vec![
            msg(10, "Let me find the error.", Some((&format!("ssh root@h 'grep -i error {log} | head -20'"), &dump()))),
            msg(
                11,
                "The output is too long. Let me look at the end.",
                Some((&format!("ssh root@h 'tail -50 {log}'"), "Loading 3%")),
            ),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].key, 11);
        assert_eq!(f[0].evidence, vec![10, 11]);
        assert_eq!(
            f[0].summary,
            "grep on exp_1b.log returned a 14 KB ServerArgs(…) dump line; tail -50 of the same log 1 message later"
        );
    }

    #[test]
    fn a_grep_that_answered_is_not_a_pivot() {
        let msgs = vec![
            msg(1, "", Some(("grep -n 'fn parse' src/lib.rs", "212:fn parse(x: &str) {\n"))),
            msg(2, "", Some(("sed -n '200,260p' src/lib.rs", "..."))),
            msg(3, "", Some(("grep -c ERROR app.log", "0\n"))),
            msg(4, "", Some(("tail -20 other.log", "..."))),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn a_long_grep_whose_line_numbers_the_read_follows_is_an_answer() {
        let out: String = (0..300).map(|i| format!("{}: def handler_{i}(self):\n", 1000 + i * 7)).collect();
        let msgs = vec![
            msg(1, "", Some(("grep -n 'def ' big.py", &out))),
            msg(2, "", Some(("sed -n '1400,1460p' big.py", "..."))),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn reading_a_file_a_long_folder_search_named_is_following_it() {
        let out: String = (0..300).map(|i| format!("src/mod{}.py:{i}: retry = backoff(i)\n", i % 9)).collect();
        let msgs =
            vec![msg(1, "", Some(("grep -rn backoff src/", &out))), msg(2, "", Some(("head -40 src/mod3.py", "...")))];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn a_complaint_about_the_code_is_not_about_the_output() {
        let matches: String = (0..8).map(|i| format!("{}: # TODO step {i}\n", 10 + i)).collect();
        let msgs = vec![
            msg(1, "", Some(("grep -n TODO main.py", &matches))),
            msg(2, "This function is too long. Let me see how the file ends.", Some(("tail -30 main.py", "..."))),
        ];
        assert!(run(&msgs).is_empty());
        let msgs = vec![
            msg(1, "", Some(("grep -n TODO main.py", &matches))),
            msg(2, "The grep output is just noise. Let me see how the file ends.", Some(("tail -30 main.py", "..."))),
        ];
        assert_eq!(run(&msgs).len(), 1);
    }

    #[test]
    fn a_tail_that_is_the_first_look_is_not_a_pivot() {
        let msgs = vec![msg(1, "Too long.", Some(("tail -50 app.log", "...")))];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn a_search_that_missed_then_a_look_at_how_the_file_is_written() {
        let log = "C:\\Users\\m\\hardening.log";
        let search = Message {
            calls: vec![Call {
                name: "search_file_content".into(),
                input: serde_json::json!({"dir_path": log, "pattern": "Fail"}),
                result: Some(CallResult {
                    output: format!("No matches found for pattern \"Fail\" in path \"{log}\"."),
                    ..CallResult::default()
                }),
                ..Call::default()
            }],
            ..fixture::said(1, Role::Assistant, "")
        };
        let read = |text: &str| Message {
            calls: vec![Call {
                name: "read_file".into(),
                input: serde_json::json!({"file_path": log, "limit": 50}),
                result: Some(CallResult { output: "[*] Starting HardeningKitty".into(), ..CallResult::default() }),
                ..Call::default()
            }],
            ..fixture::said(2, Role::Assistant, text)
        };
        let f = run(&[search.clone(), read("I will read the first 50 lines of the log to understand its format.")]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].summary.contains("matched nothing (\"I will read the first 50 lines"), "{}", f[0].summary);
        // "Nothing found" is an answer when the assistant takes it as one.
        assert!(run(&[search, read("No failures reported. Let me see the header.")]).is_empty());
    }

    #[test]
    fn file_listings_are_not_searches() {
        let names: String = (0..60).map(|i| format!("./pkg{i}/README.md\n")).collect();
        let cut = format!("Total output lines: 52\n\n{names}…461 tokens truncated…\n");
        let msgs = vec![
            msg(1, "", Some(("rg --files . | rg '(^|/)README\\.md$'", &cut))),
            msg(2, "", Some(("sed -n '1,240p' pkg3/README.md", "# pkg3"))),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn one_search_one_pivot_and_a_narrower_search_that_answered() {
        let swamped = format!("logs/a.log:3: {}\nnotes/b.md:4: see a.log\n", "x".repeat(5000));
        let msgs = vec![
            msg(1, "", Some(("rg -n arnaud", &swamped))),
            msg(2, "", Some(("head -n 40 notes/b.md", "..."))),
            msg(3, "", Some(("tail -n 50 logs/a.log", "..."))),
        ];
        let f = run(&msgs);
        assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), vec![2], "the search was followed up at 2");
        // A truncated folder search, then a narrower one naming the file: the read follows it.
        let cut: String = (0..100).map(|i| format!("src/alden/{}.rs:{i}: alden_x()\n", ["m", "chat"][i % 2])).collect();
        let msgs = vec![
            msg(
                1,
                "",
                Some(("rg -n alden_ src", &format!("Total output lines: 900\n\n{cut}…9000 tokens truncated…\n"))),
            ),
            msg(2, "", Some(("rg -n alden_chat src", "src/alden/chat.rs:293:pub async fn alden_chat_send(\n"))),
            msg(3, "", Some(("head -200 src/alden/chat.rs", "use chrono::Utc;"))),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn only_the_first_positional_read_is_the_pivot() {
        let msgs = vec![
            msg(1, "", Some(("grep -i error app.log", &dump()))),
            msg(2, "", Some(("tail -50 app.log", "..."))),
            msg(3, "", Some(("tail -200 app.log", "..."))),
        ];
        let f = run(&msgs);
        assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), vec![2]);
    }
}
