//! The real transcripts of `../shared/corpus-real-new` (its MANIFEST.md names each source
//! and licence): every file is read with the right format, and its messages and calls are
//! checked against counts taken here from the raw records, the way the MANIFEST counts
//! them. Where debrief's number is rightly not the MANIFEST's, the comment says why.
//!
//! The MANIFEST's "errors" column counts lines matching `error|failed|traceback` in the
//! markdown files: words in the chat, not failed calls, so it is not compared.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::{call_counts, real_new, real_new_dir, resumes_reproduce_the_full_parse, transcript_file, uncovered_lines};
use debrief::formats::{self, specstory::SpecStory};
use debrief::model::{Call, Message, Origin, Role, Session};
use serde_json::Value;

/// (file, format, sessions, messages, typed user turns, (calls, commands, failed calls,
/// calls without a result)) as debrief reads them. The tests below derive each from the
/// raw records.
type Row = (&'static str, &'static str, usize, usize, usize, (usize, usize, usize, usize));

const OPENHANDS: &str = "openhands/OpenHands_OpenHands-CLI/cli447_hi_followup_iterative_case_a";

#[rustfmt::skip]
const FILES: &[Row] = &[
    ("aider/Asphyksia_OpenCoder/.aider.chat.history.md", "aider", 34, 103, 32, (0, 0, 0, 0)),
    ("claude_code/bastion-agentique_bastion/claude-session.jsonl", "claude-code", 1, 7, 1, (5, 3, 0, 0)),
    ("gemini_cli/google-gemini_gemini-cli/trajectory.json", "gemini-checkpoint", 1, 61, 6, (45, 10, 8, 0)),
    (OPENHANDS, "openhands", 1, 11, 1, (3, 1, 0, 0)),
    ("pi_agent/rycerzes_trl/session.jsonl", "pi", 1, 81, 5, (78, 67, 10, 0)),
    ("specstory/0-auth_zero-auth/2026-08-06_20-58-44Z-go-through-the-given.md", "specstory", 1, 10, 4, (15, 2, 0, 0)),
    ("specstory/0-auth_zero-auth/2026-08-06_21-16-53Z-codebase-review-and-improvements.md", "specstory", 1, 28, 4, (90, 5, 0, 73)),
    ("specstory/AgentPhoenix7_bing-wallpaper/2025-12-24_09-30-40Z-upgrading-java-runtime-to-version-21-lts.md", "specstory", 1, 12, 4, (46, 19, 0, 46)),
    ("specstory/DakineMI_tree-sitter-languages-rs/2025-12-15_23-48Z-initialization-process-discussion.md", "specstory", 1, 12, 4, (66, 27, 5, 14)),
    ("specstory/DanCard_cal-date-widget/2025-12-04_21-38-15Z-double-row-text-size.md", "specstory", 1, 276, 24, (198, 82, 6, 0)),
    ("specstory/DanCard_cal-date-widget/2025-12-05_00-26-41Z-week-widget-for-current.md", "specstory", 1, 90, 21, (105, 0, 0, 86)),
    ("specstory/DanCard_cal-date-widget/2025-12-05_01-08-06Z-should-you-familiarize-yourself.md", "specstory", 1, 135, 21, (145, 0, 0, 102)),
    ("specstory/MichaelPaulukonis_polychrome.p5/2025-06-19_18-29Z-testing-strategies-for-a-creative-coding-project.md", "specstory", 1, 29, 15, (0, 0, 0, 0)),
    ("specstory/destyler_destyler/2025-11-18_05-17Z-vanilla-color-picker-input-issue.md", "specstory", 1, 12, 6, (0, 0, 0, 0)),
    ("specstory/destyler_destyler/2025-11-24_02-36Z-hover-card-test-failures-and-cleanup-solutions.md", "specstory", 1, 6, 3, (0, 0, 0, 0)),
    ("specstory/destyler_destyler/2025-11-27_05-48Z-adding-cleanup-function-to-tooltip-tests.md", "specstory", 1, 3, 1, (8, 0, 0, 0)),
    ("specstory/kevinslin_skillz/2025-11-06_15-07Z-fix-eslint-configuration-for-typescript.md", "specstory", 1, 24, 1, (23, 9, 0, 16)),
    ("specstory/peterRD5113_demo/2026-03-08_16-12Z-document-parsing-error-missing-column.md", "specstory", 1, 469, 44, (423, 158, 56, 186)),
    ("specstory/peterRD5113_demo/2026-03-09_06-05Z-document-upload-issues.md", "specstory", 1, 153, 20, (77, 3, 13, 48)),
    ("specstory/peterRD5113_demo/2026-03-09_07-50Z-typeerror-in-clauseitem-component.md", "specstory", 1, 337, 32, (331, 119, 30, 147)),
    ("specstory/robin-collins_Roo-Cline/debugging-configuration-profile-issues-in-roo-cline.md", "specstory", 1, 117, 16, (72, 8, 0, 72)),
    ("specstory/robin-collins_Roo-Cline/resolving-lint-errors-in-code.md", "specstory", 1, 7, 2, (3, 0, 0, 3)),
];

/// Every transcript of the folder: files, except the OpenHands event files, which are
/// one conversation read through its folder.
fn transcripts(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name() != "MANIFEST.md")
        .map(|e| e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned())
        .map(|p| if p.starts_with("openhands/") { OPENHANDS.to_string() } else { p })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn read(rel: &str) -> Option<(PathBuf, Vec<Session>)> {
    let path = transcript_file(&real_new(rel)?);
    let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
    Some((path, parsed.sessions))
}

fn all_calls(s: &Session) -> impl Iterator<Item = &Call> {
    s.messages.iter().flat_map(|m| &m.calls)
}

fn typed_users(sessions: &[Session]) -> usize {
    sessions.iter().flat_map(|s| &s.messages).filter(|m| m.is_typed_user()).count()
}

#[test]
fn every_file_is_read_with_its_format_and_counts() {
    let Some(dir) = real_new_dir() else { return };
    let found = transcripts(&dir);
    let listed: Vec<&str> = FILES.iter().map(|r| r.0).collect();
    assert_eq!(found, listed, "a new file in corpus-real-new needs a row here");
    for &(rel, format, sessions, messages, typed, calls) in FILES {
        let path = transcript_file(&dir.join(rel));
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        assert_eq!(parsed.format.id(), format, "{rel}");
        assert!(parsed.bad.is_empty(), "{rel}: {:?}", parsed.bad.iter().map(|b| &b.reason).collect::<Vec<_>>());
        assert!(parsed.unknown.is_empty(), "{rel}: {:?}", parsed.unknown);
        assert_eq!(parsed.sessions.len(), sessions, "{rel}: sessions");
        let n: usize = parsed.sessions.iter().map(|s| s.messages.len()).sum();
        assert_eq!(n, messages, "{rel}: messages");
        assert_eq!(typed_users(&parsed.sessions), typed, "{rel}: typed user turns");
        let mut got = (0, 0, 0, 0);
        for s in &parsed.sessions {
            let c = call_counts(s);
            got = (got.0 + c.0, got.1 + c.1, got.2 + c.2, got.3 + c.3);
            for (i, m) in s.messages.iter().enumerate() {
                assert_eq!(m.idx as usize, i + 1, "{rel}");
                let empty = m.text.trim().is_empty() && m.thinking.is_empty() && m.calls.is_empty();
                assert!(!empty || m.is_typed_user(), "{rel}: msg {} holds nothing", m.idx);
            }
        }
        assert_eq!(got, calls, "{rel}: calls/commands/failed/without result");
    }
}

// ---------------------------------------------------------------------------------------
// SpecStory markdown: counted from the headers and `<tool-use>` blocks.

/// What the raw markdown of a SpecStory export holds, counted line by line.
#[derive(Debug, Default, PartialEq)]
struct Raw {
    /// `_**User…**_` headers.
    users: usize,
    /// Of those, Claude Code's "[Request interrupted by user]": the interrupt marker.
    interrupts: usize,
    /// `_**Agent…**_` / `_**Assistant**_` headers (the MANIFEST's messages are both).
    agents: usize,
    /// `_**Agent (<synthetic> …)**_` headers: API errors Claude Code wrote.
    synthetic: usize,
    /// `<tool-use` blocks.
    tool_uses: usize,
    /// The MANIFEST's bash calls: tool-use of type shell/bash or a name with "terminal"
    /// (its figures show it counts `shell_command` too).
    manifest_shell: usize,
    /// Of those, the ones that run no command SpecStory wrote: Codex CLI's
    /// `shell_command` blocks (empty: SpecStory writes neither command nor output),
    /// Copilot's `get_terminal_output` (reads a background terminal) and Gemini CLI's
    /// `list_directory` (typed `shell`, but a directory listing).
    shell_without_command: usize,
    /// A `Cancelled` bubble: a call the person stopped.
    cancelled: usize,
    /// Cursor's failed tool bubbles, a part of one line: `Error: StrReplace failed: …`,
    /// `File not found: PATH`.
    failed_bubbles: usize,
    /// The earliest exports' tool bubbles: an `_**Assistant**_` section that is one
    /// untagged fenced block and nothing else (a command line or an edit).
    bare_bubbles: usize,
    /// Fenced ```bash/```sh/```powershell blocks outside tool-use blocks (the MANIFEST's
    /// tool calls for the old style).
    shell_fences: usize,
    /// Failed commands the file records: a non-zero `"exitCode"` in Copilot's terminal
    /// JSON, a non-zero `Exit Code:` in Gemini CLI's shell result.
    failed: usize,
}

fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let key = format!("{name}=\"");
    tag.find(&key).map_or("", |i| {
        let rest = &tag[i + key.len()..];
        &rest[..rest.find('"').unwrap_or(rest.len())]
    })
}

fn raw_specstory(text: &str) -> Raw {
    let lines: Vec<&str> = text.lines().collect();
    let mut raw = Raw::default();
    let mut in_tool = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim();
        if t.starts_with("_**User") {
            raw.users += 1;
        }
        if t.starts_with("_**Agent") || t.starts_with("_**Assistant") {
            raw.agents += 1;
            raw.synthetic += usize::from(t.contains("(<synthetic>"));
        }
        if t.starts_with("[Request interrupted by user")
            && lines[..i].iter().rev().find(|l| !l.trim().is_empty()).is_some_and(|l| l.trim().starts_with("_**User"))
        {
            raw.interrupts += 1;
        }
        if t == "Cancelled" {
            raw.cancelled += 1;
        }
        let failure = (t.starts_with("Error: ") && t.contains(" failed: ")) || t.starts_with("File not found: ");
        if failure && !in_tool {
            let before = lines[..i].iter().rev().map(|l| l.trim()).find(|l| !l.is_empty());
            let after = lines[i + 1..].iter().map(|l| l.trim()).find(|l| !l.is_empty());
            let part_edge = |l: Option<&str>| l.is_none_or(|l| l == "---" || l.starts_with("_**"));
            raw.failed_bubbles += usize::from(part_edge(before) && part_edge(after));
        }
        if t.starts_with("<tool-use") {
            raw.tool_uses += 1;
            in_tool = true;
            let (kind, name) = (attr(t, "data-tool-type"), attr(t, "data-tool-name"));
            if matches!(kind, "shell" | "bash") || name.contains("terminal") || name.contains("shell") {
                raw.manifest_shell += 1;
                let empty = t.ends_with("</summary></details></tool-use>");
                if empty || name == "get_terminal_output" || name == "list_directory" {
                    raw.shell_without_command += 1;
                }
            }
        }
        if in_tool && t.contains("</tool-use>") {
            in_tool = false;
        }
        if !in_tool && ["```bash", "```sh", "```powershell"].contains(&t) {
            raw.shell_fences += 1;
        }
        let exit = t.strip_prefix("\"exitCode\": ").or_else(|| t.strip_prefix("Exit Code: "));
        if let Some(code) = exit.map(|c| c.trim_end_matches(',')) {
            raw.failed += usize::from(code.parse::<i64>().is_ok_and(|c| c != 0));
        }
        if t == "_**Assistant**_" {
            let body: Vec<&str> = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .take_while(|l| *l != "---" && !l.starts_with("_**"))
                .filter(|l| !l.is_empty())
                .collect();
            // A closing fence may be longer than the opening one (one bubble closes with ````).
            let fence = |l: &str| l.len() >= 3 && l.bytes().all(|b| b == b'`');
            let bare = body.len() >= 2
                && body[0] == "```"
                && fence(body[body.len() - 1])
                && !body[1..body.len() - 1].iter().any(|l| fence(l));
            raw.bare_bubbles += usize::from(bare);
        }
    }
    raw
}

/// The earliest Cursor export's command bubbles (the others are edits).
const ROO_COMMANDS: &[&str] = &[
    "npm run check-types",
    "npm run lint",
    "npm run test",
    "npm run compile",
    "npm run check-types",
    "npm run lint",
    "echo \"# Profile Configuration Updates - $(date +%Y%m%d_%H%M%S)",
    "touch profile-updates-$(date +%Y%m%d_%H%M%S).md",
];

/// SpecStory's structure lines: header comments, title, separators, and agent headers
/// whose section holds nothing (a bubble SpecStory did not write).
fn specstory_structure(l: &str) -> bool {
    let t = l.trim();
    t == "---"
        || t == "## SpecStory"
        || t.starts_with("<!-- Generated by SpecStory")
        || t.starts_with("# ")
        || (t.starts_with("## ") && (t.ends_with(" AM)") || t.ends_with(" PM)")))
        || (t.starts_with("<!-- ") && t.contains(" Session "))
        || t.starts_with("_**Assistant")
        || t.starts_with("_**Agent")
}

#[test]
fn specstory_exports_count_as_their_headers_and_tool_blocks() {
    let Some(dir) = real_new_dir() else { return };
    for &(rel, ..) in FILES.iter().filter(|r| r.1 == "specstory") {
        let path = dir.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let raw = raw_specstory(&text);
        let (_, sessions) = read(rel).unwrap();
        let s = &sessions[0];
        // One typed user message per user header, and nothing else is typed by the user;
        // an interrupt marker is a user message of its own kind.
        assert_eq!(typed_users(&sessions), raw.users - raw.interrupts, "{rel}: user turns");
        let interrupts = s.messages.iter().filter(|m| m.origin == Origin::Interrupt).count();
        assert_eq!(interrupts, raw.interrupts, "{rel}: interrupts");
        // A `<synthetic>` agent section is a system message, not the model's.
        let injected = s.messages.iter().filter(|m| m.role == Role::System).count();
        assert_eq!(injected, raw.synthetic, "{rel}: system messages");
        // The agent side: MANIFEST counts headers; debrief makes one message per run of
        // text (with the thinking before it and the calls after it), as a reader groups
        // a reply. Consecutive agent headers of one reply therefore merge (Copilot writes
        // a header per tool: 52 headers are 8 messages), and an agent section whose
        // `---` parts alternate text and tools splits (Cursor: 43 headers, 425 messages).
        // Checked instead: no message is empty (above), and every line is in a message
        // (below).
        let assistants = s.messages.iter().filter(|m| m.role == Role::Assistant).count();
        assert!(assistants > 0 || raw.agents == 0, "{rel}");
        // Every tool-use block is a call, and so is every `Cancelled` or failure bubble
        // (the MANIFEST counts neither these nor the earliest export's bare bubbles).
        let (calls, commands, failed, _) = call_counts(s);
        assert_eq!(calls, raw.tool_uses + raw.cancelled + raw.failed_bubbles + raw.bare_bubbles, "{rel}: calls");
        // Shell calls with the command they ran. The old style's ```bash/```sh fences
        // that the MANIFEST counts as calls are commands suggested in the reply's text
        // (the person ran them and pasted the errors): they stay in the text.
        let bare_commands = if rel.contains("Roo-Cline/debugging") { ROO_COMMANDS.len() } else { 0 };
        assert_eq!(commands, raw.manifest_shell - raw.shell_without_command + bare_commands, "{rel}: commands");
        let in_text: usize = s
            .messages
            .iter()
            .map(|m| {
                ["```bash\n", "```sh\n", "```powershell\n"].iter().map(|f| m.text.matches(f).count()).sum::<usize>()
            })
            .sum();
        assert!(
            in_text >= raw.shell_fences,
            "{rel}: a suggested command left the text ({in_text} < {})",
            raw.shell_fences
        );
        assert_eq!(failed, raw.failed + raw.failed_bubbles, "{rel}: failed calls");
        let lost = uncovered_lines(&path, &sessions, specstory_structure);
        assert!(lost.is_empty(), "{rel}: lines in no message: {:?}", &lost[..lost.len().min(5)]);
    }
}

/// The MANIFEST's own figures for the SpecStory files, where they are the right
/// expectation: messages = headers, tool calls = `<tool-use>` blocks, bash calls as it
/// counts them (the differences to debrief are explained above).
#[test]
fn raw_counts_agree_with_the_manifest() {
    let Some(dir) = real_new_dir() else { return };
    #[rustfmt::skip]
    let manifest: &[(&str, usize, usize, usize)] = &[
        ("specstory/destyler_destyler/2025-11-24_02-36Z-hover-card-test-failures-and-cleanup-solutions.md", 6, 0, 0),
        ("specstory/destyler_destyler/2025-11-18_05-17Z-vanilla-color-picker-input-issue.md", 12, 0, 0),
        ("specstory/destyler_destyler/2025-11-27_05-48Z-adding-cleanup-function-to-tooltip-tests.md", 2, 8, 0),
        ("specstory/robin-collins_Roo-Cline/debugging-configuration-profile-issues-in-roo-cline.md", 207, 5, 5),
        ("specstory/robin-collins_Roo-Cline/resolving-lint-errors-in-code.md", 13, 0, 0),
        ("specstory/AgentPhoenix7_bing-wallpaper/2025-12-24_09-30-40Z-upgrading-java-runtime-to-version-21-lts.md", 56, 46, 19),
        ("specstory/0-auth_zero-auth/2026-08-06_20-58-44Z-go-through-the-given.md", 24, 15, 2),
        ("specstory/0-auth_zero-auth/2026-08-06_21-16-53Z-codebase-review-and-improvements.md", 131, 90, 5),
        ("specstory/DakineMI_tree-sitter-languages-rs/2025-12-15_23-48Z-initialization-process-discussion.md", 8, 66, 28),
        ("specstory/kevinslin_skillz/2025-11-06_15-07Z-fix-eslint-configuration-for-typescript.md", 2, 23, 9),
        ("specstory/MichaelPaulukonis_polychrome.p5/2025-06-19_18-29Z-testing-strategies-for-a-creative-coding-project.md", 30, 18, 18),
        ("specstory/peterRD5113_demo/2026-03-09_07-50Z-typeerror-in-clauseitem-component.md", 63, 301, 119),
        ("specstory/peterRD5113_demo/2026-03-09_06-05Z-document-upload-issues.md", 40, 64, 3),
        ("specstory/peterRD5113_demo/2026-03-08_16-12Z-document-parsing-error-missing-column.md", 87, 362, 158),
        ("specstory/DanCard_cal-date-widget/2025-12-05_00-26-41Z-week-widget-for-current.md", 202, 105, 73),
        ("specstory/DanCard_cal-date-widget/2025-12-05_01-08-06Z-should-you-familiarize-yourself.md", 284, 145, 96),
        ("specstory/DanCard_cal-date-widget/2025-12-04_21-38-15Z-double-row-text-size.md", 472, 198, 84),
    ];
    for &(rel, headers, tools, shell) in manifest {
        let raw = raw_specstory(&std::fs::read_to_string(dir.join(rel)).unwrap());
        assert_eq!(raw.users + raw.agents, headers, "{rel}: headers");
        let old_style = raw.tool_uses == 0;
        if old_style {
            assert_eq!((raw.shell_fences, raw.shell_fences), (tools, shell), "{rel}: shell fences");
        } else {
            assert_eq!((raw.tool_uses, raw.manifest_shell), (tools, shell), "{rel}: tool-use blocks");
        }
    }
}

fn find_call(s: &Session, what: impl Fn(&Call) -> bool) -> &Call {
    all_calls(s).find(|c| what(c)).expect("the call")
}

fn output(c: &Call) -> &str {
    c.result.as_ref().map_or("", |r| r.output.as_str())
}

#[test]
fn copilot_terminal_json_gives_command_output_and_exit_code() {
    let Some((_, sessions)) =
        read("specstory/DakineMI_tree-sitter-languages-rs/2025-12-15_23-48Z-initialization-process-discussion.md")
    else {
        return;
    };
    let s = &sessions[0];
    let first = find_call(s, |c| c.name == "run_in_terminal");
    assert_eq!(first.command.as_deref(), Some("tree-sitter --version"));
    let r = first.result.as_ref().unwrap();
    assert_eq!((r.output.as_str(), r.exit_code, r.is_error), ("tree-sitter 0.26.3", Some(0), false));
    // `&amp;&amp;` in the JSON is the `&&` the agent ran.
    let deps = find_call(s, |c| c.command.as_deref().is_some_and(|c| c.ends_with("./scripts/dependencies.sh")));
    assert_eq!(deps.command.as_deref(), Some("chmod +x scripts/dependencies.sh && ./scripts/dependencies.sh"));
    let r = deps.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error), (Some(1), true));
    assert!(r.output.starts_with("Creating sitters directory...") && r.output.contains("error: could not fetch"));
    // A run whose output the export does not hold has no result: not an empty output.
    let silent = all_calls(s).filter(|c| c.name == "run_in_terminal" && c.result.is_none()).count();
    assert_eq!(silent, 13);
    // Copilot's replace tool: the result JSON's `content` (escaped backticks decoded).
    let replace = find_call(s, |c| c.name == "copilot_replaceString");
    assert!(output(replace).starts_with("```shellscript\n"), "{}", output(replace));
    // Reading a background terminal runs nothing.
    assert!(find_call(s, |c| c.name == "get_terminal_output").command.is_none());
}

#[test]
fn copilot_input_lists_give_the_command() {
    let Some((_, sessions)) =
        read("specstory/AgentPhoenix7_bing-wallpaper/2025-12-24_09-30-40Z-upgrading-java-runtime-to-version-21-lts.md")
    else {
        return;
    };
    let s = &sessions[0];
    let run = find_call(s, |c| c.name == "run_in_terminal");
    let cmd = run.command.as_deref().unwrap();
    assert!(cmd.starts_with("Push-Location \"C:\\Users\\agntd\\Documents\\GitHub\\bing-wallpaper\";"), "{cmd}");
    assert_eq!(run.input["isBackground"], "false");
    assert!(run.input["explanation"].as_str().unwrap().starts_with("Apply the OpenRewrite recipe"));
    // A `- content:` block is the file the call wrote, not its output.
    let create = find_call(s, |c| c.name == "create_file");
    assert!(create.result.is_none());
    assert!(create.input["content"].as_str().unwrap().starts_with("type: specs.openrewrite.org/v1beta/recipe"));
    assert!(create.input["filePath"].as_str().unwrap().ends_with("rewrite.yml"));
    let patch = find_call(s, |c| c.name == "apply_patch");
    assert!(patch.result.is_none() && patch.input["input"].as_str().unwrap().starts_with("*** Begin Patch"));
    // "Continue to iterate?" (Copilot's button) and the "Yes" answers are typed turns.
    let users: Vec<&str> = s.messages.iter().filter(|m| m.is_typed_user()).map(|m| m.text.as_str()).collect();
    assert_eq!(users[1..], ["@agent Continue: \"Continue to iterate?\"", "Yes", "Yes"]);
}

#[test]
fn copilot_result_json_is_the_outcome() {
    let Some((_, sessions)) =
        read("specstory/destyler_destyler/2025-11-27_05-48Z-adding-cleanup-function-to-tooltip-tests.md")
    else {
        return;
    };
    let errors = find_call(&sessions[0], |c| c.name == "copilot_getErrors");
    assert!(output(errors).ends_with("未发现问题"), "the past-tense message: {}", output(errors));
    assert!(errors.input["file_path"].as_str().unwrap().ends_with("tooltip.spec.ts"));
}

#[test]
fn gemini_cli_exports_read_shell_results_and_edits() {
    let Some((_, sessions)) = read("specstory/DanCard_cal-date-widget/2025-12-04_21-38-15Z-double-row-text-size.md")
    else {
        return;
    };
    let s = &sessions[0];
    assert_eq!(s.meta.agent, "Gemini CLI (SpecStory)");
    let build = find_call(s, |c| c.command.as_deref() == Some("./gradlew build"));
    let r = build.result.as_ref().unwrap();
    assert!(r.output.starts_with("Command: ./gradlew build\nDirectory: (root)\nOutput:"), "{}", r.output);
    assert_eq!(r.exit_code, Some(0));
    let failed: Vec<i32> =
        all_calls(s).filter_map(|c| c.result.as_ref()).filter(|r| r.is_error).filter_map(|r| r.exit_code).collect();
    assert_eq!(failed, [1, 1, 128, 1, 1, 2]);
    // `Result: …` on one line.
    let rejected = find_call(s, |c| output(c) == "Command rejected because it could not be parsed safely");
    assert!(rejected.command.as_deref().unwrap().starts_with("git commit -m \"fix: Adjust default start time"));
    // An edit: path and diff are its input, `Result:` its output.
    let edit = find_call(s, |c| c.name == "replace");
    assert!(edit.input["path"].as_str().unwrap().ends_with("WeeklyWidgetProvider.kt"));
    assert!(edit.input["diff"].as_str().unwrap().contains("textSize = 48f * settings.textSizeScale"));
    assert!(output(edit).starts_with("Successfully modified file:"));
    // Search and listing results are plain text; a listing is no command.
    let search = find_call(s, |c| c.name == "search_file_content");
    assert!(output(search).starts_with("No matches found for pattern \"setTextSize|TextSize\""));
    let ls = find_call(s, |c| c.name == "list_directory");
    assert!(ls.command.is_none() && output(ls).starts_with("Directory listing for /Users/dancar/"));
    assert!(output(ls).ends_with("widget_weekly.xml"));
}

#[test]
fn codex_cli_exports_hold_no_shell_commands() {
    let Some((_, sessions)) = read("specstory/DanCard_cal-date-widget/2025-12-05_00-26-41Z-week-widget-for-current.md")
    else {
        return;
    };
    let s = &sessions[0];
    // SpecStory writes Codex's shell_command blocks empty: a call, no command, no result
    // (an empty command would make the 73 look like one command re-run).
    let shell: Vec<&Call> = all_calls(s).filter(|c| c.name == "shell_command").collect();
    assert_eq!(shell.len(), 73);
    assert!(shell.iter().all(|c| c.command.is_none() && c.result.is_none()));
    let patch = find_call(s, |c| c.name == "apply_patch");
    assert_eq!(
        output(patch),
        "Success. Updated the following files:\nM app/src/main/java/ai/dcar/caldatewidget/WeeklyWidgetProvider.kt"
    );
    let image = find_call(s, |c| c.name == "view_image");
    assert_eq!(image.input["description"], "/Users/dancar/github/cal-date-widget/build/weekly.png");
}

#[test]
fn cursor_exports_unescape_output_and_keep_long_summaries() {
    let Some((_, sessions)) =
        read("specstory/peterRD5113_demo/2026-03-08_16-12Z-document-parsing-error-missing-column.md")
    else {
        return;
    };
    let s = &sessions[0];
    // PowerShell rejecting `&&`: SpecStory wrote the output HTML-escaped.
    let first = find_call(s, |c| c.command.is_some());
    assert_eq!(
        first.command.as_deref(),
        Some("cd \"C:\\Users\\fortu\\Desktop\\Project\\Demo\\desktop\" && npm run build 2>&1 | head -50")
    );
    assert!(output(first).contains("npm run build 2>& ..."), "{}", output(first));
    assert!(all_calls(s).all(|c| !output(c).contains("&amp;") && !output(c).contains("&gt;")));
    // A commit message over many lines in the summary stays the summary; the command is
    // the fenced block.
    let commit = find_call(s, |c| c.input["summary"].as_str().is_some_and(|t| t.contains("修復 no such column")));
    assert!(commit.input["summary"].as_str().unwrap().ends_with("git push"));
    assert!(commit.command.as_deref().unwrap().ends_with("git push"));
    assert!(commit.input.get("description").is_none(), "{:?}", commit.input.get("description"));
    // `Cancelled` bubbles are interrupted calls.
    let cancelled = all_calls(s).filter(|c| c.result.as_ref().is_some_and(|r| r.interrupted)).count();
    assert_eq!(cancelled, 5);
    // Cursor's failed-tool bubbles: 53 failed edits, 3 reads of a missing file.
    let strreplace = all_calls(s).filter(|c| c.name == "StrReplace").collect::<Vec<_>>();
    assert_eq!(strreplace.len(), 53);
    assert!(strreplace.iter().all(|c| c.result.as_ref().unwrap().is_error));
    assert_eq!(output(strreplace[0]), "Error: StrReplace failed: old_string not found");
    let missing = all_calls(s).filter(|c| c.name == "read_file" && output(c).starts_with("File not found: ")).count();
    assert_eq!(missing, 3);
    // A search's counts are in `Additional data:`.
    let rg = find_call(s, |c| c.name == "ripgrep_raw_search");
    assert!(output(rg).contains("\"totalMatches\": 1"), "{}", output(rg));
}

#[test]
fn claude_code_export_keeps_api_errors_out_of_the_reply() {
    let Some((_, sessions)) = read("specstory/0-auth_zero-auth/2026-08-06_20-58-44Z-go-through-the-given.md") else {
        return;
    };
    let s = &sessions[0];
    assert_eq!(s.meta.agent, "Claude Code (SpecStory)");
    assert_eq!(s.meta.model.as_deref(), Some("claude-opus-5"), "not `<synthetic>`");
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    use Origin::*;
    use Role::*;
    #[rustfmt::skip]
    assert_eq!(kinds, [
        (User, Typed), (System, Injected), (User, Typed), (Assistant, Typed), (System, Injected),
        (User, Typed), (Assistant, Typed), (System, Injected), (User, Typed), (User, Interrupt),
    ]);
    assert!(s.message(2).unwrap().text.starts_with("API Error: API returned an empty or malformed response"));
    // The same prompt sent four times here (the MANIFEST's fifth is the other file's).
    let prompt = &s.message(1).unwrap().text;
    assert_eq!(s.messages.iter().filter(|m| m.is_typed_user() && &m.text == prompt).count(), 4);
    assert_eq!(s.message(10).unwrap().text, "[Request interrupted by user]");
    let bash: Vec<&str> = all_calls(s).filter_map(|c| c.command.as_deref()).collect();
    assert!(bash[0].starts_with("find /c/auth-package -type f") && bash[1] == "ls -la /c/auth-package/");
    assert!(output(find_call(s, |c| c.name == "Read")).starts_with("1\t{\n2\t  \"name\": \"easy-auth-jwt\""));
}

#[test]
fn earliest_cursor_export_reads_title_commands_and_edits() {
    let Some((_, sessions)) = read("specstory/robin-collins_Roo-Cline/resolving-lint-errors-in-code.md") else {
        return;
    };
    let s = &sessions[0];
    assert_eq!(s.meta.title.as_deref(), Some("Resolving Lint Errors in Code"));
    assert_eq!(s.meta.started.map(|t| t.to_rfc3339()).as_deref(), Some("2025-01-20T10:28:43+00:00"));
    assert!(s.messages.iter().all(|m| m.role != Role::System), "`## SpecStory` and the title are no message");
    let names: Vec<&str> = all_calls(s).map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["edit_file", "edit_file", "edit_file"]);
    let edit = &s.message(3).unwrap().calls[0];
    assert!(edit.input["code"].as_str().unwrap().starts_with("import { memo, useState } from \"react\""));
    // An edit whose text SpecStory did not have.
    assert_eq!(s.message(7).unwrap().calls[0].input["code"], "undefined");

    let Some((_, sessions)) =
        read("specstory/robin-collins_Roo-Cline/debugging-configuration-profile-issues-in-roo-cline.md")
    else {
        return;
    };
    let s = &sessions[0];
    let commands: Vec<&str> =
        all_calls(s).filter_map(|c| c.command.as_deref()).map(|c| c.lines().next().unwrap()).collect();
    assert_eq!(commands, ROO_COMMANDS);
    // "can you now run those in order, but only one at a time": the text, then the command.
    let m = s.messages.iter().find(|m| m.text == "I'll start with the first command - type checking:").unwrap();
    assert_eq!(m.calls[0].command.as_deref(), Some("npm run check-types"));
    assert!(m.calls[0].result.is_none(), "the earliest exports write no output");
}

#[test]
fn suggested_commands_stay_in_the_reply() {
    let Some((_, sessions)) = read(
        "specstory/MichaelPaulukonis_polychrome.p5/2025-06-19_18-29Z-testing-strategies-for-a-creative-coding-project.md",
    ) else {
        return;
    };
    let s = &sessions[0];
    let reply =
        s.messages.iter().find(|m| m.text.contains("Finally, you can run your tests with the following command"));
    assert!(reply.unwrap().text.contains("```sh\nnpm test\n```"));
    // The person ran them and pasted the errors back.
    let pasted = s.messages.iter().filter(|m| m.is_typed_user() && m.text.contains("npm error code 1")).count();
    assert_eq!(pasted, 2);
}

#[test]
fn new_specstory_shapes_resume_at_checkpoints() {
    let Some(dir) = real_new_dir() else { return };
    for rel in [
        "specstory/AgentPhoenix7_bing-wallpaper/2025-12-24_09-30-40Z-upgrading-java-runtime-to-version-21-lts.md",
        "specstory/DakineMI_tree-sitter-languages-rs/2025-12-15_23-48Z-initialization-process-discussion.md",
        "specstory/DanCard_cal-date-widget/2025-12-05_00-26-41Z-week-widget-for-current.md",
        "specstory/0-auth_zero-auth/2026-08-06_20-58-44Z-go-through-the-given.md",
        "specstory/robin-collins_Roo-Cline/resolving-lint-errors-in-code.md",
    ] {
        let n = resumes_reproduce_the_full_parse(&dir.join(rel), &SpecStory, 30);
        assert!(n >= 2, "{rel}: {n} checkpoints");
    }
}

// ---------------------------------------------------------------------------------------
// JSON formats: counted from the records.

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn blocks(content: &Value) -> &[Value] {
    content.as_array().map_or(&[], Vec::as_slice)
}

#[test]
fn claude_code_continuation_counts_as_its_api_messages() {
    let Some((path, sessions)) = read("claude_code/bastion-agentique_bastion/claude-session.jsonl") else { return };
    let records = jsonl(&path);
    let of = |t: &'static str| records.iter().filter(move |r| r["type"] == t);
    // MANIFEST: 21 = 15 assistant records + 6 user records. An API message is streamed
    // over several records with one `message.id` (6 ids); 5 user records only carry
    // tool results, joined to their calls; one is text (a pasted earlier conversation,
    // then "Continue please continue this please").
    assert_eq!((of("assistant").count(), of("user").count()), (15, 6));
    let ids: HashSet<&str> = of("assistant").filter_map(|r| r["message"]["id"].as_str()).collect();
    let text_turns = of("user").filter(|r| r["message"]["content"].is_string()).count();
    let s = &sessions[0];
    assert_eq!(s.messages.len(), ids.len() + text_turns);
    assert!(s.message(1).unwrap().is_typed_user() && s.message(1).unwrap().text.ends_with("continue this please"));
    let uses: Vec<&Value> =
        of("assistant").flat_map(|r| blocks(&r["message"]["content"])).filter(|b| b["type"] == "tool_use").collect();
    let failed = of("user")
        .flat_map(|r| blocks(&r["message"]["content"]))
        .filter(|b| b["type"] == "tool_result" && b["is_error"] == true)
        .count();
    let bash = uses.iter().filter(|b| b["name"] == "Bash").count();
    assert_eq!(call_counts(s), (uses.len(), bash, failed, 0));
    // `progress` (23), `file-history-snapshot` and `system` records make no message.
    assert_eq!(of("progress").count(), 23);
    let lost = uncovered_lines(&path, &sessions, |l| {
        ["\"progress\"", "\"file-history-snapshot\"", "\"system\""].iter().any(|t| l.contains(&format!("\"type\":{t}")))
    });
    assert!(lost.is_empty(), "{:?}", lost.iter().map(|l| l.0).collect::<Vec<_>>());
}

#[test]
fn pi_session_counts_as_its_message_records() {
    let Some((path, sessions)) = read("pi_agent/rycerzes_trl/session.jsonl") else { return };
    let records = jsonl(&path);
    let messages: Vec<&Value> = records.iter().filter(|r| r["type"] == "message").map(|r| &r["message"]).collect();
    let role = |r: &'static str| messages.iter().filter(move |m| m["role"] == r);
    let s = &sessions[0];
    // user + assistant records are the messages; tool results join their calls.
    assert_eq!(s.messages.len(), role("user").count() + role("assistant").count());
    let calls: Vec<&Value> =
        role("assistant").flat_map(|m| blocks(&m["content"])).filter(|b| b["type"] == "toolCall").collect();
    let bash = calls.iter().filter(|c| c["name"] == "bash").count();
    let failed = role("toolResult").filter(|m| m["isError"] == true).count();
    assert_eq!(call_counts(s), (calls.len(), bash, failed, 0));
    // Reasoning: every assistant record with a thinking block gives its message thinking.
    let thought = role("assistant")
        .filter(|m| blocks(&m["content"]).iter().any(|b| b["type"] == "thinking" && b["thinking"] != ""))
        .count();
    assert_eq!(s.messages.iter().filter(|m| !m.thinking.is_empty()).count(), thought, "thinking");
    let lost = uncovered_lines(&path, &sessions, |l| {
        ["\"session\"", "\"model_change\"", "\"thinking_level_change\""]
            .iter()
            .any(|t| l.contains(&format!("\"type\":{t}")))
    });
    assert!(lost.is_empty(), "{:?}", lost.iter().map(|l| l.0).collect::<Vec<_>>());
}

#[test]
fn gemini_content_array_counts_as_its_entries() {
    let Some((path, sessions)) = read("gemini_cli/google-gemini_gemini-cli/trajectory.json") else { return };
    let history: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(history.len(), 105, "MANIFEST: all Content entries");
    let parts = |c: &Value| blocks(&c["parts"]).to_vec();
    let calls: Vec<Value> = history.iter().flat_map(parts).filter_map(|p| p.get("functionCall").cloned()).collect();
    let called: HashSet<&str> = calls.iter().filter_map(|c| c["id"].as_str()).collect();
    // An entry of function responses only makes no message when every response finds
    // its call; a response whose call the history lost is a tool message.
    let answers = history.iter().filter(|c| {
        let p = parts(c);
        !p.is_empty() && p.iter().all(|p| p.get("functionResponse").is_some())
    });
    let (joined, orphans): (Vec<&Value>, Vec<&Value>) = answers.partition(|c| {
        parts(c).iter().all(|p| p["functionResponse"]["id"].as_str().is_some_and(|id| called.contains(id)))
    });
    assert_eq!((joined.len(), orphans.len()), (44, 1));
    let s = &sessions[0];
    assert_eq!(s.messages.len(), history.len() - joined.len());
    assert_eq!(s.messages.iter().filter(|m| m.role == Role::Tool).count(), orphans.len());
    // User text entries, except the `<session_context>` preamble and the
    // `<state_snapshot>` compression summary, are the person's corrections.
    let typed = history
        .iter()
        .filter(|c| c["role"] == "user")
        .filter_map(|c| c["parts"][0]["text"].as_str())
        .filter(|t| !t.starts_with("<session_context>") && !t.starts_with("<state_snapshot>"))
        .count();
    assert_eq!(typed_users(&sessions), typed);
    // Failed calls: a response with `error`, or a shell output with a non-zero exit.
    // MANIFEST counts 12: it also counts "Error:" in 4 read_file outputs, which is text
    // of the files read, not a failure.
    let responses: Vec<Value> =
        history.iter().flat_map(parts).filter_map(|p| p.get("functionResponse").cloned()).collect();
    let failed = responses
        .iter()
        .filter(|r| r["id"].as_str().is_some_and(|id| called.contains(id)))
        .filter(|r| {
            let out = r["response"]["output"].as_str().unwrap_or("");
            r["response"].get("error").is_some()
                || out.lines().any(|l| l.trim().strip_prefix("Exit Code: ").is_some_and(|c| c.trim() != "0"))
        })
        .count();
    let shell = calls.iter().filter(|c| c["name"] == "run_shell_command").count();
    assert_eq!(call_counts(s), (calls.len(), shell, failed, 0));
    // Reasoning: each model entry with a `thought: true` part is a message with thinking.
    let thought = history.iter().filter(|c| parts(c).iter().any(|p| p["thought"] == true)).count();
    assert_eq!(thought, 20);
    assert_eq!(s.messages.iter().filter(|m| !m.thinking.is_empty()).count(), thought, "thinking");
}

#[test]
fn openhands_v1_folder_counts_as_its_events() {
    let Some(dir) = real_new(OPENHANDS) else { return };
    let events: Vec<Value> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    assert_eq!(events.len(), 14);
    let kind = |k: &'static str| events.iter().filter(move |e| e["kind"] == k);
    let (_, sessions) = read(OPENHANDS).unwrap();
    let s = &sessions[0];
    // The system prompt, 7 messages, and one message per action (each its own LLM
    // response, carrying the action's thought).
    let responses: HashSet<&str> = kind("ActionEvent").filter_map(|e| e["llm_response_id"].as_str()).collect();
    assert_eq!(kind("ActionEvent").count(), responses.len());
    assert_eq!(s.messages.len(), kind("SystemPromptEvent").count() + kind("MessageEvent").count() + responses.len());
    // 4 MessageEvents come from "user"; 3 are the critic's follow-ups the SDK sends.
    let from_user: Vec<&str> = kind("MessageEvent")
        .filter(|e| e["source"] == "user")
        .filter_map(|e| e["llm_message"]["content"][0]["text"].as_str())
        .collect();
    let person: Vec<&&str> =
        from_user.iter().filter(|t| !t.starts_with("The task appears incomplete (iteration ")).collect();
    assert_eq!((from_user.len(), person.len()), (4, 1));
    let typed: Vec<&Message> = s.messages.iter().filter(|m| m.is_typed_user()).collect();
    assert_eq!((typed.len(), typed[0].text.as_str()), (1, *person[0]));
    let terminal = kind("ActionEvent").filter(|e| e["action"]["kind"] == "TerminalAction").count();
    let failed = kind("ObservationEvent")
        .filter(|e| {
            e["observation"]["is_error"] == true || e["observation"]["exit_code"].as_i64().is_some_and(|c| c != 0)
        })
        .count();
    assert_eq!(call_counts(s), (kind("ActionEvent").count(), terminal, failed, 0));
}

#[test]
fn aider_history_counts_as_its_turn_lines() {
    let Some((path, sessions)) = read("aider/Asphyksia_OpenCoder/.aider.chat.history.md") else { return };
    let text = std::fs::read_to_string(&path).unwrap();
    let starts = text.lines().filter(|l| l.starts_with("# aider chat started at ")).count();
    let turns = text.lines().filter(|l| l.starts_with("#### ")).count();
    let runs = text.lines().filter(|l| l.starts_with("#### /run ") || l.starts_with("> Running ")).count();
    assert_eq!(sessions.len(), starts);
    assert_eq!(typed_users(&sessions), turns);
    let calls: usize = sessions.iter().map(|s| call_counts(s).0).sum();
    assert_eq!(calls, runs);
    let lost = uncovered_lines(&path, &sessions, |l| l.starts_with("# aider chat started at "));
    assert!(lost.is_empty(), "{:?}", &lost[..lost.len().min(5)]);
}
