//! Test hooks that stop a command at an exact place: with `VAR=<point>:<k>` in the
//! environment, the k-th time the command reaches `point` the hook fires. The crash tests
//! (`DEBRIEF_CRASH_AT`, tests/crash_safety.rs) abort `index` there; the team tests
//! (`DEBRIEF_PUSH_STOP`, tests/team.rs) hold `push` there until it is killed.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// One hook, read from its environment variable once.
pub(crate) struct TestPoint {
    var: &'static str,
    at: OnceLock<Option<(String, u64)>>,
    seen: AtomicU64,
}

impl TestPoint {
    pub(crate) const fn new(var: &'static str) -> TestPoint {
        TestPoint { var, at: OnceLock::new(), seen: AtomicU64::new(0) }
    }

    /// `Some(k)` when this is the k-th time `point` is reached and the variable names it.
    pub(crate) fn reached(&self, point: &str) -> Option<u64> {
        let (p, k) = self
            .at
            .get_or_init(|| {
                let v = std::env::var(self.var).ok()?;
                let (p, k) = v.rsplit_once(':')?;
                Some((p.to_string(), k.parse().ok()?))
            })
            .as_ref()?;
        (p == point && self.seen.fetch_add(1, Ordering::SeqCst) + 1 == *k).then_some(*k)
    }
}
