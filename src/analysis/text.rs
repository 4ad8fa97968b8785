//! The text helpers every quote, summary and count goes through. Every quote is a
//! contiguous piece of the message (whitespace collapsed), cut with "…" where it is
//! shortened, so a reader — and the citation test — can find it in the message.

use std::borrow::Cow;
use std::path::Path;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use regex::Regex;

/// The mark that stands for text left out of a quote.
pub const ELLIPSIS: char = '…';

/// Terminal colour and cursor codes (`ESC[1;33m`) and window titles (`ESC]…BEL`).
static ANSI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07").expect("static regex"));

/// `s` without terminal escape codes: how a log pasted or printed in colour reads.
pub fn without_ansi(s: &str) -> Cow<'_, str> {
    ANSI.replace_all(s, "")
}

/// `<ide_…>` tags an IDE adds around what a person typed (Claude Code's
/// `<ide_opened_file>`, `<ide_selection>`).
static IDE_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<ide_[a-z_]+>.*?</ide_[a-z_]+>").expect("static regex"));
/// The Codex IDE extension's heading over what the person typed, below the active file
/// and open tabs it lists ("# Context from my IDE setup: … ## My request for Codex:").
static MY_REQUEST: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?im)^#+\s*my request for [\w .-]+:\s*$").expect("static regex"));

/// What the person typed, without the context an IDE wraps around it: `<ide_…>` tags,
/// and everything above the Codex extension's "## My request for Codex:". A turn with
/// no such wrapper comes back as it is.
pub fn typed(text: &str) -> Cow<'_, str> {
    let t = IDE_TAG.replace_all(text, "");
    match MY_REQUEST.find_iter(&t).last().map(|m| m.end()) {
        Some(end) => Cow::Owned(t[end..].to_string()),
        None => t,
    }
}

/// Han characters written differently in Simplified and Traditional Chinese, each entry
/// the Simplified form then its Traditional form(s): the characters of the cue lists and
/// the words around them (reports of failure, admissions, claims). A character that both
/// scripts write alike (了, 出, 只, 表) is not here.
const HAN_FORMS: &[&str] = &[
    "为為",
    "们們",
    "会會",
    "决決",
    "创創",
    "删刪",
    "动動",
    "发發",
    "变變",
    "复復複",
    "实實",
    "审審",
    "对對",
    "并並",
    "应應",
    "开開",
    "总總",
    "报報",
    "来來",
    "样樣",
    "档檔",
    "没沒",
    "现現",
    "约約",
    "经經",
    "结結",
    "统統",
    "补補",
    "让讓",
    "该該",
    "误誤",
    "说說",
    "调調",
    "败敗",
    "贴貼",
    "输輸",
    "运運",
    "还還",
    "这這",
    "违違",
    "错錯",
    "问問",
    "间間",
    "题題",
    "马馬",
    "显顯",
    "进進",
    "乱亂",
    "码碼",
    "吗嗎",
    "么麼",
    "着著",
    "点點",
    "击擊",
    "钮鈕",
    "换換",
    "图圖",
    "数數",
    "据據",
    "库庫",
    "启啟啓",
    "关關",
    "闭閉",
    "处處",
    "种種",
    "网網",
    "页頁",
    "边邊",
    "过過",
    "头頭",
    "坏壞",
    "断斷",
    "帮幫",
    "检檢",
    "测測",
    "试試",
    "无無",
    "确確",
    "认認",
    "级級",
    "执執",
    "环環",
    "线線",
    "转轉",
    "当當",
    "时時",
    "刚剛",
    "从從",
    "个個",
    "两兩",
    "于於",
    "与與",
    "将將",
    "虽雖",
    "却卻",
    "连連",
    "续續",
    "产產",
    "编編",
    "写寫",
    "读讀",
    "链鏈",
    "节節",
    "条條",
    "项項",
    "类類",
    "标標",
    "签簽",
    "须須",
    "终終",
    "达達",
    "预預",
    "请請",
    "际際",
    "务務",
    "获獲",
    "载載",
    "传傳",
    "览覽",
    "键鍵",
    "盘盤",
    "设設",
    "备備",
    "历歷曆",
    "迟遲",
    "论論",
    "惯慣",
    "严嚴",
    "视視",
    "觉覺",
    "灯燈",
    "忆憶",
    "脑腦",
    "电電",
    "员員",
    "导導",
    "资資",
    "领領",
    "闪閃",
    "烁爍",
    "缓緩",
    "诉訴",
    "听聽",
    "记記",
    "宽寬",
    "长長",
    "响響",
    "弹彈",
    "层層",
    "极極",
    "简簡",
    "单單",
    "纯純",
    "构構",
    "组組",
    "织織",
    "块塊",
    "别別",
    "里裡裏",
    "后後",
    "面麵",
    "见見",
    "验驗",
];

/// A regex pattern whose Han characters match in both scripts: each character of
/// [`HAN_FORMS`] becomes the class of its forms ("还是" → "[还還]是", "錯" → "[错錯]"), so
/// a cue list written once reads Simplified and Traditional Chinese alike. Nested classes
/// are valid in the regex crate, so a character inside `[…]` is widened the same way.
pub fn either_script(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() * 2);
    for c in pattern.chars() {
        match HAN_FORMS.iter().find(|f| f.contains(c)) {
            Some(forms) => {
                out.push('[');
                out.push_str(forms);
                out.push(']');
            }
            None => out.push(c),
        }
    }
    out
}

/// Whitespace (newlines included) collapsed to single spaces, trimmed.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4096));
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// A sentence's end after a quote that already ends one: `“It crashed.”.` → `“It crashed.”`.
pub fn tidy_punctuation(s: &str) -> String {
    let mut out = s.to_string();
    for end in ['.', '!', '?'] {
        for close in ['”', '`'] {
            out = out.replace(&format!("{end}{close}."), &format!("{end}{close}"));
        }
    }
    out
}

/// At most `max` characters of `s`, cut at a word boundary where one is near, with "…".
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    let at = match cut.rfind(' ') {
        Some(i) if i > max / 2 => i,
        _ => cut.len(),
    };
    format!("{}{ELLIPSIS}", cut[..at].trim_end())
}

/// One line of a transcript as a quote: collapsed and clipped.
pub fn quote(s: &str, max: usize) -> String {
    clip(&one_line(s), max)
}

/// The first line of `s` that is not blank, clipped: how a summary names a command.
pub fn clip_line(s: &str, max: usize) -> String {
    clip(first_line(s), max)
}

/// The first line of `s` that is not blank, trimmed.
pub fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

/// `9812` → `9,812`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "a", "a and b", "a, b and c".
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The plural ending for a count: `""` for one, `"s"` otherwise.
pub fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A size for people in decimal units: `900 B`, `14 KB`, `1.2 MB`, `3.4 GB`. Kilobytes are
/// whole numbers; larger units keep one decimal.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["MB", "GB", "TB", "PB"];
    if n < 1000 {
        return format!("{n} B");
    }
    if n < 1_000_000 {
        return format!("{} KB", (n as f64 / 1000.0).round() as u64);
    }
    let mut v = n as f64 / 1_000_000.0;
    let mut u = 0;
    while v >= 1000.0 && u < UNITS.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// The first `n` sentences of the first paragraph of prose (markdown list marks and
/// heading marks stripped), as one line of at most `max` characters. Never more than
/// one paragraph: a quote must be one contiguous piece of the message.
pub fn sentences(text: &str, n: usize, max: usize) -> String {
    for para in text.split("\n\n") {
        let mut para = para.trim_start_matches(['#', '-', ' ', '>', '\n']);
        // A bold label ("**Goal:** finish …") is markup, not the sentence.
        if let Some(rest) = para.strip_prefix("**")
            && let Some(end) = rest.find("**").filter(|e| *e < 60)
        {
            para = rest[end + 2..].trim_start_matches([':', ' ']);
        }
        let para = one_line(para.trim_start_matches(['*', ' ']));
        if para.is_empty() || para.starts_with("```") {
            continue;
        }
        let s: Vec<String> = split_sentences(&para).into_iter().take(n).collect();
        return clip(&s.join(" "), max);
    }
    String::new()
}

/// Sentences of one line: a split after `.`, `!`, `?` or `:` that ends a word and is
/// followed by a space (not inside `1.5`, `foo.rs`, `e.g.`-like abbreviations of one
/// letter).
pub fn split_sentences(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let next = bytes.get(i + 1).copied();
        if next != Some(b' ') {
            continue;
        }
        // "e.g. ", "i.e. ", "vs. " and initials are not sentence ends.
        let word = line[start..i].rsplit(' ').next().unwrap_or("").to_ascii_lowercase();
        if word.chars().count() <= 1 || matches!(word.as_str(), "e.g" | "i.e" | "vs" | "cf" | "approx") {
            continue;
        }
        out.push(line[start..=i].trim().to_string());
        start = i + 1;
    }
    let rest = line[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// Sentences of `text` that match `pred`, in order, each clipped.
pub fn sentences_where(text: &str, max_each: usize, pred: impl Fn(&str) -> bool) -> Vec<String> {
    text.split('\n')
        .flat_map(|l| split_sentences(&one_line(l.trim_start_matches(['#', '-', '*', ' ', '>']))))
        .filter(|s| pred(s))
        .map(|s| clip(&s, max_each))
        .collect()
}

/// The words of `text` that say what it is about: lowercased runs of letters of four or
/// more, without the common words any sentence has ("with", "could", "file"). Two texts
/// that share one are about the same thing, roughly: enough to tell whether a remark
/// speaks of a failure at all.
pub fn content_words(text: &str) -> std::collections::HashSet<String> {
    const COMMON: &[&str] = &[
        "about", "after", "again", "also", "because", "been", "before", "being", "command", "commands", "could",
        "does", "done", "each", "error", "failed", "file", "files", "from", "have", "here", "into", "just", "like",
        "line", "lines", "made", "make", "more", "must", "need", "next", "none", "only", "other", "over", "same",
        "should", "some", "such", "than", "that", "their", "them", "then", "there", "these", "they", "this", "those",
        "used", "using", "very", "want", "were", "what", "when", "where", "which", "will", "with", "would", "your",
    ];
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .filter(|w| !COMMON.contains(&w.as_str()))
        .collect()
}

/// A span of wall-clock time for people: "42 s", "4 min 12 s", "1 h 03 min", "2 d 4 h".
pub fn duration(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..60 => format!("{s} s"),
        60..3600 => {
            let (m, r) = (s / 60, s % 60);
            if r == 0 || m >= 10 { format!("{m} min") } else { format!("{m} min {r} s") }
        }
        3600..86_400 => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
        _ => format!("{} d {} h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// A path for people: relative to the current folder when inside it, `~` for home.
pub fn display_path(p: &Path) -> String {
    if let Ok(cwd) = std::env::current_dir()
        && let Ok(rel) = p.strip_prefix(&cwd)
    {
        return rel.display().to_string();
    }
    if let Some(home) = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
        && let Ok(rel) = p.strip_prefix(&home)
    {
        return format!("~/{}", rel.display());
    }
    p.display().to_string()
}

/// Seconds from `a` to `b`, when both are known and in order.
pub fn secs_between(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> Option<i64> {
    let d = (b? - a?).num_seconds();
    (d >= 0).then_some(d)
}

/// A time of day as reports print it.
pub fn clock(t: Option<DateTime<Utc>>) -> Option<String> {
    t.map(|t| t.format("%H:%M:%S").to_string())
}

/// Stable small hash (FNV-1a) for choosing phrase variants: the same facts always get the
/// same wording, different episodes get different wording.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_is_what_the_person_wrote_inside_the_ide_context() {
        let codex = "# Context from my IDE setup:\n\n## Active file: src/app.tsx\n\n## Open tabs:\n- app.tsx: src/app.tsx\n\n## My request for Codex:\nNO, don't do that.\n";
        assert_eq!(typed(codex).trim(), "NO, don't do that.");
        assert_eq!(typed("<ide_opened_file>The user opened a.py.</ide_opened_file>fix the import"), "fix the import");
        let plain = "## Context\nthe build is still failing";
        assert_eq!(typed(plain), plain);
    }

    #[test]
    fn either_script_reads_simplified_and_traditional_alike() {
        let re = Regex::new(&either_script(r"还是(?:没有|报错)|[错]了")).unwrap();
        for text in ["还是没有", "還是沒有", "還是报錯", "錯了"] {
            assert!(re.is_match(text), "{text}");
        }
        // Characters both scripts share are left alone; other words stay unmatched.
        assert_eq!(either_script("可以了"), "可以了");
        assert!(!re.is_match("还好没有"));
    }

    #[test]
    fn sentences_split_on_ends_not_on_dots_in_words() {
        let s = split_sentences("Run foo.rs now. It failed, e.g. on v1.5! Why? Because.");
        assert_eq!(s, vec!["Run foo.rs now.", "It failed, e.g. on v1.5!", "Why?", "Because."]);
    }

    #[test]
    fn clip_cuts_at_words() {
        assert_eq!(clip("the output is too long for this", 20), "the output is too…");
        assert_eq!(clip("short", 20), "short");
    }

    #[test]
    fn counts_and_sizes_read_naturally() {
        assert_eq!(thousands(9812), "9,812");
        assert_eq!(thousands(123), "123");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(and_list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
        assert_eq!(and_list(&["a".into()]), "a");
        assert_eq!(human_bytes(900), "900 B");
        assert_eq!(human_bytes(14_200), "14 KB");
        assert_eq!(human_bytes(1_234_567), "1.2 MB");
        assert_eq!(human_bytes(3_400_000_000), "3.4 GB");
        assert_eq!(quote("tail  -50\n x", 20), "tail -50 x");
        assert_eq!(first_line("\n  \n  grep x\nmore"), "grep x");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(42), "42 s");
        assert_eq!(duration(252), "4 min 12 s");
        assert_eq!(duration(3780), "1 h 03 min");
    }
}
