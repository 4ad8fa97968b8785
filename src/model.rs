//! The one normalized model: every input format produces it, every feature reads it.
//!
//! A source file holds one or more [`Session`]s; a session is an ordered list of
//! [`Message`]s numbered from 1 (`idx`, the "[msg N]" of every citation). A message
//! carries its text, the model's visible thinking, and the tool [`Call`]s it made; each
//! call carries its [`CallResult`], joined from wherever the format keeps it. Tool
//! results therefore do not become messages of their own: the seeds' numbering
//! (`[msg 5084]` holds the command *and* the output it printed) depends on that. The
//! exceptions are a result whose call cannot be found and formats that log tool output
//! without a call; those become `role: tool` messages so that nothing is lost.
//!
//! How each format's records become messages is documented once, in
//! `docs/formats.md`, and pinned by the tests in `tests/formats.rs`.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Who a message is from, as the contract's `role` field spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    #[default]
    User,
    Assistant,
    Tool,
    System,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" => Some(Role::Tool),
            "system" => Some(Role::System),
            _ => None,
        }
    }
}

/// Where a message's content came from, beyond its role. Detectors use this to tell a
/// person's (possibly empty) turn from text the agent's harness injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Written by the person (role user) or the model (role assistant).
    #[default]
    Typed,
    /// Injected by the harness: `isMeta` turns, `<system-reminder>`, slash-command
    /// echoes, environment context, hook output. Always `role: system`.
    Injected,
    /// The "[Request interrupted by user]" marker (role user).
    Interrupt,
    /// The summary handed to the model after a context compaction (role system).
    CompactSummary,
    /// Tool output that has no call to join (role tool).
    ToolOutput,
}

/// Provenance and descriptive facts about one session. Kept apart from the messages so
/// that the indexer can stream messages without holding a whole session in memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// The agent's own session id when it has one, else derived from the file name.
    pub id: String,
    /// Format id, e.g. `claude-code`, `codex` (see [`crate::formats`]).
    pub format: String,
    /// Agent name for people, e.g. "Claude Code".
    pub agent: String,
    pub source: PathBuf,
    /// Project folder the agent worked in (the `cwd` of the session).
    pub cwd: Option<String>,
    /// Short project name (last component of `cwd`, or the agent's own project key).
    pub project: Option<String>,
    pub title: Option<String>,
    pub started: Option<DateTime<Utc>>,
    pub ended: Option<DateTime<Utc>>,
    pub model: Option<String>,
    pub agent_version: Option<String>,
    pub git_branch: Option<String>,
    /// Machine the archive was read on (or that the format records).
    pub host: Option<String>,
    /// User the session belonged to (from the format, else the home folder in `cwd`).
    pub user: Option<String>,
    /// For subagent / sidechain sessions: the session that spawned it.
    pub parent_session: Option<String>,
    /// For subagent sessions: the id of the tool call in the parent that spawned it.
    pub parent_call: Option<String>,
    /// For forks (a branch the user rewound away from, kept because commands ran on it):
    /// the message of the parent session after which the branch left the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_after: Option<u32>,
    /// For a session the agent started from another one, carrying it on (pi's
    /// `parentSession`: a fork, or a new session after a handoff; `branchedFrom` in v1):
    /// that session's id. Not a subagent: the person talks in both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_from: Option<String>,
    /// Message count (set by whoever consumed the messages).
    pub messages: u32,
}

impl SessionMeta {
    /// Widen the start/end range with one more timestamp.
    pub fn saw_time(&mut self, t: DateTime<Utc>) {
        if self.started.is_none_or(|s| t < s) {
            self.started = Some(t);
        }
        if self.ended.is_none_or(|e| t > e) {
            self.ended = Some(t);
        }
    }

    /// Fill in what the format did not say: the host it was read on.
    pub fn complete_provenance(&mut self) {
        if self.host.is_none() {
            self.host = Some(local_host());
        }
    }

    /// Set `cwd` once and derive `project` and `user` from it where the format has no
    /// better value.
    pub fn saw_cwd(&mut self, cwd: &str) {
        if cwd.is_empty() || self.cwd.is_some() {
            return;
        }
        self.cwd = Some(cwd.to_string());
        if self.project.is_none() {
            self.project = project_name(cwd);
        }
        if self.user.is_none() {
            self.user = home_user(cwd);
        }
    }
}

/// This machine's name: the provenance of sessions whose format does not record one.
pub fn local_host() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// Last path component of a working directory, the name people call a project by.
pub fn project_name(cwd: &str) -> Option<String> {
    cwd.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next().filter(|s| !s.is_empty()).map(str::to_string)
}

/// The user name in a home-directory path (`/home/ann/x`, `/Users/ann`, `C:\Users\ann`).
pub fn home_user(path: &str) -> Option<String> {
    let mut parts = path.split(['/', '\\']).filter(|p| !p.is_empty());
    while let Some(p) = parts.next() {
        if p == "home" || p == "Users" {
            return parts.next().map(str::to_string);
        }
        if p == "root" {
            return Some("root".to_string());
        }
    }
    None
}

/// One message of the normalized conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// 1-based position in the session: the `N` of `[msg N]`.
    pub idx: u32,
    pub role: Role,
    pub origin: Origin,
    pub timestamp: Option<DateTime<Utc>>,
    pub text: String,
    /// The model's visible reasoning, when the format records it.
    pub thinking: String,
    pub calls: Vec<Call>,
    /// First and last source line (1-based) for line-oriented formats.
    pub line: Option<u32>,
    pub end_line: Option<u32>,
    /// Byte offset of the first source line, for reading a message back from the file.
    pub offset: Option<u64>,
    /// True for Claude Code sidechain (subagent) records.
    pub sidechain: bool,
}

impl Message {
    /// A person's own turn: what `empty-user-turn` and "what the user asked" look at.
    pub fn is_typed_user(&self) -> bool {
        self.role == Role::User && self.origin == Origin::Typed
    }

    /// Text, commands and outputs of this message, the way search indexes them.
    pub fn char_len(&self) -> usize {
        self.text.chars().count()
    }

    /// Shell command lines this message ran, in order.
    pub fn commands(&self) -> impl Iterator<Item = &str> {
        self.calls.iter().filter_map(|c| c.command.as_deref())
    }
}

/// A tool call and, once joined, its result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The format's call id (`toolu_…`, `call_…`), or a synthetic one.
    pub id: String,
    /// Tool name as the agent called it (`Bash`, `shell`, `exec_command`, `Read`, …).
    pub name: String,
    /// The raw input the model passed, unchanged.
    pub input: serde_json::Value,
    /// The shell command line when the call ran one.
    pub command: Option<String>,
    pub result: Option<CallResult>,
    /// For a call that reads or waits on a process an earlier call started (Claude Code's
    /// `BashOutput`/`TaskOutput` of a background command, Codex's `write_stdin`): the id of
    /// that earlier call. Its output and exit status arrive here, in this call's result;
    /// `command` stays empty so that a poll is not mistaken for running the command again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continues: Option<String>,
}

/// What a tool call returned.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallResult {
    pub output: String,
    pub exit_code: Option<i32>,
    pub is_error: bool,
    /// The user or the harness stopped the call before it finished.
    pub interrupted: bool,
    /// The tool stopped waiting before the process ended: a blocking read of a background
    /// task that returned on its timeout, a shell tool's "command timed out".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// The process was still running when this result was written (started in the
    /// background, or a read that returned before it ended).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub running: bool,
    pub timestamp: Option<DateTime<Utc>>,
    /// Source line the result was recorded on (line-oriented formats).
    pub line: Option<u32>,
}

/// A record that could not be used, reported once as `path:line: reason`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadRecord {
    pub line: Option<u32>,
    pub reason: String,
}

/// A whole session in memory: what `show`, `detect` and `report` work on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub meta: SessionMeta,
    pub messages: Vec<Message>,
}

impl Session {
    /// The message numbered `idx`, if any.
    pub fn message(&self, idx: u32) -> Option<&Message> {
        let pos = self.messages.binary_search_by_key(&idx, |m| m.idx).ok()?;
        self.messages.get(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_user_from_common_layouts() {
        assert_eq!(home_user("/home/ann/src/x").as_deref(), Some("ann"));
        assert_eq!(home_user("/Users/chip/dev/ai-music").as_deref(), Some("chip"));
        assert_eq!(home_user("C:\\Users\\bob\\proj").as_deref(), Some("bob"));
        assert_eq!(home_user("/root/work").as_deref(), Some("root"));
        assert_eq!(home_user("/tmp/tmpw6sk2trg"), None);
    }

    #[test]
    fn project_name_is_last_component() {
        assert_eq!(project_name("/Users/chip/dev/ai-music/").as_deref(), Some("ai-music"));
        assert_eq!(project_name("/"), None);
    }
}
