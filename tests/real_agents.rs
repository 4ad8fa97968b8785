//! Real sessions of the agents added after the first nine (`tests/data/real-agents.tsv`
//! names each file's repository, commit, path and licence). They are kept beside the
//! checkout in `../shared/corpus-real/agents/<rel>` (or the folder `DEBRIEF_REAL_AGENTS` names),
//! never in the repository; each test skips with one line when its file is absent (with
//! `DEBRIEF_REQUIRE_SHARED` set, a file missing from that folder fails). Every
//! file is read with its format, and its messages and calls are checked against counts
//! taken here from the raw records.

mod common;

use std::collections::HashSet;
use std::path::PathBuf;

use common::{REQUIRE_SHARED, call_counts, root};
use debrief::formats;
use serde_json::Value;

/// The manifest's rows: (rel, format).
fn rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("tests/data/real-agents.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.split('\t');
            (cols.next().unwrap().to_string(), cols.next().unwrap().to_string())
        })
        .collect()
}

/// The file of a row, or `None` after one line saying it is skipped.
fn real(rel: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("DEBRIEF_REAL_AGENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus-real/agents"));
    let path = dir.join(rel);
    if path.is_file() {
        return Some(path);
    }
    let why = format!("{} not found (real sessions beside the checkout)", path.display());
    // Until the folder is laid out beside the checkout, its absence is a skip even where
    // `DEBRIEF_REQUIRE_SHARED` is set; a file missing from a folder that is there is not.
    if dir.is_dir() && std::env::var_os(REQUIRE_SHARED).is_some_and(|v| v != "0") {
        panic!("{why}, and {REQUIRE_SHARED} is set");
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipped {rel}: {why}");
    None
}

#[test]
fn every_manifest_row_has_a_reader() {
    for (rel, format) in rows() {
        assert!(formats::by_id(&format).is_some(), "{rel}: no format {format}");
    }
}

/// iFlow: every distinct `tool_use` id is one call with its result, every user text one
/// typed turn, and each burst of assistant records one message.
#[test]
fn iflow_sessions_match_their_records() {
    for (rel, format) in rows().into_iter().filter(|(_, f)| f == "iflow") {
        let Some(path) = real(&rel) else { continue };
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        assert_eq!(parsed.format.id(), format, "{rel}");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{rel}: {:?} {:?}", parsed.bad, parsed.unknown);
        let s = &parsed.sessions[0];
        let (mut calls, mut results, mut typed) = (HashSet::new(), HashSet::new(), 0);
        for line in std::fs::read_to_string(&path).unwrap().lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            let content = &v["message"]["content"];
            if content.is_string() {
                typed += 1;
            }
            for b in content.as_array().into_iter().flatten() {
                match b["type"].as_str() {
                    Some("tool_use") => {
                        calls.insert(b["id"].as_str().unwrap().to_string());
                    }
                    Some("tool_result") => {
                        results.insert(b["tool_use_id"].as_str().unwrap().to_string());
                    }
                    _ => {}
                }
            }
        }
        let typed_read = s.messages.iter().filter(|m| m.is_typed_user()).count();
        assert_eq!(typed_read, typed, "{rel}: typed user turns");
        let (n, _, _, open) = call_counts(s);
        assert_eq!(n, calls.len(), "{rel}: calls");
        assert_eq!(n - open, calls.intersection(&results).count(), "{rel}: calls with their result");
        let ids: HashSet<&str> = s.messages.iter().flat_map(|m| &m.calls).map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), n, "{rel}: a call read twice");
    }
}

/// Cursor: every user row is one typed turn, every `tool_use` block one call (with no
/// result: Cursor records none), every assistant row with words or calls one reply, and
/// a subagent's session names its parent.
#[test]
fn cursor_transcripts_match_their_records() {
    for (rel, format) in rows().into_iter().filter(|(_, f)| f == "cursor") {
        let Some(path) = real(&rel) else { continue };
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        assert_eq!(parsed.format.id(), format, "{rel}");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{rel}: {:?} {:?}", parsed.bad, parsed.unknown);
        let s = &parsed.sessions[0];
        let (mut users, mut replies, mut calls, mut ends) = (0, 0, 0, 0);
        for line in std::fs::read_to_string(&path).unwrap().lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            let blocks = v["message"]["content"].as_array().cloned().unwrap_or_default();
            let tools = blocks.iter().filter(|b| b["type"] == "tool_use").count();
            match v["role"].as_str() {
                Some("user") => users += 1,
                Some("assistant") => {
                    calls += tools;
                    let words = blocks.iter().any(|b| b["text"].as_str().is_some_and(|t| t.trim() != "[REDACTED]"));
                    replies += usize::from(tools > 0 || words);
                }
                _ => ends += usize::from(v["type"] == "turn_ended" && v["status"] != "success"),
            }
        }
        assert_eq!(s.messages.iter().filter(|m| m.is_typed_user()).count(), users, "{rel}: typed user turns");
        assert_eq!(s.messages.iter().filter(|m| m.role == debrief::model::Role::Assistant).count(), replies, "{rel}");
        let (n, _, _, open) = call_counts(s);
        assert_eq!((n, open), (calls, calls), "{rel}: calls, none with a result");
        let marks = s.messages.iter().filter(|m| m.role != debrief::model::Role::Assistant && !m.is_typed_user());
        assert!(marks.count() >= ends, "{rel}: turn ends");
        if rel.contains("/subagents/") {
            assert!(s.meta.parent_session.is_some(), "{rel}: a subagent names its parent");
            assert!(s.meta.parent_call.is_some(), "{rel}: and the Task call that ran it");
        }
    }
}

/// Antigravity: every `USER_INPUT` the person sent is one typed turn, every entry of a
/// response's `tool_calls` one call, every result step (a `MODEL` step that is no response,
/// an `ERROR_MESSAGE`) the result of one of them, every background task told finished,
/// every `run_command` call a command, and every exit code a step states (its `exit_code`
/// field, else its text, or the text of the message that told its task finished) the exit
/// code of one call.
#[test]
fn antigravity_trajectories_match_their_steps() {
    let stated = regex::Regex::new(
        r"The command (?:exited with code|failed with exit code:) (\d+)|The command completed successfully",
    )
    .unwrap();
    for (rel, format) in rows().into_iter().filter(|(_, f)| f == "antigravity") {
        let Some(path) = real(&rel) else { continue };
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        assert_eq!(parsed.format.id(), format, "{rel}");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{rel}: {:?} {:?}", parsed.bad, parsed.unknown);
        let s = &parsed.sessions[0];
        let (mut typed, mut calls, mut commands, mut results) = (0, 0, 0, 0);
        let code_in =
            |text: &str| stated.captures(text).map(|c| c.get(1).map_or(0, |n| n.as_str().parse::<i32>().unwrap()));
        let mut codes = Vec::new();
        for line in std::fs::read_to_string(&path).unwrap().lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            let text = v["content"].as_str().unwrap_or("");
            let code = v["exit_code"].as_i64().map(|c| c as i32).or_else(|| code_in(text));
            let told = v["type"] == "SYSTEM_MESSAGE" && text.contains(" finished with result:");
            if v["source"] == "MODEL" && v["type"] != "PLANNER_RESPONSE" || told {
                codes.extend(code);
            }
            match (v["source"].as_str().unwrap(), v["type"].as_str().unwrap()) {
                ("USER_EXPLICIT", "USER_INPUT") => typed += 1,
                ("MODEL", "PLANNER_RESPONSE") => {
                    let tools = v["tool_calls"].as_array().cloned().unwrap_or_default();
                    calls += tools.len();
                    commands += tools.iter().filter(|t| t["name"] == "run_command").count();
                }
                ("MODEL", _) | ("SYSTEM", "ERROR_MESSAGE") => results += 1,
                _ => {}
            }
        }
        assert_eq!(s.messages.iter().filter(|m| m.is_typed_user()).count(), typed, "{rel}: typed user turns");
        let (n, with_command, _, open) = call_counts(s);
        assert_eq!((n, with_command), (calls, commands), "{rel}: calls and commands");
        assert_eq!(n - open, results, "{rel}: calls with their result");
        assert!(s.messages.iter().all(|m| m.role != debrief::model::Role::Tool), "{rel}: a result joined no call");
        let running = s.messages.iter().flat_map(|m| &m.calls).filter_map(|c| c.result.as_ref()).filter(|r| r.running);
        assert_eq!(running.count(), 0, "{rel}: every background task was told finished");
        let results = s.messages.iter().flat_map(|m| &m.calls).filter_map(|c| c.result.as_ref());
        let mut read: Vec<i32> = results.filter_map(|r| r.exit_code).collect();
        read.sort();
        codes.sort();
        assert_eq!(read, codes, "{rel}: exit codes");
        let failed = s
            .messages
            .iter()
            .flat_map(|m| &m.calls)
            .filter(|c| c.result.as_ref().is_some_and(|r| r.exit_code.is_some_and(|e| e != 0) && !r.is_error));
        assert_eq!(failed.count(), 0, "{rel}: a command that exited non-zero failed");
    }
}
