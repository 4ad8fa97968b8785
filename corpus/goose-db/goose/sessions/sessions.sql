-- Goose's session database (crates/goose/src/session/session_manager.rs of aaif-goose/goose),
-- kept as SQL; the tests make sessions.db from it. The second session is a subagent the
-- first started with goose's `delegate` tool, whose result names it in `_meta`
-- (crates/goose/src/agents/state_machine/ops_subagent.rs).
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  provider_name TEXT, model_config_json TEXT, parent_session_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
  session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL,
  created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
  metadata_json TEXT);
INSERT INTO sessions (id, name, working_dir, created_at, model_config_json) VALUES
  ('20260715_1', 'Flaky test', '/home/dev/app', '2026-07-15 09:00:00', '{"model_name":"claude-sonnet-4-5","context_limit":200000}');
INSERT INTO sessions (id, name, session_type, working_dir, created_at, parent_session_id) VALUES
  ('20260715_2', 'subagent', 'sub_agent', '/home/dev/app', '2026-07-15 09:01:00', '20260715_1');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES
  ('m1', '20260715_1', 'user', '[{"type":"text","text":"why does test_x flake?"}]', 1784106000, '{"userVisible":true,"agentVisible":true}'),
  ('m2', '20260715_1', 'assistant', '[{"type":"text","text":"Running it."},{"type":"toolRequest","id":"toolu_01","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"cargo test test_x"}}},"_meta":{"goose_extension":"developer"}}]', 1784106005, '{"userVisible":true,"agentVisible":true}'),
  ('m3', '20260715_1', 'user', '[{"type":"toolResponse","id":"toolu_01","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"test result: FAILED. 0 passed; 1 failed"}],"isError":false}}}]', 1784106009, '{"userVisible":true,"agentVisible":true}'),
  ('m3b', '20260715_1', 'assistant', '[{"type":"toolRequest","id":"toolu_02","toolCall":{"status":"success","value":{"name":"delegate","arguments":{"instructions":"Read tests/x.rs and say what it races on."}}}}]', 1784106060, '{"userVisible":true,"agentVisible":true}'),
  ('m3c', '20260715_1', 'user', '[{"type":"toolResponse","id":"toolu_02","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"Delegated to subagent 20260715_2"}],"isError":false,"_meta":{"foreground_subagent":true,"subagent_session_id":"20260715_2"}}}}]', 1784106065, '{"userVisible":true,"agentVisible":true}'),
  ('m4', '20260715_2', 'user', '[{"type":"text","text":"Read tests/x.rs and say what it races on."}]', 1784106070, '{"userVisible":true,"agentVisible":true}'),
  ('m5', '20260715_2', 'assistant', '[{"type":"text","text":"It shares a temp dir between threads."}]', 1784106080, '{"userVisible":true,"agentVisible":true}');
