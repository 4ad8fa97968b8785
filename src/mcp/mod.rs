//! `debrief mcp`: a Model Context Protocol server on stdio, for agents that want to ask
//! the index what happened in past sessions. Read-only: it opens the index the CLI
//! writes (`--index`, `DEBRIEF_INDEX`), reads the transcripts the index points to, and
//! returns what the CLI would print, redacted the same way unless `--no-redact`.
//!
//! The tools ([`tools`]) are thin: search is [`crate::index::search`], sessions are
//! [`crate::index::search::sessions`], messages are `show --json`'s shape, write-ups are
//! [`crate::report::render_with`]; only "seen before" ([`seen`]) is its own analysis.
//!
//! Errors: an argument the tool's schema or the CLI would refuse (an unknown field, a
//! wrong type, an unknown detector, a bad time or range) is a JSON-RPC `invalid params`
//! error, as a usage error is exit 2 for the CLI; a failure while working (no index
//! yet, a transcript gone) is a tool result marked as an error, with the one line the
//! CLI would print. Neither stops the server.

mod dispatch;
mod seen;
pub(crate) mod tools;

use std::io::IsTerminal;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::cli::{Cli, McpArgs};
use crate::commands::{Redaction, index_dir};

/// What the server tells a client about itself at `initialize`.
const INSTRUCTIONS: &str = "debrief indexes the transcripts of past AI coding-agent sessions (Claude Code, Codex CLI, \
Gemini CLI, …) and finds debugging patterns in them. Before debugging an error, call `seen_before` with the error \
line (or the failing command): it lists the past sessions where it occurred, what was done next and whether it \
stopped. `search` finds messages by words and filters; `list_sessions`, `read_messages` and `findings` browse; \
`writeup` tells an episode, an arc or a session as a Markdown story. Every hit cites a session id and [msg N]; \
pass them on to `read_messages` or `writeup`. Long results come in pages: pass `next_cursor` back as `cursor`. \
Transcript text is redacted (secrets, hosts, addresses) unless the server was started with --no-redact.";

pub fn run(cli: &Cli, args: &McpArgs) -> Result<i32> {
    let redaction = Redaction::from_args(&args.redact)?;
    let server = Server { cx: Arc::new(tools::Context::new(index_dir(&cli.index), redaction)) };
    if std::io::stdin().is_terminal() {
        eprintln!("debrief mcp: waiting for an MCP client on stdin (an agent starts it: see `debrief mcp --help`)");
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the server")?;
    runtime.block_on(async {
        let running = server.serve(rmcp::transport::stdio()).await.context("MCP handshake on stdin/stdout")?;
        running.waiting().await.context("serving MCP on stdin/stdout")?;
        Ok(0)
    })
}

/// The MCP server: the tools over one index folder.
#[derive(Clone)]
pub struct Server {
    cx: Arc<tools::Context>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("debrief", env!("CARGO_PKG_VERSION")).with_title("debrief"))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let cx = Arc::clone(&self.cx);
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        // The index and the transcripts are read with blocking I/O, off the protocol's thread.
        let done = tokio::task::spawn_blocking(move || dispatch::call(&cx, &name, arguments)).await;
        match done {
            Ok(result) => result.map(Into::into),
            Err(e) => Err(ErrorData::internal_error(format!("the tool failed: {e}"), None)),
        }
    }
}
