//! Which function answers which MCP tool: the one place a new tool is wired in, above
//! the tools themselves ([`tools`] and [`seen`]), which then need not know each other
//! but for the shared context and paging helpers `seen` takes from `tools`.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::seen;
use super::tools::{self, Context};

/// Run tool `name` on `arguments`.
pub(super) fn call(cx: &Context, name: &str, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
    let Some(def) = tools::definitions().into_iter().find(|t| t.name == name) else {
        let names: Vec<String> = tools::definitions().iter().map(|t| t.name.to_string()).collect();
        return Err(ErrorData::invalid_params(format!("unknown tool `{name}` (tools: {})", names.join(", ")), None));
    };
    if let Some(Value::Object(props)) = def.input_schema.get("properties")
        && let Some(bad) = arguments.keys().find(|k| !props.contains_key(k.as_str()))
    {
        let known: Vec<&str> = props.keys().map(String::as_str).collect();
        return Err(ErrorData::invalid_params(
            format!("{name}: unknown argument `{bad}` (arguments: {})", known.join(", ")),
            None,
        ));
    }
    let done = match name {
        "search" => args(name, arguments).map(|p| tools::search(cx, p)),
        "list_sessions" => args(name, arguments).map(|p| tools::list_sessions(cx, p)),
        "read_messages" => args(name, arguments).map(|p| tools::read_messages(cx, p)),
        "findings" => args(name, arguments).map(|p| tools::findings(cx, p)),
        "writeup" => args(name, arguments).map(|p| tools::writeup(cx, p)),
        "seen_before" => args(name, arguments).map(|p| seen::seen_before(cx, p).map(tools::Output::Json)),
        _ => unreachable!("every defined tool is dispatched"),
    }?;
    match done {
        Ok(tools::Output::Json(v)) => Ok(CallToolResult::structured(v)),
        Ok(tools::Output::Text(t)) => Ok(CallToolResult::success(vec![ContentBlock::text(t)])),
        // A usage error of the CLI (exit 2) is a wrong argument.
        Err(e) if e.downcast_ref::<crate::UsageError>().is_some() => {
            Err(ErrorData::invalid_params(format!("{name}: {e:#}"), None))
        }
        Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(format!("debrief: {e:#}"))])),
    }
}

fn args<T: DeserializeOwned>(name: &str, arguments: JsonObject) -> Result<T, ErrorData> {
    let e = match serde_json::from_value(Value::Object(arguments.clone())) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    // Name the argument at fault: the first one that is wrong on its own (serde's message
    // through a flattened struct does not).
    for (k, v) in arguments {
        let alone = JsonObject::from_iter([(k.clone(), v)]);
        if let Err(e) = serde_json::from_value::<T>(Value::Object(alone))
            && !e.to_string().starts_with("missing field")
        {
            return Err(ErrorData::invalid_params(format!("{name}: argument `{k}`: {e}"), None));
        }
    }
    Err(ErrorData::invalid_params(format!("{name}: bad arguments: {e}"), None))
}
