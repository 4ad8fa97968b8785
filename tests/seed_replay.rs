//! The seed replay: a Claude Code session that plays out the story of ../shared/seeds/
//! with the story's messages at the seeds' ids (5071–5087).

mod common;

use common::{corpus, parse, root};
use debrief::model::{Origin, Role};

fn replay() -> debrief::model::Session {
    parse(&corpus("seed-replay/kimi-k25-eagle3-campaign.jsonl")).remove(0)
}

#[test]
fn the_story_lands_on_the_seeds_message_ids() {
    let s = replay();
    assert_eq!(s.messages.len(), 5087);
    let text = |i: u32| s.message(i).unwrap().text.clone();
    let cmd = |i: u32| s.message(i).unwrap().calls[0].command.clone().unwrap_or_default();
    assert!(text(5071).contains("NCCL_ALGO=Tree fails during CUDA graph capture"));
    assert_eq!(s.message(5076).unwrap().calls[0].name, "Edit");
    assert_eq!(s.message(5078).unwrap().calls[0].name, "Edit");
    assert!(cmd(5080).contains("NCCL_MAX_NCHANNELS=2") && cmd(5080).contains("sglang.launch_server"));
    assert!(s.message(5081).unwrap().calls[0].result.as_ref().unwrap().output.starts_with("CRASHED"));
    assert!(cmd(5082).starts_with("ssh root@") && cmd(5082).contains("grep -i"));
    assert!(cmd(5083).contains("grep -A5"));
    assert!(text(5084).starts_with("The output is too long — that's just the ServerArgs dump."));
    assert!(cmd(5084).contains("tail -50"));
    assert!(text(5085).starts_with("It's still loading! It didn't crash"));
    let poll = s.message(5085).unwrap().calls[0].result.as_ref().unwrap();
    assert!(poll.output.ends_with("timed out after 23 attempts"));
    let empty = s.message(5086).unwrap();
    assert_eq!((empty.role, empty.origin, empty.text.as_str()), (Role::User, Origin::Typed, ""));
    assert!(text(5087).len() > 3000 && text(5087).contains("### Next steps"));
}

#[test]
fn the_committed_replay_is_what_the_generator_writes() {
    let out = std::process::Command::new("python3")
        .arg(root().join("corpus/seed-replay/generate.py"))
        .output()
        .expect("python3 runs the generator");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = std::fs::read(corpus("seed-replay/kimi-k25-eagle3-campaign.jsonl")).unwrap();
    assert!(
        out.stdout == committed,
        "regenerate: python3 corpus/seed-replay/generate.py > corpus/seed-replay/kimi-k25-eagle3-campaign.jsonl"
    );
}
