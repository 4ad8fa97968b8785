//! `empty-user-turn`: a person's turn with nothing in it.
//!
//! The parsers already separate what a person typed from what the harness wrote in a
//! user record (tool results are joined to their calls, `isMeta`/reminder/command echo
//! turns are `origin: injected`, interrupts are `origin: interrupt`), so the test is
//! [`Message::is_typed_user`] plus blank text and no calls. A turn holding only an image
//! is not empty: the parsers give it the text `[image]`.

use super::{Details, Detector, Finding, SessionView, Telling};
use crate::analysis::text::{quote, thousands};
use crate::model::{Message, Role};

pub struct EmptyUserTurn;

const DOC: &str = r###"## What it finds

A turn of the person that carries no content: the text is empty or only whitespace.
Tool results, text the agent's harness injects into user records (system reminders,
hook output, slash-command echoes, environment blocks), interruption markers and
compaction summaries are not the person's turn and never count.

## Why it matters

An empty turn says "carry on" without saying how. The agent has to guess what is
wanted, and often answers with a long recap of the whole project (see
`context-dump`) instead of the next step. In a write-up it marks the moment the person
handed control back; in a pile of sessions it shows how often people nudge instead of
steer.

## Example

```text
[msg 85] assistant: It's still loading, it didn't crash. Let me wait for it properly.
         $ for i in $(seq 1 40); do curl -s localhost:30000/health && break; sleep 30; done
[msg 86] user: ""
[msg 87] assistant: ## Project goal … ## What we tried … ## Current state … ## Next steps …
```

`[msg 86]` is the finding.

## Not an instance

- A user record that only returns a tool result (it is joined to its call).
- `<system-reminder>` blocks, `isMeta` turns, `<command-name>/clear</command-name>`
  echoes, Codex `<environment_context>`: injected by the harness.
- "[Request interrupted by user]": an interruption, not a turn.
- A turn with only an image or a file attachment.
"###;

impl Detector for EmptyUserTurn {
    fn id(&self) -> &'static str {
        "empty-user-turn"
    }

    fn summary(&self) -> &'static str {
        "A person's turn with no content (empty or whitespace only)"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        for (i, m) in view.messages.iter().enumerate() {
            if !is_empty_turn(m) {
                continue;
            }
            let (summary, details) = summarize(view, i);
            out.push(Finding {
                detector: self.id().into(),
                key: m.idx,
                evidence: vec![m.idx],
                summary,
                command: None,
                details: Some(details),
            });
        }
    }
    fn telling(&self) -> Telling {
        Telling {
            rank: 8,
            beats: &["empty-turn"],
            told_by: &["empty-turn"],
            with_tag: "with-empty-user-turn",
            ..Telling::DEFAULT
        }
    }
}

/// A person's turn with nothing in it.
pub fn is_empty_turn(m: &Message) -> bool {
    m.is_typed_user() && m.calls.is_empty() && m.text.trim().is_empty()
}

/// "empty user turn after the agent ran `for i in …`; the agent's reply runs 9,812
/// chars", or "…, the 3rd in a row".
fn summarize(view: &SessionView, i: usize) -> (String, Details) {
    let m = &view.messages[i];
    let what = if m.text.is_empty() { "empty user turn" } else { "whitespace-only user turn" };
    let mut s = what.to_string();
    let before = view.messages[..i]
        .iter()
        .rev()
        .take(20)
        .find(|p| p.role == Role::Assistant || (p.is_typed_user() && !is_empty_turn(p)));
    // Empty turns of the person with nothing from the agent in between.
    let in_a_row =
        1 + view.messages[..i].iter().rev().filter(|p| p.role != Role::System).take_while(|p| is_empty_turn(p)).count();
    // Message ids are in the evidence; the summary says what happened around the turn
    // in words (reports quote every message they cite, and a summary cannot quote).
    match before {
        Some(p) if p.role == Role::Assistant => match p.commands().last() {
            Some(cmd) => s.push_str(&format!(" after the agent ran `{}`", quote(first_line(cmd), 60))),
            None if !p.text.trim().is_empty() => {
                s.push_str(&format!(" after the agent's “{}”", quote(first_line(&p.text), 50)));
            }
            None => {}
        },
        Some(p) => s.push_str(&format!(" after the person's own “{}”", quote(first_line(&p.text), 40))),
        None => {}
    }
    if in_a_row > 1 {
        s.push_str(&format!(", the {} in a row", ordinal(in_a_row)));
    }
    // The agent's answer to it: the next assistant message, unless the person spoke again first.
    let after = view.messages[i + 1..]
        .iter()
        .take(5)
        .find(|n| n.role == Role::Assistant || (n.is_typed_user() && !is_empty_turn(n)))
        .filter(|n| n.role == Role::Assistant);
    if let Some(n) = after {
        let len = n.char_len();
        if len > 0 {
            s.push_str(&format!("; the agent's reply runs {} chars", thousands(len)));
        } else if let Some(cmd) = n.commands().next() {
            s.push_str(&format!("; the agent answered by running `{}`", quote(first_line(cmd), 60)));
        }
    }
    let details =
        Details::Pause { before: before.map(|p| p.idx), reply: after.map(|n| n.idx), in_a_row: in_a_row as u32 };
    (s, details)
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{SessionStats, detect_session};
    use crate::model::{Call, Origin};

    fn msg(idx: u32, role: Role, origin: Origin, text: &str) -> Message {
        Message { idx, role, origin, text: text.into(), ..Message::default() }
    }

    fn run(messages: &[Message]) -> Vec<Finding> {
        detect_session(&[&EmptyUserTurn], messages)
    }

    #[test]
    fn empty_and_whitespace_turns_fire_with_their_context() {
        let mut a = msg(1, Role::Assistant, Origin::Typed, "It's still loading.");
        a.calls.push(Call { name: "Bash".into(), command: Some("tail -5 /data/srv.log".into()), ..Call::default() });
        let messages = vec![
            a,
            msg(2, Role::User, Origin::Typed, ""),
            msg(3, Role::Assistant, Origin::Typed, &"x".repeat(1234)),
            msg(4, Role::User, Origin::Typed, " \n\t "),
        ];
        let f = run(&messages);
        assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), [2, 4]);
        assert_eq!(
            f[0].summary,
            "empty user turn after the agent ran `tail -5 /data/srv.log`; the agent's reply runs 1,234 chars"
        );
        assert_eq!(
            f[1].summary,
            "whitespace-only user turn after the agent's “xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…”"
        );
        // Several in a row, and a reply that answers a later turn is not "the reply".
        let messages = vec![
            msg(1, Role::Assistant, Origin::Typed, "Done."),
            msg(2, Role::User, Origin::Typed, ""),
            msg(3, Role::System, Origin::Injected, "<system-reminder>x</system-reminder>"),
            msg(4, Role::User, Origin::Typed, ""),
            msg(5, Role::User, Origin::Typed, "show me the notes"),
            msg(6, Role::Assistant, Origin::Typed, "Here they are."),
        ];
        let f = run(&messages);
        assert_eq!(f[1].summary, "empty user turn after the agent's “Done.”, the 2nd in a row");
        assert_eq!(f[0].evidence, [2]);
    }

    #[test]
    fn injected_interrupts_summaries_images_and_results_are_not_turns() {
        let mut with_call = msg(6, Role::User, Origin::Typed, "");
        with_call.calls.push(Call::default());
        let messages = vec![
            msg(1, Role::System, Origin::Injected, ""),
            msg(2, Role::User, Origin::Interrupt, ""),
            msg(3, Role::System, Origin::CompactSummary, ""),
            msg(4, Role::User, Origin::Typed, "[image]"),
            msg(5, Role::Tool, Origin::ToolOutput, ""),
            with_call,
            msg(7, Role::Assistant, Origin::Typed, ""),
            msg(8, Role::User, Origin::Typed, "go on"),
        ];
        assert!(run(&messages).is_empty());
        let mut out = Vec::new();
        EmptyUserTurn.check(&SessionView { messages: &messages, stats: &SessionStats::default() }, &mut out);
        assert!(out.is_empty());
    }
}
