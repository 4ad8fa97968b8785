//! Codex "code mode" (CLI 0.1xx, 2026): the model's tools are reached through one
//! freeform `exec` tool whose input is JavaScript, e.g.
//!
//! ```text
//! // @exec: {"yield_time_ms": 10000}
//! const r = await tools.exec_command({cmd: "cargo test", workdir: "/repo"});
//! text(r.output);
//! ```
//!
//! and a `wait` function tool that polls a cell that yielded. The script's result is a
//! list of text items: a status header (`Script completed` / `Script failed` /
//! `Script running with cell ID N` / `Script terminated`, then `Wall time …` and
//! `Output:`), then one item per `text(…)` call. `text(r)` of a nested `exec_command`
//! result prints it as JSON (`{"chunk_id","wall_time_seconds","exit_code",
//! "session_id","original_token_count","output"}`).
//!
//! This module reads what a person reading the script would: the nested tool calls with
//! literal arguments (a command built at run time cannot be known), the status header,
//! and the nested results the script printed. It is not a JavaScript interpreter.

use serde_json::{Map, Value};

/// A nested `tools.NAME(ARG)` call of a script, in source order.
#[derive(Debug, Clone, PartialEq)]
pub struct Nested {
    /// The tool as the script names it (`exec_command`, `apply_patch`, `mcp__x__y`).
    pub tool: String,
    /// The argument when it is a literal (object, string, …), as JSON; `None` when the
    /// script computes it.
    pub arg: Option<Value>,
}

/// How a cell stood when its result was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellStatus {
    Completed,
    Failed,
    Terminated,
    /// Yielded while still running; `wait` gets the rest.
    Running,
}

/// A cell's result: the status header and the text items after it.
#[derive(Debug, Clone, PartialEq)]
pub struct CellOutput {
    pub status: Option<CellStatus>,
    /// The `N` of "Script running with cell ID N".
    pub cell_id: Option<String>,
    /// The `text(…)` items, in order (the header removed).
    pub items: Vec<String>,
}

/// What a nested `exec_command` / `write_stdin` returned, when the script printed it
/// whole (`text(r)`, `text(JSON.stringify(r))`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExecResult {
    pub exit_code: Option<i32>,
    /// The process is still running under this id (poll it with `write_stdin`).
    pub session_id: Option<String>,
    pub output: String,
}

/// The nested tool calls of a script.
pub fn nested_calls(src: &str) -> Vec<Nested> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut stack: Vec<Ctx> = vec![Ctx::Code { braces: 0 }];
    while i < b.len() {
        match stack.last().copied().unwrap_or(Ctx::Code { braces: 0 }) {
            Ctx::Template => match b[i] {
                b'\\' => i += 2,
                b'`' => {
                    stack.pop();
                    i += 1;
                }
                b'$' if b.get(i + 1) == Some(&b'{') => {
                    stack.push(Ctx::Code { braces: 0 });
                    i += 2;
                }
                _ => i += 1,
            },
            Ctx::Code { braces } => {
                let c = b[i];
                match c {
                    b'"' | b'\'' => i = skip_quoted(b, i),
                    b'`' => {
                        stack.push(Ctx::Template);
                        i += 1;
                    }
                    b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line_comment(b, i),
                    b'/' if b.get(i + 1) == Some(&b'*') => i = skip_block_comment(b, i),
                    b'{' => {
                        set_braces(&mut stack, braces + 1);
                        i += 1;
                    }
                    b'}' => {
                        if braces == 0 && stack.len() > 1 {
                            // The end of a `${…}` inside a template.
                            stack.pop();
                        } else {
                            set_braces(&mut stack, braces.saturating_sub(1));
                        }
                        i += 1;
                    }
                    _ if is_ident_start(c) => {
                        let start = i;
                        while i < b.len() && is_ident(b[i]) {
                            i += 1;
                        }
                        let preceded_by_dot = start > 0 && prev_non_space(b, start) == Some(b'.');
                        if &src[start..i] == "tools"
                            && !preceded_by_dot
                            && let Some((nested, end)) = tool_call(src, i)
                        {
                            out.push(nested);
                            // The argument may itself run tools (rare); read on inside it.
                            i = end.min(b.len());
                        }
                    }
                    _ => i += 1,
                }
            }
        }
    }
    out
}

#[derive(Clone, Copy)]
enum Ctx {
    Code { braces: u32 },
    Template,
}

fn set_braces(stack: &mut [Ctx], n: u32) {
    if let Some(Ctx::Code { braces }) = stack.last_mut() {
        *braces = n;
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

fn prev_non_space(b: &[u8], mut i: usize) -> Option<u8> {
    while i > 0 {
        i -= 1;
        if !b[i].is_ascii_whitespace() {
            return Some(b[i]);
        }
    }
    None
}

fn skip_quoted(b: &[u8], start: usize) -> usize {
    let q = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == q => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

fn skip_line_comment(b: &[u8], start: usize) -> usize {
    b[start..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| start + p)
}

fn skip_block_comment(b: &[u8], start: usize) -> usize {
    b[start + 2..].windows(2).position(|w| w == b"*/").map_or(b.len(), |p| start + 2 + p + 2)
}

/// Whitespace and comments from `i`.
fn skip_trivia(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'/') {
            i = skip_line_comment(b, i);
        } else if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'*') {
            i = skip_block_comment(b, i);
        } else {
            return i;
        }
    }
}

/// After `tools`: `.name(` or `["name"](`, then the argument. Returns the call and the
/// position after its opening parenthesis.
fn tool_call(src: &str, after_tools: usize) -> Option<(Nested, usize)> {
    let b = src.as_bytes();
    let mut i = skip_trivia(b, after_tools);
    let tool = match b.get(i)? {
        b'.' => {
            i = skip_trivia(b, i + 1);
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            src.get(start..i).filter(|s| !s.is_empty())?.to_string()
        }
        b'[' => {
            let (v, end) = literal(src, skip_trivia(b, i + 1))?;
            i = skip_trivia(b, end);
            if b.get(i) != Some(&b']') {
                return None;
            }
            i += 1;
            v.as_str()?.to_string()
        }
        _ => return None,
    };
    i = skip_trivia(b, i);
    if b.get(i) != Some(&b'(') {
        return None;
    }
    let open = i + 1;
    let arg_at = skip_trivia(b, open);
    let arg = if b.get(arg_at) == Some(&b')') {
        None
    } else {
        literal(src, arg_at).and_then(|(v, end)| {
            let e = skip_trivia(b, end);
            matches!(b.get(e), Some(b')') | Some(b',')).then_some(v)
        })
    };
    Some((Nested { tool, arg }, open))
}

/// A JavaScript literal at `i` as JSON: strings (`'…'`, `"…"`, template literals
/// without substitutions), numbers, `true`/`false`/`null`, arrays and objects of
/// literals. An object property whose value is not a literal is left out; any other
/// expression is `None`.
fn literal(src: &str, i: usize) -> Option<(Value, usize)> {
    let b = src.as_bytes();
    let i = skip_trivia(b, i);
    match *b.get(i)? {
        b'"' | b'\'' | b'`' => {
            let (s, end) = string_literal(src, i)?;
            Some((Value::String(s), end))
        }
        b'{' => object_literal(src, i),
        b'[' => {
            let mut items = Vec::new();
            let mut j = skip_trivia(b, i + 1);
            loop {
                if b.get(j) == Some(&b']') {
                    return Some((Value::Array(items), j + 1));
                }
                let (v, end) = literal(src, j)?;
                items.push(v);
                j = skip_trivia(b, end);
                match b.get(j)? {
                    b',' => j = skip_trivia(b, j + 1),
                    b']' => return Some((Value::Array(items), j + 1)),
                    _ => return None,
                }
            }
        }
        c if c.is_ascii_digit() || c == b'-' => {
            let start = i;
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.' || b[j] == b'_') {
                j += 1;
            }
            let text: String = src[start..j].chars().filter(|&c| c != '_').collect();
            let n = text.parse::<i64>().map(Value::from).or_else(|_| text.parse::<f64>().map(Value::from)).ok()?;
            Some((n, j))
        }
        c if is_ident_start(c) => {
            let start = i;
            let mut j = i;
            while j < b.len() && is_ident(b[j]) {
                j += 1;
            }
            let v = match &src[start..j] {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "null" | "undefined" => Value::Null,
                _ => return None,
            };
            // `true && x` and the like are expressions, not literals.
            let next = skip_trivia(b, j);
            matches!(b.get(next), None | Some(b',' | b'}' | b']' | b')' | b';')).then_some((v, j))
        }
        _ => None,
    }
}

fn object_literal(src: &str, open: usize) -> Option<(Value, usize)> {
    let b = src.as_bytes();
    let mut map = Map::new();
    let mut j = skip_trivia(b, open + 1);
    loop {
        if b.get(j) == Some(&b'}') {
            return Some((Value::Object(map), j + 1));
        }
        // Key: identifier, string, or number.
        let key = match *b.get(j)? {
            b'"' | b'\'' => {
                let (k, end) = string_literal(src, j)?;
                j = end;
                k
            }
            c if is_ident(c) => {
                let start = j;
                while j < b.len() && is_ident(b[j]) {
                    j += 1;
                }
                src[start..j].to_string()
            }
            b'.' if src[j..].starts_with("...") => {
                // A spread: skip it, keep reading the literal properties.
                j = skip_expression(b, j + 3);
                match b.get(j)? {
                    b',' => {
                        j = skip_trivia(b, j + 1);
                        continue;
                    }
                    b'}' => return Some((Value::Object(map), j + 1)),
                    _ => return None,
                }
            }
            _ => return None,
        };
        j = skip_trivia(b, j);
        match *b.get(j)? {
            b':' => {
                let value_at = skip_trivia(b, j + 1);
                match literal(src, value_at) {
                    Some((v, end)) if matches!(b.get(skip_trivia(b, end)), Some(b',' | b'}')) => {
                        map.insert(key, v);
                        j = skip_trivia(b, end);
                    }
                    // A computed value: the property is unknown.
                    _ => j = skip_expression(b, value_at),
                }
            }
            // Shorthand `{cmd}`: the value is a variable.
            b',' | b'}' => {}
            _ => return None,
        }
        match b.get(j)? {
            b',' => j = skip_trivia(b, j + 1),
            b'}' => return Some((Value::Object(map), j + 1)),
            _ => return None,
        }
    }
}

/// Skip an expression up to the `,`, `}`, `]` or `)` that ends it at its own depth.
fn skip_expression(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0u32;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => i = skip_quoted(b, i),
            b'`' => i = skip_template(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line_comment(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_block_comment(b, i),
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' if depth == 0 => return i,
            b',' if depth == 0 => return i,
            b')' | b']' | b'}' => {
                depth -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    i
}

fn skip_template(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => return i + 1,
            b'$' if b.get(i + 1) == Some(&b'{') => {
                i = skip_expression(b, i + 2);
                if b.get(i) == Some(&b'}') {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    b.len()
}

/// A string literal at `i` (its quote), unescaped; a template literal only when it has
/// no `${…}`.
fn string_literal(src: &str, i: usize) -> Option<(String, usize)> {
    let q = *src.as_bytes().get(i)?;
    let mut out = String::new();
    let mut chars = src[i + 1..].char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    '0' => out.push('\0'),
                    '\n' => {}
                    'x' => {
                        let hex: String = (0..2).filter_map(|_| chars.next().map(|(_, h)| h)).collect();
                        out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                    }
                    'u' => {
                        let rest = &src[i + 1 + k + 2..];
                        let (code, used) = if let Some(r) = rest.strip_prefix('{') {
                            let end = r.find('}')?;
                            (u32::from_str_radix(&r[..end], 16).ok()?, end + 2)
                        } else {
                            (u32::from_str_radix(rest.get(..4)?, 16).ok()?, 4)
                        };
                        for _ in 0..used {
                            chars.next();
                        }
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    }
                    other => out.push(other),
                }
            }
            '$' if q == b'`' && src[i + 1 + k..].starts_with("${") => return None,
            c if c as u32 == q as u32 => return Some((out, i + 1 + k + 1)),
            '\n' if q != b'`' => return None,
            c => out.push(c),
        }
    }
    None
}

/// A cell's result in either shape: a list of content items, or one string.
pub fn cell_output(value: &Value) -> Option<CellOutput> {
    let texts: Vec<String> = match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|i| match i.get("type").and_then(Value::as_str) {
                Some("input_image") => Some("[image]".to_string()),
                _ => i.get("text").and_then(Value::as_str).map(str::to_string),
            })
            .collect(),
        _ => return None,
    };
    let first = texts.first()?;
    let mut lines = first.split_inclusive('\n');
    let first_line = lines.next()?;
    let status_line = first_line.trim_end();
    let (status, cell_id) = match status_line {
        "Script completed" => (Some(CellStatus::Completed), None),
        "Script failed" => (Some(CellStatus::Failed), None),
        "Script terminated" => (Some(CellStatus::Terminated), None),
        s => match s.strip_prefix("Script running with cell ID ") {
            Some(id) => (Some(CellStatus::Running), Some(id.trim().to_string())),
            None if s.starts_with("Wall time ") => (None, None),
            None => return None,
        },
    };
    // The header's own lines: the status, "Wall time …", "Output:".
    let mut consumed = first_line.len();
    for l in lines {
        let t = l.trim_end();
        if t.starts_with("Wall time ") || t == "Output:" {
            consumed += l.len();
            if t == "Output:" {
                break;
            }
        } else {
            break;
        }
    }
    let mut items = Vec::new();
    let rest = first.get(consumed.min(first.len())..).unwrap_or("");
    if !rest.is_empty() {
        items.push(rest.to_string());
    }
    items.extend(texts.into_iter().skip(1));
    Some(CellOutput { status, cell_id, items })
}

/// A nested exec result printed whole: an object with `exit_code` or `session_id`
/// and the usual companions (`chunk_id`, `wall_time_seconds`, `output`).
pub fn exec_result(item: &str) -> Option<ExecResult> {
    let t = item.trim();
    if !t.starts_with('{') {
        return None;
    }
    let v: Value = serde_json::from_str(t).ok()?;
    let o = v.as_object()?;
    let looks = o.contains_key("wall_time_seconds")
        || o.contains_key("chunk_id")
        || (o.contains_key("exit_code") && o.contains_key("output"));
    if !looks {
        return None;
    }
    Some(ExecResult {
        exit_code: o.get("exit_code").and_then(Value::as_i64).map(|c| c as i32),
        session_id: o.get("session_id").and_then(|s| match s {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }),
        output: o.get("output").and_then(Value::as_str).unwrap_or("").to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cmds(src: &str) -> Vec<(String, Option<Value>)> {
        nested_calls(src).into_iter().map(|n| (n.tool, n.arg)).collect()
    }

    #[test]
    fn literal_arguments_in_every_quoting() {
        let src = r#"// @exec: {"yield_time_ms": 10000}
const a = await tools.exec_command({cmd: "rg -n \"retry\" src", workdir: '/repo', yield_time_ms: 1_000});
text(a.output);
const b = await tools.exec_command({"cmd": `sed -n '1,20p' a.rs`, max_output_tokens: 4000});
await tools["apply_patch"]("*** Begin Patch\n*** End Patch\n");"#;
        assert_eq!(
            cmds(src),
            vec![
                (
                    "exec_command".into(),
                    Some(json!({"cmd": "rg -n \"retry\" src", "workdir": "/repo", "yield_time_ms": 1000}))
                ),
                ("exec_command".into(), Some(json!({"cmd": "sed -n '1,20p' a.rs", "max_output_tokens": 4000}))),
                ("apply_patch".into(), Some(json!("*** Begin Patch\n*** End Patch\n"))),
            ]
        );
    }

    #[test]
    fn computed_arguments_strings_and_comments_are_not_calls() {
        let src = r#"const cmds = ["ls", "pwd"];
// tools.exec_command({cmd: "in a comment"})
const s = "tools.exec_command({cmd: 'in a string'})";
for (const c of cmds) { const r = await tools.exec_command({cmd: c, workdir: "/w"}); text(r); }
const t = await tools.exec_command({cmd: `git log -${n}`});
text(`${(await tools.exec_command({cmd: "date"})).output}`);
notools.exec_command({cmd: "x"}); x.tools.exec_command({cmd: "y"});"#;
        assert_eq!(
            cmds(src),
            vec![
                ("exec_command".into(), Some(json!({"workdir": "/w"}))),
                ("exec_command".into(), Some(json!({}))),
                ("exec_command".into(), Some(json!({"cmd": "date"}))),
            ]
        );
    }

    #[test]
    fn cell_headers() {
        let out = cell_output(&json!([
            {"type": "input_text", "text": "Script completed\nWall time 1.2 seconds\nOutput:\n"},
            {"type": "input_text", "text": "{\"chunk_id\":\"a1\",\"wall_time_seconds\":1.1,\"exit_code\":2,\"output\":\"boom\\n\"}"}
        ]))
        .unwrap();
        assert_eq!(out.status, Some(CellStatus::Completed));
        assert_eq!(out.items.len(), 1);
        let r = exec_result(&out.items[0]).unwrap();
        assert_eq!((r.exit_code, r.output.as_str()), (Some(2), "boom\n"));
        let out =
            cell_output(&json!("Script running with cell ID 7\nWall time 10.0 seconds\nOutput:\npartial")).unwrap();
        assert_eq!((out.status, out.cell_id.as_deref()), (Some(CellStatus::Running), Some("7")));
        assert_eq!(out.items, vec!["partial".to_string()]);
        assert!(cell_output(&json!("plain text")).is_none());
        let running = exec_result(r#"{"chunk_id":"c","wall_time_seconds":1.0,"session_id":4242,"output":""}"#).unwrap();
        assert_eq!((running.exit_code, running.session_id.as_deref()), (None, Some("4242")));
    }
}
