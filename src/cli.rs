//! Command-line definitions. Help texts are the first documentation people read, so
//! they say what each command is for and show an example.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "debrief",
    version,
    about = "Index, search, and write up AI coding-agent session transcripts",
    long_about = "debrief reads the session archives of AI coding agents (Claude Code, Codex CLI, …),\n\
                  indexes them for instant search, detects debugging patterns in them, and writes\n\
                  the story up as a report.\n\n\
                  Start with `debrief index` (reads ~/.claude/projects and ~/.codex/sessions), then\n\
                  `debrief search \"NCCL error\"`."
)]
pub struct Cli {
    /// Index folder [default: the platform data dir, e.g. ~/.local/share/debrief]
    #[arg(long, global = true, env = "DEBRIEF_INDEX", value_name = "DIR")]
    pub index: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Index transcripts (incrementally): the agents' folders, or the paths given
    #[command(
        after_help = "Examples:\n  debrief index\n  debrief index ~/.claude/projects/-home-ann-src-app\n  debrief index --rebuild"
    )]
    Index(IndexArgs),
    /// Search indexed messages
    #[command(after_help = "Query: words are ANDed, \"quoted phrases\" match in order, -word excludes.\n\
                            Identifiers and paths match as typed: NCCL_MAX_NCHANNELS, foo::bar, logs/x.log.\n\
                            Snippets are redacted (secrets, hosts, addresses, e-mails, home-folder user names)\n\
                            unless --no-redact; a secret can still be searched for, it is just not shown.\n\n\
                            Examples:\n  debrief search \"NCCL error\" --agent claude\n  \
                            debrief search ServerArgs --program grep --since 7d\n  \
                            debrief search --detector grep-tail-pivot")]
    Search(SearchArgs),
    /// Print the normalized messages of a transcript (redacted)
    #[command(after_help = "Secrets, hosts, IP and e-mail addresses and home-folder user names are redacted,\n\
                            in the terminal view and in --json, unless --no-redact is given.\n\n\
                            Examples:\n  debrief show session.jsonl --range 5080..5087\n  \
                            debrief show session.jsonl --json --no-redact")]
    Show(ShowArgs),
    /// List indexed sessions (titles and folders redacted unless --no-redact)
    Sessions(SessionsArgs),
    /// Detect debugging patterns in transcripts
    #[command(after_help = "Summaries and commands quote the transcript; they are redacted unless --no-redact.\n\n\
                      Examples:\n  debrief detect session.jsonl\n  debrief detect ~/.claude/projects --select grep-tail-pivot,noisy-search --json\n  \
                      debrief detect --stats ~/.claude/projects --verbose")]
    Detect(DetectArgs),
    /// List the detectors, or print one's documentation
    #[command(
        after_help = "Examples:\n  debrief detectors\n  debrief detectors confounded-change\n  debrief detectors --json"
    )]
    Detectors(DetectorsArgs),
    /// Show where each agent keeps its sessions, what is indexed, and format drift
    #[command(after_help = "For every agent's default folder: whether it exists, how many candidate files and\n\
                            bytes it holds, and how many of them the index has read. Then the record types\n\
                            the parsers did not know (format drift), per format and agent version, from\n\
                            the indexed files: a new agent version that adds a record type shows here\n\
                            instead of its data going missing silently.\n\n\
                            Examples:\n  debrief sources\n  debrief sources --json")]
    Sources(SourcesArgs),
    /// Write up a session, an episode or an arc as a narrative report (redacted)
    #[command(after_help = "With no selector: the session report. --episode N: the episode around the finding\n\
                            whose key message is [msg N] (or message N on its own). --arc A..B: the findings\n\
                            over messages A to B, one section each, with references.\n\n\
                            Hosts, IP addresses, e-mail addresses, home-folder user names and secrets (API\n\
                            keys, tokens, private keys, passwords) are redacted unless --no-redact is given.\n\n\
                            Templates: --templates DIR is searched before the built-in templates; a file there\n\
                            replaces the built-in one of the same name (episode.md.j2, sections/episode/\n\
                            context.html.j2, phrases.toml, glossary.toml, …), and may extend\n\
                            \"default/<name>\" to change one block only.\n\n\
                            Examples:\n  debrief report session.jsonl\n  \
                            debrief report session.jsonl --episode 5084 --format html -o pivot.html\n  \
                            debrief report session.jsonl --arc 5083..5086 --templates ./my-templates")]
    Report(ReportArgs),
    /// Serve the index to AI agents over the Model Context Protocol (stdio), read-only
    #[command(after_help = "A Model Context Protocol server on standard input and output, for an agent to\n\
                            search past sessions, list and read them, list findings, write episodes up and\n\
                            ask whether an error or a command was seen before. It reads the index (--index,\n\
                            DEBRIEF_INDEX) and never writes; run `debrief index` to bring it up to date.\n\
                            Everything it returns is redacted unless --no-redact.\n\n\
                            Register it with an agent (see the README):\n  \
                            claude mcp add debrief -- debrief mcp\n  \
                            codex: [mcp_servers.debrief] command = \"debrief\", args = [\"mcp\"] in ~/.codex/config.toml\n  \
                            gemini: \"mcpServers\": {\"debrief\": {\"command\": \"debrief\", \"args\": [\"mcp\"]}} in ~/.gemini/settings.json")]
    Mcp(McpArgs),
    /// Browse the index in a web browser: a local, read-only web UI (redacted)
    #[command(after_help = "A small web server on 127.0.0.1 for reading the index in a browser: sessions with\n\
                            their findings, a session's messages and calls, search with the CLI's filters,\n\
                            findings per detector, the write-ups, and the agents' folders. It prints a URL\n\
                            with a random token (open that one; other requests get 401), answers only to\n\
                            loopback host names and IP addresses, never writes, loads nothing from outside,\n\
                            and redacts what it shows unless --no-redact.\n\n\
                            Examples:\n  debrief serve\n  debrief serve --port 8700\n  debrief serve --watch                      # index sessions as the agents write them\n  \
                            debrief serve --bind 0.0.0.0 --port 8700   # reachable from other machines")]
    Serve(ServeArgs),
    /// Push this machine's indexed sessions, redacted, to the team's PostgreSQL database
    #[command(after_help = "Sends what `debrief index` holds — sessions, messages, tool calls with their outputs\n\
                            trimmed to the first 8 KB and last 4 KB, findings with their details, and each\n\
                            session's agent, project and machine — redacted here first, with the same rules as\n\
                            every output. Only sessions that are new or changed since the last push are sent;\n\
                            each in one transaction. The schema is created or upgraded as needed.\n\n\
                            The URL: --to, else $DEBRIEF_TEAM_URL. TLS is used when the server offers it\n\
                            (?sslmode=require insists, ?sslmode=disable never; ?sslrootcert=FILE or\n\
                            $DEBRIEF_TEAM_CA for a private certificate authority). Passwords are never printed.\n\n\
                            Examples:\n  debrief push --to postgres://ann@db.example.com/team?sslmode=require\n  \
                            DEBRIEF_TEAM_URL=postgres://ann@db/team debrief push --machine-name ann-laptop\n  \
                            debrief search --from postgres://ann@db/team NCCL_MAX_NCHANNELS")]
    Push(PushArgs),
    /// Print shell completions for bash, zsh, fish, elvish or powershell
    #[command(after_help = "Examples:\n  \
                            debrief completions bash > ~/.local/share/bash-completion/completions/debrief\n  \
                            debrief completions zsh > ~/.zfunc/_debrief\n  \
                            debrief completions fish > ~/.config/fish/completions/debrief.fish")]
    Completions(CompletionsArgs),
    /// Print the man page (roff)
    #[command(after_help = "Example:\n  debrief man > ~/.local/share/man/man1/debrief.1 && man debrief")]
    Man,
}

#[derive(Args, Debug)]
pub struct PushArgs {
    /// The team database: postgres://user[:password]@host[:port]/database[?sslmode=…]
    #[arg(long, value_name = "URL", env = "DEBRIEF_TEAM_URL", hide_env_values = true)]
    pub to: Option<String>,
    /// The name this machine goes by in the team store [default: its host name]
    #[arg(long, value_name = "NAME")]
    pub machine_name: Option<String>,
    #[command(flatten)]
    pub redact: RedactArgs,
    /// With --no-redact: yes, send the transcripts' secrets, hosts and user names as they are
    #[arg(long, requires = "no_redact")]
    pub i_understand_unredacted: bool,
    /// No summary
    #[arg(long, short)]
    pub quiet: bool,
}

/// Reading the team store instead of the local index.
#[derive(Args, Debug, Default)]
pub struct TeamArgs {
    /// Read the team database (postgres://…) that `debrief push` sends to, instead of the
    /// local index
    #[arg(long, value_name = "URL")]
    pub from: Option<String>,
    /// With --from: only sessions pushed by this machine (its --machine-name)
    #[arg(long, value_name = "NAME", requires = "from")]
    pub machine: Option<String>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct IndexArgs {
    /// Transcript files or folders [default: the agents' own folders]
    pub paths: Vec<PathBuf>,
    /// Read files as this transcript format instead of detecting it (`--format` is
    /// the older spelling, kept for scripts)
    #[arg(long, alias = "format", value_name = "FORMAT")]
    pub input_format: Option<String>,
    /// Throw the index away and build it again
    #[arg(long)]
    pub rebuild: bool,
    /// If another index run holds the lock, wait for it instead of exiting
    #[arg(long)]
    pub wait: bool,
    /// Build the index without embeddings (no search by meaning: --semantic and
    /// --hybrid then refuse); an existing index keeps its choice until --rebuild
    #[arg(long)]
    pub no_embeddings: bool,
    /// No progress bar and no summary
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug, Default)]
pub struct FilterArgs {
    /// Only this agent (format id or prefix: claude, codex)
    #[arg(long)]
    pub agent: Option<String>,
    /// Only this project (last folder of the session's working directory)
    #[arg(long)]
    pub project: Option<String>,
    /// Only this session (id or id prefix)
    #[arg(long)]
    pub session: Option<String>,
    /// Only messages from user, assistant, tool or system
    #[arg(long)]
    pub role: Option<String>,
    /// Only messages that called this tool (Bash, Read, exec_command, …)
    #[arg(long)]
    pub tool: Option<String>,
    /// Only messages whose shell commands ran this program (grep, tail, python)
    #[arg(long)]
    pub program: Option<String>,
    /// Only messages whose calls named this file (path or file name)
    #[arg(long)]
    pub file: Option<String>,
    /// Only messages that are the key of a finding of this detector
    #[arg(long)]
    pub detector: Option<String>,
    /// From this time on: 2026-02-27, 2026-02-27T11:00, or a span ago (3d, 12h, 2w)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Before this time (same forms as --since)
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Only messages with a failed tool call
    #[arg(long)]
    pub errors: bool,
}

/// Redaction of what a command prints from transcripts (on unless `--no-redact`).
#[derive(Args, Debug, Default, Clone)]
pub struct RedactArgs {
    /// Print hosts, IP and e-mail addresses, home-folder user names and secrets as the
    /// transcript has them (they are redacted by default)
    #[arg(long, conflicts_with = "redact_patterns")]
    pub no_redact: bool,
    /// Also redact these regular expressions (one per line, `#` comments)
    #[arg(long, value_name = "FILE")]
    pub redact_patterns: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// What to look for (may be empty when filters are given)
    #[arg(default_value = "")]
    pub query: String,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Maximum number of hits (at least 1)
    #[arg(long, short = 'n', default_value_t = 20, value_parser = at_least_one)]
    pub limit: usize,
    /// Only where the words are in this part of a message: `text` (what the user or the
    /// assistant wrote, and reasoning), `command` (tool calls' commands and inputs) or
    /// `output` (what tools printed)
    #[arg(long = "in", value_enum, value_name = "PART")]
    pub part: Option<crate::index::search::Part>,
    /// One JSON object per hit per line
    #[arg(long)]
    pub json: bool,
    /// Rank by meaning only (the model inside debrief), not by words
    #[arg(long, conflicts_with = "hybrid")]
    pub semantic: bool,
    /// Rank by words and by meaning, fused (reciprocal rank fusion)
    #[arg(long)]
    pub hybrid: bool,
    #[command(flatten)]
    pub redact: RedactArgs,
    #[command(flatten)]
    pub team: TeamArgs,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Transcript files or folders, or indexed session ids (or unique id prefixes)
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Only messages A..B (inclusive; either end may be left out: 5080.., ..20)
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
    /// Read files as this transcript format instead of detecting it (`--format` is
    /// the older spelling, kept for scripts)
    #[arg(long, alias = "format", value_name = "FORMAT")]
    pub input_format: Option<String>,
    /// One JSON object per message per line (outputs are never trimmed)
    #[arg(long)]
    pub json: bool,
    /// Do not trim long texts and outputs in the terminal view
    #[arg(long)]
    pub full: bool,
    /// Cap each tool output in --json at this many characters
    #[arg(long, value_name = "CHARS")]
    pub max_output: Option<usize>,
    #[command(flatten)]
    pub redact: RedactArgs,
    #[command(flatten)]
    pub team: TeamArgs,
}

#[derive(Args, Debug)]
pub struct SessionsArgs {
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Maximum number of sessions (at least 1)
    #[arg(long, short = 'n', default_value_t = 50, value_parser = at_least_one)]
    pub limit: usize,
    /// One JSON object per session per line
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub redact: RedactArgs,
    #[command(flatten)]
    pub team: TeamArgs,
}

#[derive(Args, Debug)]
pub struct DetectArgs {
    /// Transcript files or folders, or indexed session ids (or unique id prefixes); with
    /// --from, session ids of the team store [default: every indexed transcript; with
    /// --from, every session of the team store]
    pub paths: Vec<PathBuf>,
    /// Only these detectors (comma-separated ids)
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Not these detectors (comma-separated ids)
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Read files as this transcript format instead of detecting it (`--format` is
    /// the older spelling, kept for scripts)
    #[arg(long, alias = "format", value_name = "FORMAT")]
    pub input_format: Option<String>,
    /// One JSON object per finding per line (with --stats: per detector)
    #[arg(long)]
    pub json: bool,
    /// Count findings per detector instead of listing them: how often each detector
    /// fires over a corpus, for tuning and for judging precision
    #[arg(long)]
    pub stats: bool,
    /// With --stats: also the counts per file
    #[arg(long, short, requires = "stats")]
    pub verbose: bool,
    #[command(flatten)]
    pub redact: RedactArgs,
    #[command(flatten)]
    pub team: TeamArgs,
}

#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub redact: RedactArgs,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Port to listen on [default: a free one chosen by the system]
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    /// Address to listen on; anything but a loopback address makes the UI reachable
    /// from other machines (with the token)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Index new and appended sessions as they are written: under the agents' folders
    /// (as `debrief index` with no path would), or under the files and folders named
    #[arg(long, value_name = "PATH", num_args = 0..)]
    pub watch: Option<Vec<std::path::PathBuf>>,
    #[command(flatten)]
    pub redact: RedactArgs,
}

#[derive(Args, Debug)]
pub struct DetectorsArgs {
    /// Print this detector's documentation
    pub id: Option<String>,
    /// One JSON object per detector: {"id","summary","doc"}
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SourcesArgs {
    /// One JSON document with the folders, the formats without a folder, and the drift
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Transcript file (or folder holding one session; see --session), or an indexed
    /// session id (or unique id prefix)
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Write up the episode around the finding keyed on message N
    #[arg(long, value_name = "N", conflicts_with = "arc")]
    pub episode: Option<u32>,
    /// Write up the arc over messages A..B (inclusive)
    #[arg(long, value_name = "A..B")]
    pub arc: Option<String>,
    /// Output format: md, html (one self-contained file) or json (the report's facts)
    #[arg(long, value_name = "FORMAT", default_value = "md")]
    pub format: String,
    /// Write to FILE instead of standard output
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub redact: RedactArgs,
    #[command(flatten)]
    pub team: TeamArgs,
    /// Folder of templates searched before the built-in ones
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// The session to report on (id or id prefix) when the paths hold several
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Read files as this transcript format instead of detecting it
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<String>,
}

/// A count that must be at least 1 (`--limit 0` would ask for nothing).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a number")),
    }
}
