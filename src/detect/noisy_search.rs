//! `noisy-search`: a pattern search whose output was swamped by a few huge lines or
//! truncated by the tool, so the matches it was after are buried.

use super::{Cited, Details, Detector, Finding, SessionView, Telling};
use crate::analysis::searches::{self, Shape};
use crate::analysis::text::{clip_line, human_bytes};

pub struct NoisySearch;

const DOC: &str = r#"
## What it finds

A pattern search of a file, folder or log (`grep`, `rg`, `ag`, `ack`, `git grep`,
`Select-String`, `findstr`, `journalctl | grep`, a Grep tool) whose output was swamped:

- most of its bytes are very long lines (lines of 1,000+ characters are at least half
  the output, and the longest is 2,000+ or they add up to 4 KB) — a config or argument
  dump such as `ServerArgs(…)`, minified JSON, a base64 blob, the records of a recorded
  session or a log with payloads; or
- the tool cut the output (`... [N lines truncated] ...`, `[... omitted N of M lines
  ...]`, `…N tokens truncated…`) and so buried the matches: it cut at least half of
  the output (or does not say how much), or what it kept is mostly long lines (300+
  characters, a third of the bytes), or the whole output ran to 300 lines or more (the
  search matched hundreds of lines, and the few it was after are among them, however
  much of them the cut kept).

A search that is one part of a list counts when the other parts that print are searches
too (`rg -n a src && rg -n b src | head -50`: the output is still the searches'), when the
long lines that swamp the output are match lines (`dist/index.js:48:…`, as `rg -n` prints
them) whatever else the call printed (`rg -n x .; if (Test-Path f) { cat f } else { echo
none }`), or when it printed last and the tool kept only the head of the output, so that its matches are
what the cut dropped (`ls -la && rg --files && rg -n 'COPY' --glob Dockerfile`, cut after
256 lines).

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
  result), or a short list that the tool cut but kept most of (101 of 178 match lines
  shown).
- A listing of files (`rg --files`, `rg --files | rg README`, `ag -g`, `find`, `ls -R`,
  glob tools): it has no pattern whose matches could be buried, even when it is cut.
- A search of a program's output (`ps aux | grep python`, `pip list | grep torch`): it
  searches no file or log.
- `grep -v` used as a filter, a search inside a polling loop, and a call where another
  command (not a search) prints as much as the search: the output cannot be blamed on
  the search (unless the search printed last under a cut that kept the head, above), as
  when the search printed first and a listing after it was cut.
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
                let shape = Shape::of_output(&res.output);
                for s in searches::searches(c) {
                    if s.in_loop {
                        continue;
                    }
                    // Printed last, under other commands' output that the tool kept.
                    let cut_after = !s.among_searches && s.prints_last && shape.cut_keeps_head();
                    // The long lines are match lines (`path:48:…`): a search printed them,
                    // whatever else the call printed around them.
                    let own_lines = shape.swamped() && shape.long_are_matches;
                    if !s.among_searches && !cut_after && !own_lines {
                        continue;
                    }
                    let what = if cut_after && !own_lines {
                        let marker = clip_line(shape.truncated.as_deref().unwrap_or_default(), 50);
                        format!("it printed last, and the tool kept only the head of the call's output ({marker})")
                    } else if shape.swamped() {
                        let long = shape.long_lines;
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
                    } else if let Some(marker) = shape.truncated.as_ref().filter(|_| shape.cut_buries()) {
                        let marker = clip_line(marker, 50);
                        match shape.cut_share {
                            Some(c) => format!("the tool cut {:.0}% of its output ({marker})", c * 100.0),
                            None => format!("output truncated by the tool ({marker})"),
                        }
                    } else {
                        continue;
                    };
                    let command = c.command.clone().unwrap_or_else(|| format!("{} {}", c.name, s.pattern));
                    out.push(Finding {
                        detector: self.id().into(),
                        key: m.idx,
                        evidence: vec![m.idx],
                        summary: format!("{}: {what}", s.describe()),
                        command: Some(command.clone()),
                        details: Some(Details::Search {
                            searches: vec![Cited { idx: m.idx, text: command }],
                            why: what,
                            read: None,
                        }),
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
        assert_eq!(f[0].summary, "rg over src: the tool cut 95% of its output (... [4210 lines truncated] ...)");
        // Codex: "omitted 0 of N lines" when it cut by bytes; the shown lines tell how much.
        let kept = format!("{}[... omitted 0 of 900 lines ...]\n", "src/a.rs:1: use x;\n".repeat(100));
        assert_eq!(
            ran("rg -n 'use ' src", &kept)[0].summary,
            "rg over src: the tool cut 89% of its output ([... omitted 0 of 900 lines ...])"
        );
    }

    #[test]
    fn many_long_records_swamp_a_search_though_none_is_huge() {
        // Recorded sessions in the tree: a dozen 1–2 KB JSON records bury the one match.
        let rec = format!("{{\"type\":\"response_item\",\"text\":\"{}\"}}", "vitest run ".repeat(130));
        let out = format!(
            "{}src/test.ts:3: import {{ vi }} from 'vitest'\n",
            format!("examples/codex.jsonl:9:{rec}\n").repeat(12)
        );
        let f = ran("rg vitest -n || echo no-vitest-refs", &out);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].summary.starts_with("rg over .: 12 long lines"), "{}", f[0].summary);
    }

    #[test]
    fn listings_and_cuts_that_kept_most_of_the_matches() {
        let names = "desktop/src/main.rs\n".repeat(300);
        let cut = format!("Total output lines: 40657\n\n{names}…705009 tokens truncated…\n");
        assert!(ran("rg --files -g 'desktop/**'", &cut).is_empty(), "a file listing has no matches to bury");
        assert!(ran("rg --files . | rg '(^|/)README\\.md$'", &cut).is_empty(), "a filtered listing neither");
        // 178 ordinary match lines, 101 of them shown: the cut left them readable.
        let kept = format!(
            "{}[... omitted 0 of 178 lines ...]\n{}",
            "opk/ui/editor.py:214:        self.pr_rgb_r = QSpinBox()\n".repeat(50),
            "opk/ui/editor.py:866:        opt[\"url\"] = self.opt_url.text()\n".repeat(51)
        );
        assert!(ran("rg -n 'pr_rgb_|opt_' opk -S", &kept).is_empty(), "most matches were shown");
        // The same cut of long log records buries them.
        let wide = format!(
            "{}[... omitted 0 of 80 lines ...]\n",
            format!("log/tui.log:9: INFO FunctionCall: {}\n", "x".repeat(700)).repeat(60)
        );
        assert_eq!(ran("rg -n linear log/tui.log", &wide).len(), 1, "what was kept is long records");
    }

    #[test]
    fn a_cut_of_hundreds_of_matches_buries_them_though_most_were_kept() {
        // Codex cut 30 of 460 match lines: what is left is still hundreds of matches.
        let head = "web/src/panel.tsx:12:  const tab = useTab();\n".repeat(220);
        let tail = "web/src/store.ts:88:  tab: 'home',\n".repeat(209);
        let out = format!(
            "Exit code: 0\nWall time: 1.2 seconds\nTotal output lines: 460\nOutput:\n{head}web/src/x…640 tokens truncated…ts:9: tab\n{tail}"
        );
        let f = ran("rg -n 'tab|panel|store' web/src", &out);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].summary, "rg over src: the tool cut 13% of its output (…640 tokens truncated…)");
        // Near miss: the same cut of a short list (160 of 178 lines kept) left it readable.
        let short = format!("Total output lines: 178\n\n{}…90 tokens truncated…\n", &head[..head.len() / 220 * 160]);
        assert!(ran("rg -n 'tab|panel|store' web/src", &short).is_empty(), "a short list, mostly kept");
    }

    #[test]
    fn long_match_lines_are_the_searchs_whatever_else_printed() {
        // A search then a branch that prints a file or a note: the 9 KB line is a match
        // line of the search (`path:line:`), so the search swamped the output.
        let bundle = format!("./site/build/app-3f2a.js:7:{}\n", "var q=function(){return 1};".repeat(330));
        let out = format!(
            "./docs/deploy.md:4:deploy with surge\n{bundle}./site/index.html:9:<form data-surge>\nno surge.json\n"
        );
        let cmd = "rg -n \"surge\" -S .; if (Test-Path surge.json) { cat surge.json } else { echo 'no surge.json' }";
        let f = ran(cmd, &out);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].summary.starts_with("rg over .: a 9 KB minified code line is 99%"), "{}", f[0].summary);
        // Near miss: the long line is no match line, so the file the branch printed may be it.
        let dumped = format!("./docs/deploy.md:4:deploy with surge\n{}\n", "{\"surge\":1,\"x\":2}".repeat(600));
        assert!(ran(cmd, &dumped).is_empty(), "the long line may be the cat's");
    }

    #[test]
    fn searches_inside_lists() {
        // Two searches joined by `&&`: one JSON record line swamps the output of both.
        let out = format!(
            "cli/src/main.rs:34:    bin_name = \"ocodex\"\ncli/Cargo.toml:6:[[bin]]\ntui/tests/fixtures/size.jsonl:1:{}\n",
            "{\"name\":\"ocodex\",\"bytes\":12},".repeat(200)
        );
        let cmd = "rg -n 'name = \"ocodex\"' ocodex -S && rg -n '\\[package\\]' ocodex -S | head -n 50";
        let f = ran(cmd, &out);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].summary.starts_with("rg over ocodex: a "), "{}", f[0].summary);
        // A listing printed first and the tool kept only the head: the pattern search
        // that printed last lost its matches to the cut.
        let listing = format!(
            "total 72\n{}\n\n[Output truncated after 256 lines: too many lines or bytes.]",
            "ocodex/codex-rs/core/src/m.rs\n".repeat(250)
        );
        let cmd = "ls -la && echo '---' && rg --files && echo '---' && rg -n 'COPY .* /src' -S --glob '**/Dockerfile'";
        let f = ran(cmd, &listing);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].summary.contains("it printed last, and the tool kept only the head"), "{}", f[0].summary);
        // Near misses: the search printed first, and the cut fell on the listing after it;
        // a cut that kept head and tail shows the end of what printed last.
        let cmd = "rg -n 'COPY' --glob '**/Dockerfile' && rg --files";
        assert!(ran(cmd, &listing).is_empty(), "the cut fell on the listing");
        let middle =
            format!("{}\n... [900 lines truncated] ...\nDockerfile:6:COPY ocodex /src\n", "a/b.rs\n".repeat(200));
        let cmd = "rg --files && rg -n 'COPY' --glob '**/Dockerfile'";
        assert!(ran(cmd, &middle).is_empty(), "the tail, with the matches, was kept");
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
