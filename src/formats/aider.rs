//! Aider chat history (`.aider.chat.history.md` in each project's root; aider keeps no
//! central archive). The file is append-only markdown that aider writes as it goes, so
//! it is read line by line, with real line numbers and resumable checkpoints.
//!
//! How the lines become messages (aider's `io.py` decides the shapes):
//! - `# aider chat started at <local time>` starts a session; one file holds many.
//!   Anything before the first such line (a header-less transcript, or the tail of an
//!   older file) is a session of its own. Aider writes local time without a zone; it is
//!   stored as if it were UTC.
//! - `#### ` lines are what the person typed; consecutive ones form one turn (a turn
//!   is separated from the next by a blank line). Aider writes an empty input as
//!   `#### <blank>` (older versions as an empty `#### ` line): both become an empty,
//!   typed user message, which is what the empty-user-turn detector looks for. Turns
//!   aider itself submitted (lint reflections `# Fix any errors below`, the help
//!   coder's `# Question:`, "I added these files…", "I ran this command…"; a
//!   confirmation aider answered itself, `#### Add file to the chat? … [Yes]: all`; in
//!   architect mode the architect's reply logged again as the editor's turn) are
//!   injected system messages. Aider writes each turn line with a two-space break, so
//!   in a file that has them a `#### ` line without one (a Markdown heading in a reply)
//!   is reply text.
//! - `> ` lines are aider's own output (notes, warnings, token costs, lint and test
//!   output). Each write ends in two spaces (a markdown line break); a multi-line write
//!   puts `> ` on its first line only, and runs to the line ending in two spaces that
//!   is followed by a new write (a blank line, another `>` line or a turn). The `>`
//!   lines between two other blocks are one system message ("notes").
//! - `/run CMD`, `!CMD` and `/test CMD` turns become a user message holding a [`Call`]
//!   (`name` run/test, `command` CMD). The `>` output that follows is the call's
//!   output: the raw output aider logged (aider up to 0.52) or, when aider logged it
//!   only after "Add the output to the chat?" was answered, the lines logged then.
//!   The confirmation prompt, the line-by-line copy aider logs when the output is
//!   added, and "Added N lines of output to the chat." become a notes message after
//!   it. Aider never logs exit codes; `/test` output that was added to the chat was
//!   added because the command failed, so that call has `is_error`. Aider 0.66+ logs
//!   no output at all: the call then has no result.
//! - Everything else is the assistant's reply (one message per reply, up to the next
//!   turn or `>` block). `####` headings and `>` quotes inside the reply's code fences
//!   stay part of it.

use std::path::Path;

use anyhow::Result;
use chrono::{DateTime, NaiveDateTime, Utc};

use super::{Assembler, At, Format, Input, Sink};
use crate::model::{Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct Aider;

const HEADER: &str = "# aider chat started at ";

/// Turns aider submitted on the person's behalf.
const INJECTED_TURNS: &[&str] =
    &["# Fix any errors below", "# Question:", "I added these files to the chat:", "I ran this command:"];

impl Format for Aider {
    fn id(&self) -> &'static str {
        "aider"
    }

    fn agent(&self) -> &'static str {
        "Aider"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.md"]
    }

    fn kept_with_project(&self) -> Option<&'static str> {
        Some(".aider.chat.history.md in the root of each project aider ran in")
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let named = path.file_name().is_some_and(|n| n == ".aider.chat.history.md");
        let mut turns = 0;
        let mut notes = 0;
        for l in text.lines() {
            if l.starts_with(HEADER) {
                return 95;
            }
            if l.starts_with("#### ") && l.ends_with("  ") {
                turns += 1;
            } else if l.starts_with("> ") && l.ends_with("  ") {
                notes += 1;
            }
        }
        match (turns > 0, notes > 0) {
            (true, true) if named => 90,
            (true, true) => 60,
            (true, false) | (false, true) if named => 50,
            _ => 0,
        }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut p = Parser::new(input);
        while let Some(line) = input.next_line()? {
            let text = String::from_utf8_lossy(line.bytes).into_owned();
            p.line(text, At::of(&line), sink)?;
        }
        p.finish(sink)
    }
}

/// One write of aider's own output: a single `>` line or a multi-line block.
#[derive(Debug, Clone)]
struct Piece {
    text: String,
    at: At,
    end_line: u32,
    multi: bool,
}

/// A multi-line `>` write still being read.
struct OpenPiece {
    piece: Piece,
    /// The last line ended in two spaces: the write ends there if a new write follows.
    may_end: bool,
}

struct UserTurn {
    at: At,
    end_line: u32,
    lines: Vec<String>,
    /// A blank line followed the turn: a further `####` line is a new turn.
    closed: bool,
}

struct Reply {
    at: At,
    end_line: u32,
    text: String,
    /// Blank lines seen since the last text line (kept only if more text follows).
    blanks: usize,
    in_fence: bool,
}

struct Parser {
    asm: Assembler,
    metas: Vec<SessionMeta>,
    /// The current session has a header or content, so a header starts a new one.
    session_used: bool,
    user: Option<UserTurn>,
    notes: Vec<Piece>,
    reply: Option<Reply>,
    open: Option<OpenPiece>,
    /// A `> ` line after the reply whose meaning the next line decides.
    held: Option<(String, At)>,
    /// The file uses aider's two-space line breaks (not trimmed by an editor).
    breaks: bool,
    /// The text of the session's last assistant reply (architect mode logs it again as
    /// the editor's turn).
    last_reply: Option<String>,
    path: std::path::PathBuf,
}

impl Parser {
    fn new(input: &Input) -> Parser {
        let path = input.path().to_path_buf();
        let (meta, used) = match input.resume() {
            Some(r) => (r.session.clone(), true),
            None => (preamble_meta(&path), false),
        };
        Parser {
            asm: Assembler::from_resume(input.resume()),
            metas: vec![meta],
            session_used: used,
            user: None,
            notes: Vec::new(),
            reply: None,
            open: None,
            held: None,
            // A resumed read starts after lines that showed the file's style.
            breaks: input.resume().is_some(),
            last_reply: None,
            path,
        }
    }

    fn meta(&mut self) -> &mut SessionMeta {
        let last = self.metas.len() - 1;
        &mut self.metas[last]
    }

    fn line(&mut self, text: String, at: At, sink: &mut dyn Sink) -> Result<()> {
        if let Some((held, held_at)) = self.held.take() {
            if text.trim().is_empty() {
                // A quote in the reply: aider's writes never continue with a blank line
                // straight after their first line.
                self.reply_text(&held, held_at);
            } else {
                self.end_block(sink)?;
                let body = held.strip_prefix("> ").unwrap_or(&held).to_string();
                let piece = Piece { text: body, at: held_at, end_line: held_at.line, multi: true };
                self.open = Some(OpenPiece { piece, may_end: false });
            }
        }
        if let Some(open) = self.open.as_mut() {
            // A turn or a header always ends the write; a blank or `>` line only after a
            // line that ended in aider's line break (the output may hold blank lines).
            let ends = text.starts_with(HEADER)
                || is_turn_line(&text)
                || (open.may_end && (text.trim().is_empty() || is_note_line(&text)));
            if !ends {
                open.piece.text.push('\n');
                open.piece.text.push_str(&text);
                open.piece.end_line = at.line;
                open.may_end = ends_write(&text);
                return Ok(());
            }
            self.close_piece();
        }
        if let Some(rest) = text.strip_prefix(HEADER) {
            self.end_block(sink)?;
            self.start_session(rest.trim(), sink)?;
            return Ok(());
        }
        if text.trim().is_empty() {
            if let Some(u) = self.user.as_mut() {
                u.closed = true;
            }
            if let Some(r) = self.reply.as_mut() {
                r.blanks += 1;
            }
            return Ok(());
        }
        self.session_used = true;
        // An editor's mode line (`-*- mode: fundamental -*-`) heading the file is a note.
        if at.line == 1 && text.starts_with("-*-") && text.trim_end().ends_with("-*-") {
            self.add_piece(Piece { text: text.trim_end().to_string(), at, end_line: at.line, multi: false });
            return Ok(());
        }
        if let Some(r) = self.reply.as_mut() {
            let fence = is_fence(&text);
            let turn = is_turn_line(&text)
                && (text.ends_with("  ")
                    || (!r.in_fence && text.get(5..).unwrap_or("").trim_start().starts_with(['/', '!'])));
            // Inside the reply's code fence only a write with aider's line break counts (a
            // reply cut off by ^C leaves its fence open).
            let note = r.blanks > 0 && is_note_line(&text) && (!r.in_fence || ends_write(&text));
            if !turn && !note {
                self.reply_text(&text, at);
                if fence && let Some(r) = self.reply.as_mut() {
                    r.in_fence = !r.in_fence;
                }
                return Ok(());
            }
            // A `> ` line after the reply without aider's line break is either the first
            // line of a multi-line write or a quote in the reply: the next line decides.
            let single = text.ends_with("  ") || text[1..].trim().is_empty() || !self.breaks;
            if note && !single {
                self.held = Some((text, at));
                return Ok(());
            }
            self.end_block(sink)?;
        }
        // A `####` line without aider's line break, in a file that has them, is not what
        // the person typed: a Markdown heading opening the assistant's reply.
        if is_turn_line(&text) && !(self.breaks && is_heading(&text)) {
            let continues = self.user.as_ref().is_some_and(|u| !u.closed) && self.notes.is_empty();
            if !continues {
                self.end_block(sink)?;
                self.user = Some(UserTurn { at, end_line: at.line, lines: Vec::new(), closed: false });
            }
            self.breaks |= text.ends_with("  ");
            if let Some(u) = self.user.as_mut() {
                u.lines.push(turn_text(&text).to_string());
                u.end_line = at.line;
            }
            return Ok(());
        }
        if is_note_line(&text) {
            let body = text.strip_prefix('>').unwrap_or("").strip_prefix(' ').unwrap_or("");
            let piece = Piece { text: String::new(), at, end_line: at.line, multi: false };
            self.breaks |= text.ends_with("  ");
            // Without aider's line breaks (a file whose trailing spaces were trimmed) the
            // end of a multi-line write cannot be told: every line is a write of its own.
            if text.ends_with("  ") || body.trim().is_empty() || !self.breaks {
                let mut piece = piece;
                piece.text = strip_break(body).to_string();
                if piece.text.trim().is_empty() {
                    piece.text.clear();
                }
                self.add_piece(piece);
            } else {
                let mut piece = piece;
                piece.text = body.to_string();
                piece.multi = true;
                self.open = Some(OpenPiece { piece, may_end: false });
            }
            return Ok(());
        }
        // The assistant's reply.
        self.end_block(sink)?;
        self.reply = Some(Reply { at, end_line: at.line, text: text.clone(), blanks: 0, in_fence: is_fence(&text) });
        Ok(())
    }

    /// Add a line to the reply being read, with the blank lines before it.
    fn reply_text(&mut self, text: &str, at: At) {
        if let Some(r) = self.reply.as_mut() {
            for _ in 0..r.blanks {
                r.text.push('\n');
            }
            if !r.text.is_empty() {
                r.text.push('\n');
            }
            r.blanks = 0;
            r.text.push_str(text);
            r.end_line = at.line;
        }
    }

    fn close_piece(&mut self) {
        if let Some(mut open) = self.open.take() {
            if open.may_end {
                open.piece.text.truncate(open.piece.text.len() - 2);
            }
            self.add_piece(open.piece);
        }
    }

    fn add_piece(&mut self, piece: Piece) {
        self.read_meta(&piece.text);
        self.notes.push(piece);
    }

    /// Facts aider prints at start-up: its version and the model.
    fn read_meta(&mut self, note: &str) {
        let first = note.lines().next().unwrap_or("");
        let meta = self.meta();
        if let Some(v) = first.strip_prefix("Aider v") {
            if meta.agent_version.is_none() {
                meta.agent_version = v.split_whitespace().next().map(str::to_string);
            }
            return;
        }
        for prefix in ["Main model: ", "Models: ", "Model: "] {
            if let Some(rest) = first.strip_prefix(prefix) {
                if meta.model.is_none() {
                    meta.model = rest.split(" with ").next().map(|m| m.trim().to_string()).filter(|m| !m.is_empty());
                }
                return;
            }
        }
    }

    fn start_session(&mut self, when: &str, sink: &mut dyn Sink) -> Result<()> {
        let started = NaiveDateTime::parse_from_str(when, "%Y-%m-%d %H:%M:%S").ok().map(|n| n.and_utc());
        let previous_id = self.meta().id.clone();
        if self.session_used {
            self.asm.next_session(sink)?;
            self.metas.push(preamble_meta(&self.path));
        }
        self.session_used = true;
        self.last_reply = None;
        let meta = self.meta();
        meta.id = session_id(when, started, &previous_id);
        if let Some(t) = started {
            meta.saw_time(t);
        }
        Ok(())
    }

    /// Turn the block being read into messages.
    fn end_block(&mut self, sink: &mut dyn Sink) -> Result<()> {
        if let Some((held, at)) = self.held.take() {
            self.reply_text(&held, at);
        }
        self.close_piece();
        if let Some(r) = self.reply.take() {
            self.last_reply = Some(normalized(&r.text));
            let msg = Message {
                role: Role::Assistant,
                origin: Origin::Typed,
                text: r.text,
                end_line: Some(r.end_line),
                ..Message::default()
            };
            self.asm.push(msg, None, r.at, sink)?;
        }
        let notes = std::mem::take(&mut self.notes);
        match self.user.take() {
            Some(turn) => self.push_turn(turn, notes, sink)?,
            None => self.push_notes(&notes, sink)?,
        }
        Ok(())
    }

    fn push_notes(&mut self, notes: &[Piece], sink: &mut dyn Sink) -> Result<()> {
        let (Some(first), Some(last)) = (notes.first(), notes.last()) else { return Ok(()) };
        let text = notes.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n");
        let msg = Message {
            role: Role::System,
            origin: Origin::Injected,
            text,
            end_line: Some(last.end_line),
            ..Message::default()
        };
        self.asm.push(msg, None, first.at, sink)?;
        Ok(())
    }

    fn push_turn(&mut self, turn: UserTurn, notes: Vec<Piece>, sink: &mut dyn Sink) -> Result<()> {
        let text = turn.lines.join("\n");
        let text = if text == "<blank>" { String::new() } else { text };
        // Aider's own turns: lint reflections and the like, the answer it gives a
        // confirmation for the person (a group's "all"), and in architect mode the
        // architect's reply handed to the editor model.
        let echo = !text.trim().is_empty() && self.last_reply.as_deref() == Some(normalized(&text).as_str());
        let (role, origin) = if INJECTED_TURNS.iter().any(|p| text.starts_with(p)) || is_confirmation(&text) || echo {
            (Role::System, Origin::Injected)
        } else {
            (Role::User, Origin::Typed)
        };
        let mut msg = Message { role, origin, end_line: Some(turn.end_line), ..Message::default() };
        let Some((name, command)) = shell_turn(&text).filter(|_| origin == Origin::Typed) else {
            msg.text = text;
            self.asm.push(msg, None, turn.at, sink)?;
            return self.push_notes(&notes, sink);
        };
        let id = format!("aider-{name}-L{}", turn.at.line);
        let input = match &command {
            Some(c) => serde_json::json!({ "command": c }),
            None => serde_json::Value::Null,
        };
        msg.calls.push(Call { id: id.clone(), name: name.to_string(), input, command, result: None, continues: None });
        msg.text = text;
        let (result, rest) = run_output(name, notes);
        match result {
            None => {
                self.asm.push(msg, None, turn.at, sink)?;
                self.asm.close_calls_of_last();
                self.push_notes(&rest, sink)?;
            }
            Some(result) if rest.is_empty() => {
                if let (Some(l), Some(c)) = (result.line, msg.calls.first_mut()) {
                    msg.end_line = msg.end_line.max(Some(l));
                    c.result = Some(result);
                }
                self.asm.push(msg, None, turn.at, sink)?;
            }
            Some(result) => {
                // The notes come after the call in the conversation; they are pushed while
                // the call is still open so that no restart point falls between the two.
                self.asm.push(msg, None, turn.at, sink)?;
                self.push_notes(&rest, sink)?;
                let _ = self.asm.attach(&id, result);
            }
        }
        Ok(())
    }

    fn finish(mut self, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        self.end_block(sink)?;
        self.asm.finish(sink)?;
        let path = self.path.clone();
        for meta in &mut self.metas {
            meta.source = path.clone();
            if path.file_name().is_some_and(|n| n == ".aider.chat.history.md")
                && let Some(dir) = path.parent().and_then(|d| d.to_str())
            {
                meta.saw_cwd(dir);
            }
        }
        Ok(self.metas)
    }
}

fn preamble_meta(path: &Path) -> SessionMeta {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("aider");
    let id = if stem.starts_with('.') { "preamble".to_string() } else { stem.to_string() };
    SessionMeta { id, ..SessionMeta::default() }
}

/// `2024-08-05T19:33:02`, made unique when two sessions start in the same second.
fn session_id(when: &str, started: Option<DateTime<Utc>>, previous: &str) -> String {
    let base = match started {
        Some(t) => t.format("%Y-%m-%dT%H:%M:%S").to_string(),
        None => when.replace(' ', "T"),
    };
    if previous == base || previous.starts_with(&format!("{base}#")) {
        let n = previous.rsplit_once('#').and_then(|(_, n)| n.parse::<u32>().ok()).unwrap_or(1);
        return format!("{base}#{}", n + 1);
    }
    base
}

fn is_turn_line(l: &str) -> bool {
    l.starts_with("#### ") || (l.starts_with("####") && l[4..].trim().is_empty())
}

/// A `####` line that aider did not write as a turn: text after the marker, no
/// two-space line break, and not a command (`/run`, `!ls`), which older versions logged
/// without one.
fn is_heading(l: &str) -> bool {
    let body = l.strip_prefix("####").unwrap_or(l).trim();
    !l.ends_with("  ") && !body.is_empty() && !body.starts_with(['/', '!'])
}

/// "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all":
/// aider answering one of its confirmations itself (a group answered "all" or "skip").
fn is_confirmation(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("");
    first.contains("(Y)es/(N)o")
        && first.rsplit_once("]: ").is_some_and(|(q, a)| q.contains(" [") && !a.trim().is_empty())
}

/// Text compared line by line without the whitespace around each line.
fn normalized(text: &str) -> String {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

fn is_note_line(l: &str) -> bool {
    l.starts_with("> ")
        || (l.starts_with('>') && l[1..].trim().is_empty())
        // `>text  ` (hand-edited transcripts), but not a `>>>>>>> REPLACE` marker.
        || (l.starts_with('>') && !l.starts_with(">>") && l.ends_with("  "))
}

fn is_fence(l: &str) -> bool {
    let t = l.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Whether a line can be the last of a write: aider strips the write's trailing
/// whitespace and appends a two-space line break, so the break follows a visible
/// character (a whitespace-only line inside the output is not an end).
fn ends_write(l: &str) -> bool {
    l.strip_suffix("  ").and_then(|t| t.chars().last()).is_some_and(|c| !c.is_whitespace())
}

/// The markdown line break aider appends to each write.
fn strip_break(s: &str) -> &str {
    s.strip_suffix("  ").unwrap_or(s)
}

fn turn_text(l: &str) -> &str {
    let body = l.strip_prefix("####").unwrap_or(l);
    let body = body.strip_prefix(' ').unwrap_or(body);
    strip_break(body)
}

/// `/run CMD`, `!CMD`, `/test [CMD]`: the call's name and command.
fn shell_turn(text: &str) -> Option<(&'static str, Option<String>)> {
    let command = |rest: &str| Some(rest.trim().to_string()).filter(|c| !c.is_empty());
    if let Some(rest) = text.strip_prefix("/run")
        && (rest.is_empty() || rest.starts_with(char::is_whitespace))
    {
        return Some(("run", command(rest)));
    }
    if let Some(rest) = text.strip_prefix("/test")
        && (rest.is_empty() || rest.starts_with(char::is_whitespace))
    {
        return Some(("test", command(rest)));
    }
    if let Some(rest) = text.strip_prefix('!') {
        return Some(("run", command(rest)));
    }
    None
}

/// Aider asking whether to add a command's output to the chat.
fn is_add_question(t: &str) -> bool {
    t.starts_with("Add ") && t.lines().next().is_some_and(|l| l.contains("output to the chat?"))
}

/// "Added 12 lines of output to the chat." (aider 0.66+).
fn is_added_note(t: &str) -> bool {
    t.starts_with("Added ") && (t.ends_with(" of output to the chat.") || t.ends_with(" of output to the chat"))
}

/// Split the `>` writes after a shell turn into the call's result and the notes that
/// follow it.
fn run_output(name: &str, pieces: Vec<Piece>) -> (Option<CallResult>, Vec<Piece>) {
    let mut output: Vec<Piece> = Vec::new();
    let mut notes: Vec<Piece> = Vec::new();
    let mut raw: Vec<String> = Vec::new();
    let mut copied = 0usize;
    let mut added = false;
    let mut output_follows_question = false;
    for p in pieces {
        if is_add_question(&p.text) {
            notes.push(p);
            continue;
        }
        if is_added_note(&p.text) {
            added = true;
            notes.push(p);
            continue;
        }
        // The line-by-line copy aider logs when it adds the output to the chat.
        let raw_logged = output.iter().any(|o| o.multi);
        if !p.multi && raw_logged && copied < raw.len() && p.text.trim() == raw[copied] {
            copied += 1;
            notes.push(p);
            continue;
        }
        // The output comes before aider's question, or (aider 0.53–0.65, which logged
        // it only once the person said yes) right after it.
        if notes.is_empty() || output.is_empty() || output_follows_question {
            output_follows_question |= !notes.is_empty();
            raw.extend(p.text.lines().map(|l| l.trim().to_string()));
            output.push(p);
        } else {
            notes.push(p);
        }
    }
    let failed = name == "test" && (added || (copied > 0 && copied + 1 >= raw.len()));
    let result = match output.last() {
        Some(last) => Some(CallResult {
            output: output.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n"),
            is_error: failed,
            line: Some(last.end_line),
            ..CallResult::default()
        }),
        None if failed => Some(CallResult { is_error: true, ..CallResult::default() }),
        None => None,
    };
    (result, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_turns() {
        assert_eq!(shell_turn("/run pytest -x"), Some(("run", Some("pytest -x".into()))));
        assert_eq!(shell_turn("!ls"), Some(("run", Some("ls".into()))));
        assert_eq!(shell_turn("/test"), Some(("test", None)));
        assert_eq!(shell_turn("/runner"), None);
        assert_eq!(shell_turn("run it"), None);
    }

    #[test]
    fn session_ids_are_unique_within_a_second() {
        let t = NaiveDateTime::parse_from_str("2024-08-05 19:33:02", "%Y-%m-%d %H:%M:%S").ok().map(|n| n.and_utc());
        assert_eq!(session_id("2024-08-05 19:33:02", t, "x"), "2024-08-05T19:33:02");
        assert_eq!(session_id("2024-08-05 19:33:02", t, "2024-08-05T19:33:02"), "2024-08-05T19:33:02#2");
        assert_eq!(session_id("2024-08-05 19:33:02", t, "2024-08-05T19:33:02#2"), "2024-08-05T19:33:02#3");
    }
}
