//! The detectors measured on real sessions nobody here wrote (issue 13): the labelled
//! instances of `eval/real/labels/` against what `debrief detect` finds in the files of
//! `eval/real/manifest.tsv` and `eval/real/manifest-new.tsv`.
//!
//! Where the files are: for `manifest.tsv`, `$DEBRIEF_EVAL_REAL`, else
//! `../shared/corpus-real/eval-real` (laid out as `<agent>/<owner>_<name>/<path>`, as
//! `scripts/fetch-real-set` writes it); for `manifest-new.tsv`, `$DEBRIEF_EVAL_REAL_NEW/<rel>`,
//! else `../shared/corpus-real-new/<rel>`, read with the row's format (an OpenHands V1 row is
//! a folder, read through its first event file); for `manifest-l9.tsv` (the held-out set L9),
//! `$DEBRIEF_EVAL_REAL_L9`, else `../shared/corpus-real/eval-real-l9`, laid out as
//! `scripts/fetch-real-set` writes it and read with the row's format (without that folder
//! the test says so in one line and leaves L9's labels out); for `manifest-l10.tsv` (the held-out
//! set L10), `$DEBRIEF_EVAL_REAL_L10`, else `../shared/corpus-real/eval-real-l10`, the same way.
//! Without the first folder the test says so
//! in one line and measures the second alone (CI's `../shared` holds corpus-real-new, so the
//! held-out sets are always measured there); without either it says so and passes (a fresh
//! clone has no real files). A manifest row whose file is
//! absent (the shared copy gets new rows' files later than the repository gets their
//! labels) is named in one line on stderr and left out of the figures with its labels,
//! which the table says. With the files it prints the tables (development: every set not
//! held out; the held-out sets together and each alone, or "not labelled" for a set whose
//! label files do not exist yet) and fails when a development detector finds fewer
//! labelled instances, or raises more unlabelled findings, than `eval/real/floors.tsv`
//! allows, or the held-out sets together fall below `eval/real/floors-held-out.tsv` (each
//! where its files are) — so a change that loses real findings fails the build.
//!
//! How a label is matched:
//! - its message is the one whose text, reasoning, command lines, tool input (as compact
//!   JSON), output, or the command of the call it continues (a poll of a background
//!   command) holds the label's `anchor` (whitespace runs compared as one space), as the
//!   transcript has it or else as `debrief show` prints it (redacted); of several, the
//!   one nearest the labeller's `msg`. An anchor found nowhere falls back on
//!   `msg` and is counted as unresolved.
//! - a finding of the label's detector in the label's session matches it when its key
//!   message is within 2 messages of the label's, or its evidence holds the label's
//!   message. Each finding matches one label at most.
//! - an unmatched finding is a false positive only in a session labelled exhaustively
//!   (`L*-sessions.tsv`, `exhaustive` = yes): elsewhere only the listed instances are known.
//!
//! `scripts/eval-real` runs this test and prints the table (`--json` for the figures).

mod common;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use debrief::detect::{self, Finding};
use debrief::formats::{self, Format};
use debrief::model::{Message, Session};
use debrief::redact::Redactor;
use serde_json::json;

struct Label {
    /// The label file's set (`L1` … `L10`): `L7`–`L10` are held out, see `HELD_OUT`.
    set: String,
    key: String,
    session: String,
    detector: String,
    anchor: String,
    msg: u32,
}

/// Read a TSV file with a header line into rows of named columns.
fn tsv(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| header.iter().map(|h| h.to_string()).zip(l.split('\t').map(str::to_string)).collect())
        // A header repeated inside a file (labels appended by several people) is no row.
        .filter(|r: &HashMap<String, String>| r.get("key").map(String::as_str) != Some("key"))
        .collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Everything of a message an anchor may quote.
fn haystack(m: &Message, commands: &HashMap<&str, &str>) -> String {
    let mut h = String::new();
    h.push_str(&m.text);
    h.push('\n');
    h.push_str(&m.thinking);
    for c in &m.calls {
        let _ = write!(
            h,
            "\n{}\n{}",
            c.command.as_deref().unwrap_or(""),
            serde_json::to_string(&c.input).unwrap_or_default()
        );
        if let Some(cmd) = c.continues.as_deref().and_then(|id| commands.get(id)) {
            let _ = write!(h, "\n{cmd}");
        }
        if let Some(r) = &c.result {
            let _ = write!(h, "\n{}", r.output);
        }
    }
    squash(&h)
}

/// The message a label points at, and whether its anchor was found.
fn resolve(session: &Session, label: &Label) -> (u32, bool) {
    let commands: HashMap<&str, &str> = session
        .messages
        .iter()
        .flat_map(|m| &m.calls)
        .filter_map(|c| Some((c.id.as_str(), c.command.as_deref()?)))
        .collect();
    let anchor = squash(&label.anchor);
    if anchor.is_empty() {
        return (label.msg, false);
    }
    let nearest = |found: &dyn Fn(&str) -> bool| {
        session
            .messages
            .iter()
            .filter(|m| found(&haystack(m, &commands)))
            .min_by_key(|m| m.idx.abs_diff(label.msg))
            .map(|m| m.idx)
    };
    // Labellers quote what `debrief show` prints, which is redacted by default
    // (`rg "[USER]" -n`): an anchor not in the transcript's own text is looked for in
    // the redacted text too.
    let redactor = || Redactor::for_meta(&session.meta, &[]).expect("built-in redaction rules");
    nearest(&|h| h.contains(&anchor))
        .or_else(|| {
            let r = redactor();
            nearest(&|h| r.redact(h).contains(&anchor))
        })
        .map_or((label.msg, false), |at| (at, true))
}

/// A manifest row's transcript: where it is, and the format it is read with (`None`:
/// recognised from the file, as for the rows of `manifest.tsv`), and whether the folder of
/// its set is there (a file missing from a present folder is named on stderr).
struct Row {
    path: PathBuf,
    format: Option<&'static dyn Format>,
    folder_present: bool,
}

#[derive(Default)]
struct Tally {
    labels: usize,
    found: usize,
    findings: usize,
    false_positives: usize,
    missed: Vec<String>,
    wrong: Vec<String>,
}

/// The folder of `manifest.tsv`'s files, and whether it is there (its absence is said in
/// one line: its rows are then left out, and so are the development floors).
fn eval_dir() -> (PathBuf, bool) {
    let dir = match std::env::var_os("DEBRIEF_EVAL_REAL") {
        Some(d) => PathBuf::from(d),
        None => common::root().join("../shared/corpus-real/eval-real"),
    };
    let present = dir.is_dir();
    if !present {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "eval_real: {} not found (the real evaluation set; scripts/fetch-real-set makes it): manifest.tsv's rows and the development floors are left out",
            dir.display()
        );
    }
    (dir, present)
}

#[test]
fn detectors_on_real_sessions() {
    let (data, dev_present) = eval_dir();
    let root = common::root().join("eval/real");
    let mut manifest: HashMap<String, Row> = tsv(&root.join("manifest.tsv"))
        .into_iter()
        .map(|r| {
            let repo = r["repo"].replacen('/', "_", 1);
            let path = data.join(&r["agent"]).join(repo).join(&r["path"]);
            (r["key"].clone(), Row { path, format: None, folder_present: dev_present })
        })
        .collect();
    // The transcripts of corpus-real-new (L7, L8), each with the format its row names.
    let new_dir = std::env::var_os("DEBRIEF_EVAL_REAL_NEW")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::shared_root().join("corpus-real-new"));
    let new_present = new_dir.is_dir();
    // The held-out set L9 (`manifest-l9.tsv`), fetched by scripts/fetch-real-set.
    let l9_dir = std::env::var_os("DEBRIEF_EVAL_REAL_L9")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::shared_root().join("corpus-real/eval-real-l9"));
    let l9_present = l9_dir.is_dir();
    // The held-out set L10 (`manifest-l10.tsv`), fetched the same way.
    let l10_dir = std::env::var_os("DEBRIEF_EVAL_REAL_L10")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::shared_root().join("corpus-real/eval-real-l10"));
    let l10_present = l10_dir.is_dir();
    if !dev_present && !new_present && !l9_present && !l10_present {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped eval_real: {}, {} and {} not found either",
            new_dir.display(),
            l9_dir.display(),
            l10_dir.display()
        );
        return;
    }
    if !l9_present {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "eval_real: {} not found (scripts/fetch-real-set eval/real/manifest-l9.tsv makes it): L9's labels are left out",
            l9_dir.display()
        );
    }
    for r in tsv(&root.join("manifest-l9.tsv")) {
        let key = &r["key"];
        let format = formats::by_id(&r["format"])
            .unwrap_or_else(|| panic!("eval/real/manifest-l9.tsv: {key}: unknown format `{}`", r["format"]));
        let path = l9_dir.join(&r["agent"]).join(r["repo"].replacen('/', "_", 1)).join(&r["path"]);
        let row = Row { path, format: Some(format), folder_present: l9_present };
        assert!(manifest.insert(key.clone(), row).is_none(), "eval/real/manifest-l9.tsv: key {key} used twice");
    }
    if !l10_present {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "eval_real: {} not found (scripts/fetch-real-set eval/real/manifest-l10.tsv makes it): L10's labels are left out",
            l10_dir.display()
        );
    }
    for r in tsv(&root.join("manifest-l10.tsv")) {
        let key = &r["key"];
        let format = formats::by_id(&r["format"])
            .unwrap_or_else(|| panic!("eval/real/manifest-l10.tsv: {key}: unknown format `{}`", r["format"]));
        let path = l10_dir.join(&r["agent"]).join(r["repo"].replacen('/', "_", 1)).join(&r["path"]);
        let row = Row { path, format: Some(format), folder_present: l10_present };
        assert!(manifest.insert(key.clone(), row).is_none(), "eval/real/manifest-l10.tsv: key {key} used twice");
    }
    for r in tsv(&root.join("manifest-new.tsv")) {
        let key = &r["key"];
        let format = formats::by_id(&r["format"])
            .unwrap_or_else(|| panic!("eval/real/manifest-new.tsv: {key}: unknown format `{}`", r["format"]));
        let row = Row { path: new_dir.join(&r["rel"]), format: Some(format), folder_present: new_present };
        assert!(manifest.insert(key.clone(), row).is_none(), "eval/real/manifest-new.tsv: key {key} used twice");
    }
    let mut labels: Vec<Label> = Vec::new();
    // (key, session prefix) of the sessions labelled exhaustively.
    let mut exhaustive: Vec<(String, String, String)> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("labels")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let set = name.trim_end_matches(".tsv").trim_end_matches("-sessions").to_string();
        if name.ends_with("-sessions.tsv") {
            for r in tsv(f) {
                if r.get("exhaustive").is_some_and(|v| v == "yes") {
                    exhaustive.push((set.clone(), r["key"].clone(), r["session"].clone()));
                }
            }
        } else if name.ends_with(".tsv") {
            for r in tsv(f) {
                labels.push(Label {
                    set: set.clone(),
                    key: r["key"].clone(),
                    session: r["session"].clone(),
                    detector: r["detector"].clone(),
                    anchor: r.get("anchor").cloned().unwrap_or_default(),
                    msg: r.get("msg").and_then(|m| m.parse().ok()).unwrap_or(0),
                });
            }
        }
    }
    for l in &labels {
        assert!(
            detect::by_id(&l.detector).is_some(),
            "label of an unknown detector `{}` ({} {})",
            l.detector,
            l.key,
            l.session
        );
    }
    // The development sets (read while the detectors were tuned) and the held-out sets
    // (labelled before detect was run on them), measured apart: the floors hold the first.
    let mut parsed: HashMap<String, Vec<Session>> = HashMap::new();
    let mut out = String::new();
    let mut doc = serde_json::Map::new();
    let mut dev = None;
    let mut held = None;
    // Rows added to the manifest reach the shared copy of the set later than the labels
    // reach the repository: each absent file is named once here and left out below.
    let mut absent: Vec<&str> =
        labels.iter().map(|l| l.key.as_str()).chain(exhaustive.iter().map(|(_, k, _)| k.as_str())).collect();
    absent.sort_unstable();
    absent.dedup();
    absent.retain(|k| manifest.get(*k).is_some_and(|r| !r.path.exists()));
    // An absent folder was said once; only a file missing from a present folder is named.
    absent.retain(|k| manifest[*k].folder_present);
    for key in &absent {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "eval_real: skipped {key}: {} not found", manifest[*key].path.display());
    }
    // The held-out sets are measured together and each on its own, so that a set whose
    // misses have since been read (and fixed) does not hide the figure of the newest one.
    // A held-out set is labelled once its label files exist; until then it is reported as
    // not labelled, not measured as 0 of 0.
    let labelled =
        |set: &str| ["", "-sessions"].iter().any(|part| root.join("labels").join(format!("{set}{part}.tsv")).is_file());
    let mut development: Vec<&str> =
        files.iter().filter_map(|f| f.file_name()?.to_str()?.split(['.', '-']).next()).collect();
    development.dedup();
    development.retain(|set| !HELD_OUT.contains(set));
    let span = match development.as_slice() {
        [first, .., last] => format!("{first}-{last}"),
        sets => sets.join(""),
    };
    let mut groups: Vec<(String, String, Vec<&str>)> =
        vec![(format!("development ({span})"), "development".into(), Vec::new())];
    groups.push((format!("held-out ({})", HELD_OUT.join("+")), "held_out".into(), HELD_OUT.to_vec()));
    if HELD_OUT.len() > 1 {
        for set in HELD_OUT {
            groups.push((format!("held-out, {set} alone"), format!("held_out_{set}"), vec![set]));
        }
    }
    for (name, json_key, sets) in &groups {
        let held_out = !sets.is_empty();
        let unlabelled: Vec<&str> = sets.iter().copied().filter(|s| !labelled(s)).collect();
        if held_out && unlabelled.len() == sets.len() {
            let files: Vec<String> = sets.iter().map(|s| format!("eval/real/labels/{s}.tsv")).collect();
            let _ = writeln!(out, "{name}: not labelled ({} not written yet)\n", files.join(", "));
            doc.insert(json_key.clone(), json!({"sets": sets, "labelled": false}));
            continue;
        }
        let name = if unlabelled.is_empty() {
            name.clone()
        } else {
            format!("{name} ({} not labelled yet, measured without)", unlabelled.join(", "))
        };
        let in_group = |set: &str| if held_out { sets.contains(&set) } else { !HELD_OUT.contains(&set) };
        let mine: Vec<&Label> = labels.iter().filter(|l| in_group(&l.set)).collect();
        let ex: Vec<(String, String)> =
            exhaustive.iter().filter(|(set, _, _)| in_group(set)).map(|(_, k, p)| (k.clone(), p.clone())).collect();
        let m = measure(&mine, &ex, &manifest, &mut parsed);
        let figures = table(&mut out, &name, &m);
        let sets = if held_out { sets.clone() } else { development.clone() };
        doc.insert(
            json_key.clone(),
            json!({"sets": sets, "labelled": true, "not_labelled": unlabelled,
                   "labels": mine.len() - m.skipped_labels, "sessions": m.sessions,
                   "exhaustive": m.exhaustive, "unresolved": m.unresolved,
                   "skipped": {"labels": m.skipped_labels, "sessions": m.skipped}, "detectors": figures}),
        );
        if !held_out {
            dev = Some(m.tallies);
        } else if sets.as_slice() == FLOORED_HELD_OUT {
            held = Some(m.tallies);
        }
    }
    // The held-out floors hold L7+L8 together (`floors-held-out.tsv`); sets held out later
    // (L9, L10) are measured but not floored, so they are measured for the floors apart.
    if held.is_none() {
        let mine: Vec<&Label> = labels.iter().filter(|l| FLOORED_HELD_OUT.contains(&l.set.as_str())).collect();
        let ex: Vec<(String, String)> = exhaustive
            .iter()
            .filter(|(set, _, _)| FLOORED_HELD_OUT.contains(&set.as_str()))
            .map(|(_, k, p)| (k.clone(), p.clone()))
            .collect();
        held = Some(measure(&mine, &ex, &manifest, &mut parsed).tallies);
    }
    println!("{out}");
    if let Some(p) = std::env::var_os("DEBRIEF_EVAL_JSON") {
        std::fs::write(p, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    }
    // The floors: what the detectors find today must not get worse — on the development
    // sets (`floors.tsv`) and on the held-out sets together (`floors-held-out.tsv`: a floor
    // guards against losing what is found there; it tunes nothing), each where its files are.
    let mut failures = Vec::new();
    let checks = [(dev_present, "floors.tsv", dev), (new_present, "floors-held-out.tsv", held)];
    for (present, file, tallies) in checks {
        let Some(tallies) = tallies.filter(|_| present) else { continue };
        for r in tsv(&root.join(file)) {
            let id = r["detector"].as_str();
            let t = tallies.get(id).unwrap_or_else(|| panic!("{file}: unknown detector `{id}`"));
            let min_found: usize = r["min_found"].parse().unwrap();
            let max_wrong: usize = r["max_wrong"].parse().unwrap();
            if t.found < min_found {
                failures.push(format!("{file}: {id}: finds {} labelled instances, the floor is {min_found}", t.found));
            }
            if t.false_positives > max_wrong {
                failures
                    .push(format!("{file}: {id}: {} wrong findings, at most {max_wrong} allowed", t.false_positives));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The sets whose labels were written before the detectors were run on their sessions
/// (the rows of `manifest-new.tsv`). L5 and L6 were held out until their misses were read
/// and fixed (docs/detectors.md); they are development sets now.
/// L9 (`manifest-l9.tsv`, labelled 2026-12-04) was held out after L7 and L8 and is not floored:
/// `floors-held-out.tsv` holds `FLOORED_HELD_OUT` together. L10 (`manifest-l10.tsv`, labelled
/// 2026-12-04 before any detector ran on it) is held out and not floored the same way.
const HELD_OUT: &[&str] = &["L7", "L8", "L9", "L10"];

/// The held-out sets `floors-held-out.tsv` holds, together.
const FLOORED_HELD_OUT: &[&str] = &["L7", "L8"];

type Tallies = BTreeMap<&'static str, Tally>;

/// One group of sets measured: the tallies, and what could not be measured.
struct Measured {
    tallies: Tallies,
    unresolved: Vec<String>,
    /// Sessions measured (labelled or exhaustive), and of them exhaustive.
    sessions: usize,
    exhaustive: usize,
    /// Sessions whose file is absent from the set folder (a row added to the manifest
    /// before its file reached the shared copy), and the labels they hold.
    skipped: Vec<String>,
    skipped_labels: usize,
}

/// Match `labels` against the findings in their sessions (and the `exhaustive` ones).
fn measure(
    labels: &[&Label],
    exhaustive: &[(String, String)],
    manifest: &HashMap<String, Row>,
    parsed: &mut HashMap<String, Vec<Session>>,
) -> Measured {
    // Every session that is labelled or exhaustive, read once.
    let mut wanted: Vec<(String, String)> = labels.iter().map(|l| (l.key.clone(), l.session.clone())).collect();
    wanted.extend(exhaustive.iter().cloned());
    wanted.sort();
    wanted.dedup();
    let mut tallies: Tallies = detect::registry().iter().map(|d| (d.id(), Tally::default())).collect();
    let mut unresolved: Vec<String> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut skipped_labels = 0;
    let mut exhaustive_measured = 0;
    for (key, prefix) in &wanted {
        let row = manifest.get(key).unwrap_or_else(|| {
            panic!("{key}: not in eval/real/manifest.tsv, manifest-new.tsv, manifest-l9.tsv nor manifest-l10.tsv")
        });
        let path = &row.path;
        // A manifest row whose file has not reached this copy of the set yet: left out
        // of the figures with its labels (the caller has said so on stderr), not a failure.
        if !path.exists() {
            skipped.push(format!("{key} {prefix}"));
            skipped_labels += labels.iter().filter(|l| &l.key == key && &l.session == prefix).count();
            continue;
        }
        let sessions = parsed.entry(key.clone()).or_insert_with(|| {
            formats::parse_file(&common::transcript_file(path), row.format)
                .unwrap_or_else(|e| panic!("{key}: {e:#}"))
                .sessions
        });
        let Some(session) = sessions.iter().find(|s| s.meta.id.starts_with(prefix.as_str())) else {
            panic!("{key}: no session whose id starts with `{prefix}` in {}", path.display());
        };
        let findings: Vec<Finding> = detect::detect_session(detect::registry(), &session.messages);
        let is_exhaustive = exhaustive.iter().any(|(k, p)| k == key && p == prefix);
        exhaustive_measured += usize::from(is_exhaustive);
        let mine: Vec<&&Label> = labels.iter().filter(|l| &l.key == key && &l.session == prefix).collect();
        let mut used = vec![false; findings.len()];
        for l in &mine {
            let (at, ok) = resolve(session, l);
            if !ok {
                unresolved.push(format!("{key} {prefix} {} msg {}: anchor not found", l.detector, l.msg));
            }
            let t = tallies.get_mut(l.detector.as_str()).unwrap();
            t.labels += 1;
            let hit = findings
                .iter()
                .enumerate()
                .filter(|(i, f)| !used[*i] && f.detector == l.detector)
                .filter(|(_, f)| f.key.abs_diff(at) <= 2 || f.evidence.contains(&at))
                .min_by_key(|(_, f)| f.key.abs_diff(at))
                .map(|(i, _)| i);
            match hit {
                Some(i) => {
                    used[i] = true;
                    t.found += 1;
                }
                None => t.missed.push(format!("{key} {prefix} [msg {at}]")),
            }
        }
        for (f, used) in findings.iter().zip(&used) {
            let t = tallies.get_mut(f.detector.as_str()).unwrap();
            t.findings += 1;
            if !used && is_exhaustive {
                t.false_positives += 1;
                t.wrong.push(format!("{key} {prefix} [msg {}]", f.key));
            }
        }
    }
    let sessions = wanted.len() - skipped.len();
    Measured { tallies, unresolved, sessions, exhaustive: exhaustive_measured, skipped, skipped_labels }
}

/// Print one set's table into `out`; its figures as JSON.
fn table(out: &mut String, name: &str, m: &Measured) -> serde_json::Map<String, serde_json::Value> {
    let Measured { tallies, unresolved, sessions, exhaustive, skipped, skipped_labels } = m;
    let labels: usize = tallies.values().map(|t| t.labels).sum();
    // The table.
    let _ = writeln!(out, "{name}: {labels} labels in {sessions} sessions ({exhaustive} exhaustive)");
    if !skipped.is_empty() {
        let _ = writeln!(
            out,
            "  left out: {skipped_labels} labels in {} sessions whose files are absent ({})",
            skipped.len(),
            skipped.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "{:<20} {:>6} {:>6} {:>8} {:>6} {:>9} {:>6}",
        "detector", "labels", "found", "findings", "wrong", "precision", "recall"
    );
    let mut figures = serde_json::Map::new();
    for (id, t) in tallies {
        let judged = t.found + t.false_positives;
        let precision = if judged == 0 { None } else { Some(t.found as f64 / judged as f64) };
        let recall = if t.labels == 0 { None } else { Some(t.found as f64 / t.labels as f64) };
        let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.0}%", v * 100.0));
        let _ = writeln!(
            out,
            "{id:<20} {:>6} {:>6} {:>8} {:>6} {:>9} {:>6}",
            t.labels,
            t.found,
            t.findings,
            t.false_positives,
            pct(precision),
            pct(recall),
        );
        figures.insert(
            id.to_string(),
            json!({"labels": t.labels, "found": t.found, "findings": t.findings, "false_positives": t.false_positives,
                   "precision": precision, "recall": recall, "missed": t.missed, "wrong": t.wrong}),
        );
    }
    for (id, t) in tallies {
        for m in &t.missed {
            let _ = writeln!(out, "missed {id}: {m}");
        }
        for w in &t.wrong {
            let _ = writeln!(out, "wrong  {id}: {w}");
        }
    }
    for u in unresolved {
        let _ = writeln!(out, "unresolved: {u}");
    }
    let _ = writeln!(out);
    figures
}
