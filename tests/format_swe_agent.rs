//! SWE-agent `.traj`: counts on every real trajectory (0.x and 1.x shapes), actions
//! joined to their observations, failure notices, and that every history entry ends up
//! in a message or a call.

mod common;

use common::{call_counts, corpus, parse, real, real_files, rel};
use debrief::formats;
use debrief::model::{Origin, Role, Session};
use serde_json::Value;

/// (file, messages, calls, shell commands, failed calls, calls without result)
const REAL: &[(&str, usize, usize, usize, usize, usize)] = &[
    (
        "tests_test_data_trajectories_gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1_6e44b9__sweagenttestrepo-1c2844.traj",
        7,
        4,
        4,
        0,
        0,
    ),
    (
        "tests_test_data_trajectories_gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1_swe-agent__test-repo-i1.traj",
        9,
        5,
        5,
        0,
        0,
    ),
    (
        "tests_test_data_trajectories_gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1_pydicom__pydicom-1458.traj",
        16,
        12,
        12,
        3,
        0,
    ),
    ("trajectories_demonstrations_ctf_crypto_BabyEncryption.traj", 18, 15, 15, 2, 0),
    ("trajectories_demonstrations_ctf_crypto_BabyTimeCapsule.traj", 12, 9, 9, 0, 0),
    ("trajectories_demonstrations_ctf_crypto_eps.traj", 17, 14, 14, 0, 0),
    ("trajectories_demonstrations_ctf_crypto_katy.traj", 21, 18, 18, 1, 0),
    ("trajectories_demonstrations_ctf_forensics_flash.traj", 7, 4, 4, 0, 0),
    ("trajectories_demonstrations_ctf_misc_networking_1.traj", 7, 4, 4, 0, 0),
    ("trajectories_demonstrations_ctf_pwn_warmup.traj", 10, 7, 7, 0, 0),
    ("trajectories_demonstrations_ctf_rev_rock.traj", 15, 12, 12, 1, 0),
    ("trajectories_demonstrations_ctf_web_i_got_id_demo.traj", 24, 21, 21, 0, 0),
    ("trajectories_demonstrations_function_calling_simple.traj", 7, 5, 5, 0, 0),
    (
        "trajectories_demonstrations_human_thought__swe-bench-HumanEvalFix-python__lcb__t-0.00__p-0.95__c-4.00__install-0_humanevalfix-python-0.traj",
        8,
        5,
        5,
        0,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1___install_from_source_marshmallow-code__marshmallow-1867.traj",
        17,
        14,
        14,
        1,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__default_sys-env_cursors_window100__t-0.20__p-0.95__c-2.00__install-1_marshmallow-code__marshmallow-1867.traj",
        15,
        12,
        12,
        1,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__default_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1_marshmallow-code__marshmallow-1867.traj",
        14,
        11,
        11,
        1,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__function_calling__install-1_marshmallow-code__marshmallow-1867.traj",
        14,
        11,
        11,
        1,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1_marshmallow-code__marshmallow-1867.traj",
        14,
        11,
        11,
        1,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source_marshmallow-code__marshmallow-1867.traj",
        16,
        13,
        13,
        0,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__xml_sys-env_cursors_window100__t-0.20__p-0.95__c-2.00__install-1_marshmallow-code__marshmallow-1867.traj",
        15,
        12,
        12,
        1,
        0,
    ),
    (
        "trajectories_demonstrations_replay__marshmallow-code__marshmallow-1867__xml_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1_marshmallow-code__marshmallow-1867.traj",
        14,
        11,
        11,
        1,
        0,
    ),
];

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// Every history entry is a message, or the observation of a call; every action is
/// a call's command.
fn history_is_all_there(name: &str, doc: &Value, s: &Session) {
    let texts: Vec<&str> = s.messages.iter().map(|m| m.text.as_str()).collect();
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    for (i, h) in doc["history"].as_array().into_iter().flatten().enumerate() {
        let content = text_of(h.get("content"));
        let thought = h.get("thought").and_then(Value::as_str).filter(|t| !t.trim().is_empty());
        let found = match h["role"].as_str() {
            Some("assistant") => {
                let action = h.get("action").and_then(Value::as_str).unwrap_or("").trim_end();
                texts.contains(&thought.unwrap_or(&content))
                    && (action.is_empty() || calls.iter().any(|c| c.command.as_deref() == Some(action)))
            }
            _ => {
                texts.contains(&content.as_str())
                    || calls.iter().any(|c| c.result.as_ref().is_some_and(|r| r.output == content))
            }
        };
        assert!(found, "{name}: history entry {i} ({}) is nowhere", h["role"]);
    }
}

#[test]
fn every_real_trajectory_parses_with_known_counts() {
    let Some(files) = real_files("swe_agent") else { return };
    assert_eq!(files.len(), REAL.len(), "a new real .traj needs a row here: {files:?}");
    for path in files {
        let name = rel(&path);
        let file = name.rsplit('/').next().unwrap();
        let row = REAL.iter().find(|r| r.0 == file).unwrap_or_else(|| panic!("{name} has no row"));
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(parsed.format.id(), "swe-agent", "{name}");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{name}");
        let s = &parsed.sessions[0];
        assert_eq!(s.messages.len(), row.1, "{name}: messages");
        assert_eq!(call_counts(s), (row.2, row.3, row.4, row.5), "{name}: calls/commands/failed/open");
        // A whole JSON document: no line numbers (the contract's null).
        assert!(s.messages.iter().all(|m| m.line.is_none() && m.end_line.is_none()), "{name}");
        // One typed user message: the task.
        assert_eq!(s.messages.iter().filter(|m| m.is_typed_user()).count(), 1, "{name}");
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        // The exit status ends the session when the file records one.
        let last = s.messages.last().unwrap();
        let ended = (last.role, last.text.lines().next()) == (Role::System, Some("exit status: submitted"));
        assert_eq!(ended, doc["info"]["exit_status"] == "submitted", "{name}");
        history_is_all_there(&name, &doc, s);
    }
}

#[test]
fn old_shape_observations_follow_their_action() {
    let Some(path) = real(&format!("swe_agent/SWE-agent_SWE-agent/{}", REAL[2].0)) else { return };
    let s = &parse(&path)[0];
    assert_eq!(s.meta.id, REAL[2].0.trim_end_matches(".traj"));
    assert_eq!(s.meta.cwd.as_deref(), Some("/pydicom__pydicom"));
    // The demonstration pasted into the prompt is not the person's turn.
    assert_eq!((s.messages[1].role, s.messages[1].origin), (Role::System, Origin::Injected));
    assert!(s.messages[1].text.starts_with("Here is a demonstration of how to correctly accomplish this task."));
    let first = &s.messages[3];
    assert_eq!(first.calls[0].name, "create");
    assert_eq!(first.calls[0].command.as_deref(), Some("create reproduce_bug.py"));
    assert!(
        first.calls[0]
            .result
            .as_ref()
            .unwrap()
            .output
            .starts_with("[File: /pydicom__pydicom/reproduce_bug.py (1 lines total)]")
    );
    // pydicom-1458: three edits rejected in a row, each a failed call.
    let rejected: Vec<u32> = s
        .messages
        .iter()
        .filter(|m| m.calls.iter().any(|c| c.result.as_ref().is_some_and(|r| r.is_error)))
        .map(|m| m.idx)
        .collect();
    assert_eq!(rejected.len(), 3);
    assert!(rejected.windows(2).all(|w| w[1] == w[0] + 1), "in a row: {rejected:?}");
    for idx in rejected {
        let c = &s.message(idx).unwrap().calls[0];
        assert_eq!(c.name, "edit");
        assert!(
            c.result.as_ref().unwrap().output.starts_with("Your proposed edit has introduced new syntax error(s).")
        );
    }
}

#[test]
fn function_calling_shape_joins_tool_messages_by_id() {
    let name = REAL[18].0;
    let Some(path) = real(&format!("swe_agent/SWE-agent_SWE-agent/{name}")) else { return };
    let s = &parse(&path)[0];
    assert_eq!(s.meta.model.as_deref(), Some("gpt-4o"), "from replay_config");
    let m = &s.messages[2];
    let c = &m.calls[0];
    assert_eq!((c.id.as_str(), c.name.as_str()), ("call_cyI71DYnRdoLHWwtZgIaW2wr", "create"));
    assert_eq!(c.input["filename"], "reproduce.py");
    assert_eq!(c.command.as_deref(), Some("create reproduce.py"), "the action SWE-agent ran");
    assert!(c.result.as_ref().unwrap().output.starts_with("[File: reproduce.py (1 lines total)]"));
}

#[test]
fn the_last_submit_gets_its_observation_from_the_trajectory() {
    let Some(path) = real("swe_agent/SWE-agent_SWE-agent/trajectories_demonstrations_ctf_crypto_BabyEncryption.traj")
    else {
        return;
    };
    let s = &parse(&path)[0];
    let submit = s.messages.iter().flat_map(|m| &m.calls).last().unwrap();
    assert_eq!(submit.command.as_deref(), Some("submit 'HTB{l00k_47_y0u_r3v3rs1ng_3qu4710n5_c0ngr475}'"));
    assert!(submit.result.is_some());
}

#[test]
fn sample_function_calling_trajectory() {
    let s = &parse(&corpus("swe-agent/depot__depot-17.traj"))[0];
    assert_eq!((s.meta.id.as_str(), s.meta.model.as_deref()), ("depot__depot-17", Some("claude-sonnet-4-20250514")));
    assert_eq!(s.meta.cwd.as_deref(), Some("/testbed"));
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(roles, [System, User, Assistant, Assistant, Assistant, Assistant, Tool, Assistant, System]);
    // `tool_call_ids` as a list and as the string of a Python list.
    let edit = &s.messages[5].calls[0];
    assert_eq!(
        edit.result.as_ref().unwrap().output,
        "OBSERVATION:\nThe file /testbed/inventory/stock.py has been edited."
    );
    let repro = &s.messages[4].calls[0];
    assert_eq!(repro.result.as_ref().unwrap().output, "OBSERVATION:\n13.0");
    // A result for a call the history never made stays, as a tool message.
    assert_eq!(
        (s.messages[6].origin, s.messages[6].text.as_str()),
        (Origin::ToolOutput, "OBSERVATION:\nstale result of an earlier, lost call")
    );
    // `submit` has no tool message; its trajectory step has the observation.
    assert!(s.messages[7].calls[0].result.as_ref().unwrap().output.starts_with("diff --git"));
    assert!(s.messages[8].text.starts_with("exit status: submitted\n\ndiff --git"));
}

#[test]
fn sample_trajectory_without_history() {
    let s = &parse(&corpus("swe-agent/steps-only.traj"))[0];
    assert_eq!(s.meta.cwd.as_deref(), Some("/depot"));
    let calls: Vec<(&str, bool, bool)> = s
        .messages
        .iter()
        .flat_map(|m| &m.calls)
        .map(|c| (c.name.as_str(), c.result.as_ref().unwrap().is_error, c.result.as_ref().unwrap().interrupted))
        .collect();
    assert_eq!(
        calls,
        [("search_dir", false, false), ("edit", true, false), ("edit", true, false), ("bash", true, true)]
    );
    assert_eq!(s.messages[1].text, "Fix the division.\n\n", "the thought");
    assert_eq!(s.messages[2].text, "Try again.", "the response when the thought is empty");
    assert_eq!(s.messages.last().unwrap().text, "exit status: exit_format");
}
